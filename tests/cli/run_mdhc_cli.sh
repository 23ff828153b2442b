#!/usr/bin/env bash
# mdhc's command line on bad requests: `mdhc run` reports ⊥ output cells
# like mdhi (E0903 with the file position, exit 1, no output file written)
# unless --allow-undefined; `mdhc compile --name` rejects names that are not
# C identifiers or that the generated code's libraries use; data requests
# that cannot be met (a directory as input, a buffer given twice, a name
# that is not one of the entry's inputs or outputs) say so;
# --config takes a JSON file or JSON text alike, and names a missing file;
# a malformed command line exits 2, in mdhc and mdh-difftest alike;
# `-I DIR` may come before the file in all three tools; mdh-difftest takes
# run-time sizes with --set like `mdhc run` and `mdhi run`; `mdhc run -q`
# prints no results, like `mdhi run -q`; generated entries (OpenMP, OpenCL)
# given a run-time size below 1 say so, compute nothing and return a failure;
# negative counts, seeds and budgets are refused with the option's name; a
# directory given as the program says so; mdhi refuses an output given twice.
set -u
mdhc=$1 difftest=$2 mdhi=$3 dir=$(dirname "$0")
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
# Buffer names that are not the entry's inputs or outputs: the right ones are listed.
$mdhc run "$dir/gaps.mdh" --entry gaps --set N=5 --allow-undefined --in O=x.npy 2> "$tmp/err" && fail "an output was accepted as input"
grep -q "\`O\` is not an input buffer of \`gaps\` (inputs: \`A\`); it is an output: use \`--out\`" "$tmp/err" || { cat "$tmp/err"; fail "no hint for an output given to --in"; }
$mdhc run "$dir/gaps.mdh" --entry gaps --set N=5 --allow-undefined --out Z=z.npy 2> "$tmp/err" && fail "an unknown output was accepted"
grep -q "\`Z\` is not an output buffer of \`gaps\` (outputs: \`O\`)$" "$tmp/err" || { cat "$tmp/err"; fail "no list of outputs"; }
# --config: JSON text and the same JSON in a file give the same configuration.
cfg='{"threads": 3, "levels": [{"layer": "COR", "order": [0], "tile": [2]}, {"layer": "RM", "order": [0], "tile": [1]}]}'
echo "$cfg" > "$tmp/cfg.json"
$mdhc "$dir/gaps.mdh" --entry gaps --set N=5 --emit=ll --config "$cfg" > "$tmp/ll_text" 2> "$tmp/err" || { cat "$tmp/err"; fail "--config JSON text"; }
$mdhc "$dir/gaps.mdh" --entry gaps --set N=5 --emit=ll --config "$tmp/cfg.json" > "$tmp/ll_file" 2> "$tmp/err" || { cat "$tmp/err"; fail "--config FILE"; }
grep -q "tile=(2)" "$tmp/ll_text" || { cat "$tmp/ll_text"; fail "--config JSON text was not used"; }
cmp -s "$tmp/ll_text" "$tmp/ll_file" || fail "--config text and file differ"
$mdhc "$dir/gaps.mdh" --entry gaps --set N=5 --emit=ll --config "$tmp/missing.json" 2> "$tmp/err" && fail "a missing --config file was accepted"
grep -q "cannot read configuration \`.*missing.json\` (give a JSON file, or JSON text" "$tmp/err" || { cat "$tmp/err"; fail "no message for a missing --config file"; }
for tool in "$mdhc" "$difftest"; do
  "$tool" --no-such-option > /dev/null 2> "$tmp/err"; rc=$?
  [ "$rc" = 2 ] || { cat "$tmp/err"; fail "$tool --no-such-option exited $rc, not 2"; }
  grep -q "no-such-option" "$tmp/err" || { cat "$tmp/err"; fail "$tool did not name the bad option"; }
done
# E0903's help names what each tool writes (mdhc: zeros, no mask file).
$mdhc run "$dir/gaps.mdh" --entry gaps --set N=5 2> "$tmp/err"
grep -q "they hold zeros; \`mdhi run --out\` also writes the mask" "$tmp/err" || { cat "$tmp/err"; fail "E0903 help"; }
# -I DIR before the file (it takes one directory per -I, not the file too).
for run in "$mdhc run" "$mdhi run"; do
  $run -I "$dir/lib" "$dir/uses_lib.mdh" --entry copy_dyn --set N=3 --seed 2 > "$tmp/out" 2> "$tmp/err" ||
    { cat "$tmp/err"; fail "$run -I DIR FILE"; }
  grep -q "^O: i32\[3\] = " "$tmp/out" || { cat "$tmp/out"; fail "$run -I DIR FILE printed no result"; }
done
$difftest -I "$dir/lib" "$dir/uses_lib.mdh" --entry copy_dyn --set N=300 --configs 1 -v > "$tmp/out" 2>&1 ||
  { cat "$tmp/out"; fail "mdh-difftest -I DIR FILE --set N=300 (a run-time size)"; }
