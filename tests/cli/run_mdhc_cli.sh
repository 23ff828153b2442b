#!/usr/bin/env bash
# mdhc's command line on bad requests: `mdhc run` reports ⊥ output cells
# like mdhi (E0903 with the file position, exit 1, no output file written)
# unless --allow-undefined; `mdhc compile --name` rejects names that are not
# C identifiers or that the generated code's libraries use; data requests
# that cannot be met (a directory as input, a buffer given twice) say so.
set -u
mdhc=$1 dir=$(dirname "$0")
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
$mdhc run "$dir/gaps.mdh" --entry gaps --set N=5 --seed 1 --out O="$tmp/o.npy" 2> "$tmp/err" && fail "⊥ cells were not an error"
grep -q "gaps.mdh:3:[0-9]*: error\[E0903\]: output buffer \`O\` has 4 undefined" "$tmp/err" || { cat "$tmp/err"; fail "no E0903 diagnostic"; }
[ ! -e "$tmp/o.npy" ] || fail "an output file was written despite the error"
$mdhc run "$dir/gaps.mdh" --entry gaps --set N=5 --seed 1 --allow-undefined --out O="$tmp/o.npy" 2> "$tmp/err" || { cat "$tmp/err"; fail "--allow-undefined"; }
[ -s "$tmp/o.npy" ] || fail "--allow-undefined wrote no output"
for bad in "1bad" "two words" "memcpy" "int" "mdh_min"; do
  $mdhc compile "$dir/gaps.mdh" --entry gaps --set N=5 --name "$bad" -o "$tmp/k" 2> "$tmp/err" && fail "--name '$bad' was accepted"
  grep -q "error: --name" "$tmp/err" || { cat "$tmp/err"; fail "no --name error for '$bad'"; }
done
# Bad data requests: a directory as input, a buffer given twice.
$mdhc run "$dir/gaps.mdh" --entry gaps --set N=5 --allow-undefined --in A="$tmp" 2> "$tmp/err" && fail "a directory was read as input"
grep -q "input buffer \`A\`: cannot read .*: it is a directory" "$tmp/err" || { cat "$tmp/err"; fail "no message for a directory"; }
$mdhc run "$dir/gaps.mdh" --entry gaps --set N=5 --allow-undefined --in A=x.npy --in A=y.npy 2> "$tmp/err" && fail "a buffer given twice was accepted"
grep -q "buffer \`A\` is given twice" "$tmp/err" || { cat "$tmp/err"; fail "no message for a buffer given twice"; }
echo "1 passed, 0 failed"
