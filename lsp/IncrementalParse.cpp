/** \file
 * Item splitting, the item cache, and module assembly.
 */
#include "IncrementalParse.h"

#include "AstCopy.h"

#include <algorithm>

namespace mdh::lsp {

namespace {

bool startsDecl(const LexToken &t) {
  static const char *const words[] = {"fn", "record", "combine", "view", "mdh", "import"};
  if (t.kind == LexToken::Kind::Keyword)
    for (const char *w : words)
      if (t.text == w) return true;
  return t.text == "@";
}

bool isComment(const LexToken &t) {
  return t.kind == LexToken::Kind::Comment || t.kind == LexToken::Kind::DocComment;
}

} // namespace

std::vector<std::pair<uint32_t, uint32_t>> IncrementalParser::splitItems(const std::vector<LexToken> &tokens,
                                                                         uint32_t size) {
  std::vector<std::pair<uint32_t, uint32_t>> out;
  uint32_t start = 0;
  int depth = 0;
  for (size_t i = 0; i < tokens.size(); ++i) {
    const LexToken &t = tokens[i];
    if (isComment(t)) continue;
    bool end = false;
    if (t.text == "(" || t.text == "[" || t.text == "{") ++depth;
    else if (t.text == ")" || t.text == "]" || t.text == "}") {
      depth = std::max(0, depth - 1);
      if (t.text == "}" && depth == 0) {
        size_t j = i + 1;
        while (j < tokens.size() && isComment(tokens[j])) ++j;
        end = j == tokens.size() || startsDecl(tokens[j]);
      }
    } else if (t.text == ";" && depth == 0) {
      end = true;
    }
    if (end) {
      out.push_back({start, t.end});
      start = t.end;
    }
  }
  if (start < size || out.empty()) out.push_back({start, size});
  return out;
}

std::unique_ptr<ast::Module> IncrementalParser::parse(const SourceManager &sm, FileId id, DiagnosticEngine &diags,
                                                      const ParseLimits &limits, const std::vector<LexToken> &tokens,
                                                      bool keepCache) {
  stats_ = {};
  const SourceFile &src = sm.file(id);
  const std::u32string &cps = src.codePoints();
  auto full = [&] {
    stats_.fullParse = true;
    return parseModule(sm, id, diags, limits);
  };
  if (cps.size() > limits.maxFileCodePoints) return full();
  // The tokens must be this text's: check the item ends against the text itself.
  if (!tokens.empty() && tokens.back().end > cps.size()) return full();
  auto items = splitItems(tokens, uint32_t(cps.size()));
  for (const auto &[b, e] : items)
    if (e != cps.size() && (e == 0 || (cps[e - 1] != U';' && cps[e - 1] != U'}'))) return full();

  std::map<std::string, std::shared_ptr<const Item>> used;
  std::vector<std::shared_ptr<const Item>> parsed;
  parsed.reserve(items.size());
  stats_.items = items.size();
  for (const auto &[b, e] : items) {
    std::string text = encodeUtf8(std::u32string_view(cps).substr(b, e - b));
    std::shared_ptr<const Item> item;
    if (auto it = cache_.find(text); it != cache_.end()) item = it->second;
    else if (auto u = used.find(text); u != used.end()) item = u->second;
    if (!item) {
      ++stats_.reparsed;
      SourceManager scratch;
      DiagnosticEngine itemDiags;
      FileId f = scratch.addFile(src.path(), text);
      auto fresh = std::make_shared<Item>();
      fresh->module = parseModule(scratch, f, itemDiags, limits);
      fresh->clean = itemDiags.all().empty() && fresh->module;
      item = std::move(fresh);
    }
    used.emplace(std::move(text), item);
    parsed.push_back(item);
  }
  if (keepCache) cache_ = used;
  size_t firstBroken = items.size();
  for (size_t k = 0; k < parsed.size() && firstBroken == items.size(); ++k)
    if (!parsed[k]->clean) firstBroken = k;

  // From the item before the first one with a diagnostic on, parse the rest of
  // the file as one piece.  Starting one clean item early puts the parser where
  // a whole-file parse is when it meets the error: inside the `topLevel*` loop
  // after an item, with no error so far (ANTLR recovers differently at the
  // loop's entry), so its recovery and messages are the same.
  std::unique_ptr<ast::Module> tail;
  std::vector<Diagnostic> tailDiags;
  uint32_t tailGivenUpAt = UINT32_MAX;
  size_t reuse = firstBroken;
  if (firstBroken < items.size()) {
    if (firstBroken == 0) return full();
    reuse = firstBroken - 1;
    const uint32_t from = items[reuse].first;
    SourceManager scratch;
    DiagnosticEngine d;
    FileId f = scratch.addFile(src.path(), encodeUtf8(std::u32string_view(cps).substr(from)));
    tail = parseModule(scratch, f, d, limits);
    for (const auto &x : d.all()) {
      // A whole-file verdict (nesting too deep: no tree at all; the size limit;
      // giving up at the file's start) does not carry over from a piece.
      if (x.code == "E0008" || x.code == "E0010" || (x.range.valid() && x.range.begin == 0 && x.range.end == 0))
        return full();
    }
    if (!tail) return full();
    RangeShift shift{id, int64_t(from)};
    for (const auto &x : d.all()) {
      Diagnostic moved = x;
      moved.range = shift(x.range);
      for (auto &n : moved.notes) n.range = shift(n.range);
      tailDiags.push_back(std::move(moved));
    }
    stats_.tailFrom = from;
    if (tail->givenUpAt != UINT32_MAX) tailGivenUpAt = tail->givenUpAt + from;
  }

  // Assemble: the items' (and the tail's) imports, declarations and comments, moved into place.
  auto mod = std::make_unique<ast::Module>();
  mod->file = id;
  mod->givenUpAt = tailGivenUpAt;
  auto append = [&](const ast::Module &m, uint32_t at) {
    RangeShift shift{id, int64_t(at)};
    for (const auto &[isImport, i] : m.order) {
      if (isImport) {
        mod->order.push_back({true, mod->imports.size()});
        mod->imports.push_back(copyImport(m.imports[i], shift));
      } else {
        mod->order.push_back({false, mod->decls.size()});
        mod->decls.push_back(copyDecl(*m.decls[i], shift));
      }
    }
    for (const auto &c : m.comments) mod->comments.push_back(copyComment(c, shift));
  };
  for (size_t k = 0; k < reuse; ++k) append(*parsed[k]->module, items[k].first);
  if (tail) append(*tail, items[reuse].first);
  for (auto &x : tailDiags) diags.report(std::move(x));
  return mod;
}

} // namespace mdh::lsp