grep -q "ok .*copy_dyn N=300 " "$tmp/out" || { cat "$tmp/out"; fail "mdh-difftest did not run copy_dyn"; }
$difftest -I "$dir/lib" "$dir/uses_lib.mdh" --entry copy_dyn --set M=3 --configs 1 > "$tmp/out" 2>&1 && fail "an unknown run-time size was accepted"
grep -q "\`M\` is neither a meta-parameter nor a run-time size of \`copy_dyn\`" "$tmp/out" || { cat "$tmp/out"; fail "no message for an unknown size"; }
# -q: errors only, in both runners.
for run in "$mdhc run" "$mdhi run"; do
  $run -q -I "$dir/lib" "$dir/uses_lib.mdh" --entry copy_dyn --set N=3 > "$tmp/out" 2>&1 || fail "$run -q"
  [ ! -s "$tmp/out" ] || { cat "$tmp/out"; fail "$run -q printed something"; }
done
# A run-time size below 1 passed to generated code: a message, a failure status, the output unchanged.
cat > "$tmp/user.cpp" <<'CPP'
#include "dot_i64_dyn.h"
#include <cstdio>
int main() {
  int64_t a[3] = {1, 2, 3}, b[3] = {4, 5, 6}, c = -7;
  int64_t zero[1] = {0}, three[1] = {3};
  void *bufs[3] = {a, b, &c};
  const int rcZero = dot_i64_dyn_run(zero, bufs);
  const int64_t afterZero = c;
  const int rcThree = dot_i64_dyn_run(three, bufs);
  std::printf("zero %d %lld three %d %lld\n", rcZero != 0, (long long)afterZero, rcThree, (long long)c);
}
CPP
examples=$dir/../../examples
for backend in openmp opencl; do
  $mdhc compile "$examples/dot.mdh" --entry dot_i64_dyn --backend $backend -q -o "$tmp/$backend" 2> "$tmp/err" || { cat "$tmp/err"; fail "compile dot_i64_dyn ($backend)"; }
  libs=-fopenmp; [ $backend = opencl ] && libs=-lOpenCL
  c++ -std=c++17 -O1 -w -I"$tmp/$backend" "$tmp/user.cpp" "$tmp/$backend/dot_i64_dyn.cpp" $libs -o "$tmp/user_$backend" 2> "$tmp/err" ||
    { cat "$tmp/err"; fail "user program against dot_i64_dyn ($backend)"; }
  "$tmp/user_$backend" > "$tmp/out" 2> "$tmp/err" || { cat "$tmp/err"; fail "user program ($backend) crashed"; }
  grep -q "^zero 1 -7 three 0 32$" "$tmp/out" || { cat "$tmp/out" "$tmp/err"; fail "size 0 not refused or output changed ($backend)"; }
  grep -q "dot_i64_dyn: run-time size K = 0 is below 1" "$tmp/err" || { cat "$tmp/err"; fail "no message for size 0 ($backend)"; }
done
# Negative numbers where only counts make sense: exit 2 and the option named.
for cmd in "$mdhi run $dir/gaps.mdh --entry gaps --set N=5 --seed -1" \
           "$mdhi run $dir/gaps.mdh --entry gaps --set N=5 --print-limit -3" \
           "$mdhc run $dir/gaps.mdh --entry gaps --set N=5 --seed -1" \
           "$mdhc tune $dir/gaps.mdh --entry gaps --set N=5 --seconds -1" \
           "$mdhc tune $dir/gaps.mdh --entry gaps --set N=5 --evaluations -4" \
           "$difftest --generate 1 --configs -2"; do
  $cmd > "$tmp/out" 2>&1; rc=$?
  [ $rc = 2 ] || { cat "$tmp/out"; fail "'$cmd' exited $rc, not 2"; }
  grep -q "^--[a-z-]*: must be at least [01], not -[0-9]" "$tmp/out" || { cat "$tmp/out"; fail "no range message for '$cmd'"; }
done
$mdhc check "$dir" 2> "$tmp/err" && fail "a directory was checked as a program"
grep -q "cannot read \`$dir\`: it is a directory" "$tmp/err" || { cat "$tmp/err"; fail "no directory message"; }
$mdhi run "$dir/gaps.mdh" --entry gaps --set N=5 --allow-undefined --out O="$tmp/a.npy" --out O="$tmp/b.npy" 2> "$tmp/err" &&
  fail "mdhi accepted an output given twice"
grep -q "output buffer \`O\` is given twice" "$tmp/err" || { cat "$tmp/err"; fail "no message for an output given twice"; }
[ ! -e "$tmp/a.npy" ] && [ ! -e "$tmp/b.npy" ] || fail "an output was written despite the error"
echo "1 passed, 0 failed"
