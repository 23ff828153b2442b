#!/usr/bin/env bash
# Differential test of every example (tests/difftest/examples.txt) against
# the interpreter: the default configuration plus random ones, per line.
#   usage: run_examples.sh MDH_DIFFTEST SOURCE_DIR [CONFIGS]
set -u
difftest=$1 root=$2 configs=${3:-4}
passed=0 failed=0
while read -r file entry settings tol; do
  case "$file" in ''|'#'*) continue ;; esac
  args=("$root/examples/$file" --entry "$entry" --set "$settings" --configs "$configs" --seed 5)
  [ -n "${tol:-}" ] && args+=(--float-tolerance "$tol")
  if out=$("$difftest" "${args[@]}" 2>&1); then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    echo "FAIL $file $entry $settings"
    echo "$out" | head -40
  fi
done < "$(dirname "$0")/examples.txt"
echo "difftest examples: $((passed + failed)) instantiations, $configs random configurations each"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
