#!/usr/bin/env bash
# Headless Neovim as the LSP client (tests/lsp/nvim/client.lua): mdh-lsp must
# deliver diagnostics, a hover and a completion to a real editor.
# Usage: run.sh MDH_LSP REPO_ROOT
set -u
server=$1 root=$2
nvim=$(command -v nvim || true)
if [ -z "$nvim" ]; then
  echo "SKIP: nvim is not installed (scripts/install-deps.sh installs Debian's neovim)"
  exit 77
fi
out=$(mktemp)
trap 'rm -f "$out"' EXIT
MDH_LSP=$server MDH_ROOT=$root MDH_NVIM_OUT=$out timeout 60 "$nvim" --headless --clean -n \
  -c "luafile $root/tests/lsp/nvim/client.lua" >/dev/null 2>&1
status=$?
cat "$out"
fail=0
expect() {
  grep -qE -- "$1" "$out" || { echo "FAIL: expected a line matching: $1"; fail=1; }
}
expect '^DIAG 3 44 E0314 unknown name `y`$'   # UTF-16 column 42 after the emoji is byte 44
expect '^DIAG 7 0 E0001 expected `;`, found `mdh`$'
expect '^DIAG 10 22 E0403 index 1 of `A` can be negative'
expect '^HOVER .*mdh mv<T: type, I: size, K: size>.*\*\*MDA\*\* \[I, K\].*`k`: `pw\(add\)` — point-wise.*out `w`: `T\[I\]`'
expect '^COMPLETION value index$'
expect '^DONE$'
if grep -q '^FAIL' "$out"; then fail=1; fi
[ $status -eq 0 ] || { echo "FAIL: nvim exited with status $status"; fail=1; }
[ $fail -eq 0 ] && echo "ok: Neovim received diagnostics, hover and completion from mdh-lsp"
exit $fail
