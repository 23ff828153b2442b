-- A real editor as client: headless Neovim starts mdh-lsp, opens two .mdh
-- files and writes what it received to $MDH_NVIM_OUT for run.sh to check:
--   DIAG <line> <byte col> <code> <message's first line>   (errors.mdh)
--   HOVER <markdown, newlines as \n>                         (features.mdh, on `mv`)
--   COMPLETION <labels>                                      (features.mdh, after `x.`)
--   DONE
-- Uses the API of Neovim 0.7 (Debian 12): vim.lsp.start_client and
-- buf_attach_client; newer versions keep them.
local server = os.getenv('MDH_LSP')
local root = os.getenv('MDH_ROOT')
local out = assert(io.open(os.getenv('MDH_NVIM_OUT'), 'w'))
local function emit(s) out:write(s, '\n'); out:flush() end
local function fail(msg) emit('FAIL ' .. msg); out:close(); vim.cmd('qa!') end

local client_id = vim.lsp.start_client({
  name = 'mdh-lsp',
  cmd = { server },
  root_dir = root,
  on_exit = function(code) if code ~= 0 then emit('EXIT ' .. code) end end,
})
if not client_id then return fail('could not start ' .. tostring(server)) end

local function open(path)
  vim.cmd('edit ' .. vim.fn.fnameescape(path))
  local buf = vim.api.nvim_get_current_buf()
  vim.bo[buf].filetype = 'mdh'
  vim.lsp.buf_attach_client(buf, client_id)
  return buf
end

-- Diagnostics of a broken file.
local errors = open(root .. '/tests/lsp/inputs/errors.mdh')
local ok = vim.wait(15000, function() return #vim.diagnostic.get(errors) >= 3 end, 50)
if not ok then return fail('no diagnostics within 15 s') end
local diags = vim.diagnostic.get(errors)
table.sort(diags, function(a, b) return a.lnum < b.lnum end)
for _, d in ipairs(diags) do
  local code = d.code or (d.user_data and d.user_data.lsp and d.user_data.lsp.code) or '?'
  emit(string.format('DIAG %d %d %s %s', d.lnum, d.col, code, (d.message:gsub('\n.*', ''))))
end

-- Hover on the name of the generic mdh `mv` in features.mdh (line 33, 0-based 32).
local features = open(root .. '/tests/lsp/inputs/features.mdh')
vim.wait(10000, function() return vim.lsp.buf_is_attached(features, client_id) end, 50)
local params = { textDocument = vim.lsp.util.make_text_document_params(features),
                 position = { line = 32, character = 5 } }
local res = vim.lsp.buf_request_sync(features, 'textDocument/hover', params, 15000)
local hover
for _, r in pairs(res or {}) do
  if r.result and r.result.contents then hover = r.result.contents.value end
end
if not hover then return fail('no hover') end
emit('HOVER ' .. hover:gsub('\n', '\\n'))

-- Completion after typing `x.` in pick's body (line 18, 0-based 17): an edit the editor syncs.
vim.api.nvim_buf_set_text(features, 17, 11, 17, 11, { 'x.' })
local cparams = { textDocument = vim.lsp.util.make_text_document_params(features),
                  position = { line = 17, character = 13 } }
local cres = vim.lsp.buf_request_sync(features, 'textDocument/completion', cparams, 15000)
local labels = {}
for _, r in pairs(cres or {}) do
  local items = r.result and (r.result.items or r.result) or {}
  for _, it in ipairs(items) do table.insert(labels, it.label) end
end
emit('COMPLETION ' .. table.concat(labels, ' '))
vim.cmd('bufdo set nomodified')

vim.lsp.stop_client(client_id)
emit('DONE')
out:close()
vim.cmd('qa!')
