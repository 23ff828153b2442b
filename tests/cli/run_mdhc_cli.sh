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
# directory given as the program says so; mdhi refuses an output given twice;
# --Werror reports warnings as errors (instantiation's too), top-level
# --Werror/-q count; -o ""
# is a usage error; run-time sizes and --config are read strictly; endless
# inputs (/dev/zero) end with an error; bool data other than 0/1 is
# refused; outputs spare the program, go through links, and `fmt -i` keeps
# permissions, links and hard links; mdh-difftest reports an unusable
# --keep or --config as a usage error; `mdhc compile -q` prints nothing
# but writes its files; /dev/stdout is appended to (`>> log`); a missing
# output directory is an error before the run.
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
  $mdhc compile "$dir/gaps.mdh" --entry gaps --set N=5 --name "$bad" -o "$tmp/k" 2> "$tmp/err"; rc=$?
  [ "$rc" = 2 ] || fail "--name '$bad': exit $rc, not the usage error's 2"
  grep -q "error: --name" "$tmp/err" || { cat "$tmp/err"; fail "no --name error for '$bad'"; }
done
# An output path that cannot be written is a usage error (exit 2) in every tool: -o naming
# a file, --depfile naming the source, --out into a missing directory (mdhc and mdhi run).
touch "$tmp/a_file"
$mdhc compile "$dir/gaps.mdh" --entry gaps --set N=5 -o "$tmp/a_file" 2> "$tmp/err"; rc=$?
[ "$rc" = 2 ] || { cat "$tmp/err"; fail "-o naming a file: exit $rc"; }
$mdhc compile "$dir/gaps.mdh" --entry gaps --set N=5 -o "$tmp/k" --depfile "$dir/gaps.mdh" 2> "$tmp/err"; rc=$?
[ "$rc" = 2 ] && grep -q "source file of the program" "$tmp/err" || { cat "$tmp/err"; fail "--depfile on the source: exit $rc"; }
for tool in "$mdhc" "$mdhi"; do
  $tool run "$dir/gaps.mdh" --entry gaps --set N=5 --allow-undefined --out O="$tmp/missing/o.npy" 2> "$tmp/err"; rc=$?
  [ "$rc" = 2 ] && grep -q "does not exist; create it first" "$tmp/err" || { cat "$tmp/err"; fail "$tool run --out into a missing directory: exit $rc"; }
done
# --config given a JSON array says a configuration is an object.
$mdhc compile "$dir/gaps.mdh" --entry gaps --set N=5 -o "$tmp/k" --config '[]' 2> "$tmp/err"; rc=$?
[ "$rc" = 2 ] && grep -q "a configuration is a JSON object" "$tmp/err" || { cat "$tmp/err"; fail "--config '[]': exit $rc"; }
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
# Run-time sizes that put an access outside its buffer (i + 3 - N < 0 once N > 3), or make a buffer
# larger than 2^63 - 1 bytes: generated entries say so, compute nothing and return a failure, for
# input and output accesses alike; N = 3 runs.
cat > "$tmp/shifted.cpp" <<'CPP'
#include ENTRY_HEADER
#include <cstdint>
#include <cstdio>
int main() {
  int32_t x[5] = {10, 11, 12, 13, 14}, y[5] = {-7, -7, -7, -7, -7};
  void *bufs[2] = {x, y};
  int64_t bad[1] = {5}, huge[1] = {INT64_MAX}, good[1] = {3};
  const int rcBad = ENTRY_RUN(bad, bufs);
  const int rcHuge = ENTRY_RUN(huge, bufs);
  int untouched = 1;
  for (int i = 0; i < 5; ++i) untouched &= y[i] == -7;
  const int rcGood = ENTRY_RUN(good, bufs);
  std::printf("bad %d huge %d untouched %d good %d y %d %d %d %d\n", rcBad != 0, rcHuge != 0, untouched, rcGood, y[0], y[1], y[2], y[3]);
}
CPP
for entry in shift_in_dyn shift_out_dyn; do
  role=input; [ $entry = shift_out_dyn ] && role=output
  for backend in openmp opencl; do
    out=$tmp/$entry-$backend
    $mdhc compile "$dir/shifted_dyn.mdh" --entry $entry --backend $backend -q -o "$out" > /dev/null 2> "$tmp/err" ||
      { cat "$tmp/err"; fail "compile $entry ($backend)"; }
    libs=-fopenmp; [ $backend = opencl ] && libs=-lOpenCL
    c++ -std=c++17 -O1 -w -I"$out" -DENTRY_HEADER="\"$entry.h\"" -DENTRY_RUN=${entry}_run "$tmp/shifted.cpp" "$out/$entry.cpp" $libs \
      -o "$out/user" 2> "$tmp/err" || { cat "$tmp/err"; fail "user program against $entry ($backend)"; }
    "$out/user" > "$tmp/out" 2> "$tmp/err" || { cat "$tmp/err"; fail "user program against $entry ($backend) crashed"; }
    grep -q "^bad 1 huge 1 untouched 1 good 0 y 10 11 12 -7$" "$tmp/out" ||
      { cat "$tmp/out" "$tmp/err"; fail "$entry ($backend): bad sizes not refused, or the output changed"; }
    grep -q "$entry: with run-time size N = 5, an access of $role buffer \`[xy]\` reaches index -2 in dimension 1, outside \[0, 3)" "$tmp/err" ||
      { cat "$tmp/err"; fail "$entry ($backend): no message for N = 5"; }
    grep -q "$entry: with run-time size N = 9223372036854775807, .* takes more than 2^63 - 1 bytes" "$tmp/err" ||
      { cat "$tmp/err"; fail "$entry ($backend): no message for N = 2^63 - 1"; }
  done
  # mdhc run (both backends) and mdhi run: the interpreter's E0906 before anything runs.
  for cmd in "$mdhc run" "$mdhc run --backend opencl" "$mdhi run"; do
    $cmd "$dir/shifted_dyn.mdh" --entry $entry --set N=5 > "$tmp/out" 2> "$tmp/err"; rc=$?
    [ $rc = 1 ] || { cat "$tmp/out" "$tmp/err"; fail "'$cmd' $entry N=5 exited $rc, not 1"; }
    grep -q "error\[E0906\]: an access of $role buffer \`[xy]\` reaches index -2 in dimension 1, outside \[0, 3) with N = 5" "$tmp/err" ||
      { cat "$tmp/err"; fail "'$cmd' $entry N=5: no E0906"; }
  done
  # mdh-difftest tests nothing there: an error, never '1 passed'.
  $difftest "$dir/shifted_dyn.mdh" --entry $entry --set N=5 --configs 1 > "$tmp/out" 2> "$tmp/err"; rc=$?
  [ $rc != 0 ] || { cat "$tmp/out" "$tmp/err"; fail "mdh-difftest $entry N=5 exited 0"; }
  grep -q "^0 passed, 0 failed$" "$tmp/out" || { cat "$tmp/out"; fail "mdh-difftest $entry N=5 counted a pass"; }
  grep -q "nothing tested: the interpreter rejects this run: error\[E0906\]" "$tmp/err" || { cat "$tmp/err"; fail "mdh-difftest $entry N=5: no reason"; }
done
# Negative numbers where only counts make sense: exit 2 and the option named.
for cmd in "$mdhi run $dir/gaps.mdh --entry gaps --set N=5 --seed -1" \
           "$mdhi run $dir/gaps.mdh --entry gaps --set N=5 --print-limit -3" \
           "$mdhc run $dir/gaps.mdh --entry gaps --set N=5 --seed -1" \
           "$mdhc tune $dir/gaps.mdh --entry gaps --set N=5 --seconds -1" \
           "$mdhc tune $dir/gaps.mdh --entry gaps --set N=5 --evaluations -4" \
           "$mdhc tune $dir/gaps.mdh --entry gaps --set N=5 --timeout -1" \
           "$mdhc tune $dir/gaps.mdh --entry gaps --set N=5 --compile-timeout -5" \
           "$mdhc tune $dir/gaps.mdh --entry gaps --set N=5 --jobs -1" \
           "$mdhc tune $dir/gaps.mdh --entry gaps --set N=5 --threads -3" \
           "$mdhc run $dir/gaps.mdh --entry gaps --set N=5 --threads -2" \
           "$difftest --generate 1 --configs -2"; do
  $cmd > "$tmp/out" 2>&1; rc=$?
  [ $rc = 2 ] || { cat "$tmp/out"; fail "'$cmd' exited $rc, not 2"; }
  grep -q "^--[a-z-]*: must be at least [01], not -[0-9]" "$tmp/out" || { cat "$tmp/out"; fail "no range message for '$cmd'"; }
done
$difftest --generate 0 > "$tmp/out" 2>&1; rc=$?
[ $rc = 2 ] && grep -q "^--generate: must be at least 1, not 0" "$tmp/out" || { cat "$tmp/out"; fail "--generate 0 exited $rc"; }
$mdhc check "$dir" 2> "$tmp/err" && fail "a directory was checked as a program"
grep -q "cannot read \`$dir\`: it is a directory" "$tmp/err" || { cat "$tmp/err"; fail "no directory message"; }
$mdhi run "$dir/gaps.mdh" --entry gaps --set N=5 --allow-undefined --out O="$tmp/a.npy" --out O="$tmp/b.npy" 2> "$tmp/err" &&
  fail "mdhi accepted an output given twice"
grep -q "output buffer \`O\` is given twice" "$tmp/err" || { cat "$tmp/err"; fail "no message for an output given twice"; }
[ ! -e "$tmp/a.npy" ] && [ ! -e "$tmp/b.npy" ] || fail "an output was written despite the error"
# --Werror reports warnings as errors (label, summary), with or without -q, before or after the subcommand.
printf '@inline fn f(a: f32) -> f32 = a;\n' > "$tmp/warn.mdh"
for cmd in "$mdhc check --Werror -q $tmp/warn.mdh" "$mdhc --Werror check $tmp/warn.mdh" "$mdhc --Werror -q check $tmp/warn.mdh"; do
  $cmd 2> "$tmp/err" && fail "'$cmd' exited 0"
  grep -q "warn.mdh:1:[0-9]*: error\[W0101\]" "$tmp/err" || { cat "$tmp/err"; fail "'$cmd' did not report W0101 as an error"; }
done
$mdhc --Werror check "$tmp/warn.mdh" 2> "$tmp/err"
grep -q "^1 error generated.$" "$tmp/err" || { cat "$tmp/err"; fail "--Werror summary"; }
$mdhc -q check "$tmp/warn.mdh" 2> "$tmp/err" || fail "mdhc -q check failed on a warning"
[ ! -s "$tmp/err" ] || { cat "$tmp/err"; fail "mdhc -q check printed a warning"; }
# A warning that only instantiation raises (W0402: a coefficient that depends on a size) fails under --Werror too.
printf 'fn id(a: f32) -> f32 = a;\nmdh m<N: size, M: size, K: size> = out_view<f32>( O: (i, k) -> (i * K + k) ) o md_hom<N, M>( id, (++, ++) ) o inp_view<f32>( A: (i, k) -> (i, k) );\n' > "$tmp/w0402.mdh"
$mdhc --Werror --emit=hl "$tmp/w0402.mdh" --entry m --set N=2,K=2,M=4 > "$tmp/out" 2> "$tmp/err" && fail "--Werror --emit=hl exited 0 after W0402"
grep -q "error\[W0402\]" "$tmp/err" && [ ! -s "$tmp/out" ] || { cat "$tmp/out" "$tmp/err"; fail "--Werror --emit=hl: W0402"; }
$mdhc compile --Werror "$tmp/w0402.mdh" --entry m --set N=2,K=2,M=4 -q -o "$tmp/w0402" 2> "$tmp/err" && fail "compile --Werror exited 0 after W0402"
[ ! -e "$tmp/w0402" ] || fail "compile --Werror wrote files after W0402"
$mdhc run --Werror "$tmp/w0402.mdh" --entry m --set N=2,K=2,M=4 -q 2> "$tmp/err" && fail "run --Werror exited 0 after W0402"
$mdhc --emit=hl "$tmp/w0402.mdh" --entry m --set N=2,K=2,M=4 > /dev/null 2> "$tmp/err" || { cat "$tmp/err"; fail "W0402 alone failed"; }
grep -q "warning\[W0402\]" "$tmp/err" || { cat "$tmp/err"; fail "no W0402 warning"; }
# -o "" is a usage error, not the file-system root.
(cd "$tmp" && $mdhc compile "$dir/gaps.mdh" --entry gaps --set N=5 -o "" > "$tmp/out" 2> "$tmp/err"); rc=$?
[ $rc = 2 ] || { cat "$tmp/out" "$tmp/err"; fail "compile -o '' exited $rc, not 2"; }
grep -q "must not be empty" "$tmp/err" && [ ! -s "$tmp/out" ] || { cat "$tmp/out" "$tmp/err"; fail "compile -o '' message"; }
$mdhc tune "$dir/gaps.mdh" --entry gaps --set N=5 -o "" > /dev/null 2>&1; rc=$?
[ $rc = 2 ] || fail "tune -o '' exited $rc, not 2"
# Run-time sizes are read strictly (E0603), as in mdhi.
examples=$dir/../../examples
for bad in 3abc 3.9 3e0 abc 0x3 99999999999999999999; do
  $mdhc run "$examples/matvec.mdh" --entry matvec_f32_dyn_rows --set "I=$bad" -q > "$tmp/out" 2>&1 && fail "I=$bad was accepted"
  grep -qF "error[E0603]: invalid value \`$bad\` for run-time size \`I\`" "$tmp/out" || { cat "$tmp/out"; fail "no E0603 for I=$bad"; }
done
$difftest -I "$dir/lib" "$dir/uses_lib.mdh" --entry copy_dyn --set N=3x --configs 1 > "$tmp/out" 2>&1; rc=$?
[ $rc = 2 ] || { cat "$tmp/out"; fail "mdh-difftest took N=3x or called it a failing program (exit $rc, want 2: nothing tested)"; }
grep -qF "invalid value \`3x\` for run-time size \`N\`" "$tmp/out" || { cat "$tmp/out"; fail "mdh-difftest: no E0603 for N=3x"; }
grep -q "0 passed, 0 failed" "$tmp/out" || { cat "$tmp/out"; fail "mdh-difftest counted N=3x as a program"; }
# A number option given a value that does not convert: the value, the option and what it takes; exit status 2.
for bad in 4611686018427387904 abc; do
  $mdhc tune "$dir/gaps.mdh" --entry gaps --set N=5 --threads $bad -o "$tmp/t.json" > /dev/null 2> "$tmp/err"; rc=$?
  [ $rc -eq 2 ] || { cat "$tmp/err"; fail "--threads $bad: exit status $rc, want 2"; }
  grep -qF "error: \`$bad\` is not a valid value for --threads: it takes a whole number" "$tmp/err" || { cat "$tmp/err"; fail "--threads $bad: message"; }
done
# --config is read strictly: numbers are integers that fit, fields are known at every depth; messages name the field.
check_config() { # JSON MESSAGE
  $mdhc "$dir/gaps.mdh" --entry gaps --set N=5 --emit=code --config "$1" > /dev/null 2> "$tmp/err" && fail "--config '$1' was accepted"
  grep -qF -- "$2" "$tmp/err" || { cat "$tmp/err"; fail "--config '$1': expected '$2'"; }
}
check_config '{"threads": 4294967297}' '`threads` must be an integer that fits in 32 bits, not 4294967297'
check_config '{"threads": 1e20}' '`threads` must be an integer that fits in 32 bits, not 1e+20'
check_config '{"threads": "4"}' '`threads` must be an integer that fits in 32 bits, not "4"'
check_config '{"levels": [{"layer": "COR", "tile": [4.5]}]}' '`levels[0].tile[0]` must be an integer that fits in 64 bits, not 4.5'
check_config '{"levels": [{"layer": "COR", "tile": [18446744073709551615]}]}' '`levels[0].tile[0]` must be an integer that fits in 64 bits, not 18446744073709551615'
check_config '{"levels": 5}' '`levels` must be an array, not 5'
check_config '{"levels": [{"layer": "COR", "extra": 1}]}' 'unknown field `extra` in `levels[0]` (fields: layer, order, tile)'
check_config '{"levels": [{"tile": [1]}]}' '`levels[0]` needs the field `layer`'
check_config '{"stages": [{"buffer": "A", "layer": "L1", "panel": 1.5}]}' '`stages[0].panel` must be an integer that fits in 64 bits, not 1.5'
check_config '{"simd_dim": true}' '`simd_dim` must be an integer that fits in 32 bits, not true'
check_config '{"levels":[{"layer":"COR","order":[0,1],"tile":[1,1]}]}' 'level `COR`: `tile` has 2 entries, the program has 1 dimension'
# Malformed JSON: the message names the line and column and what the parser expected.
check_config '{"threads": 1,}' "the JSON text is not valid JSON: line 1, column 15: syntax error while parsing object key - unexpected '}'; expected string literal"
grep -q "json.exception" "$tmp/err" && fail "nlohmann's own text in a --config message"
printf '{\n  "threads": 1\n  "model": "openmp"\n}\n' > "$tmp/missing_comma.json"
check_config "$tmp/missing_comma.json" "missing_comma.json\` is not valid JSON: line 3, column 9: syntax error while parsing object - unexpected string literal; expected '}'"
# Inline JSON text is not named as if it were a file; a bad --config is a usage error (2) in every command.
$mdhc "$dir/gaps.mdh" --entry gaps --set N=5 --emit=code --config '{"threads": "4"}' > /dev/null 2> "$tmp/err"; rc=$?
[ $rc = 2 ] && grep -qF 'error: --config the JSON text: `threads`' "$tmp/err" || { cat "$tmp/err"; fail "--config text exited $rc or was named as a file"; }
$mdhc compile "$dir/gaps.mdh" --entry gaps --set N=5 -q -o "$tmp/cfgbad" --config '{"threads": "4"}' 2> /dev/null; rc=$?
[ $rc = 2 ] || fail "compile with a malformed --config exited $rc, not 2"
# Endless inputs end with an error: sources at E0010's limit, configurations at theirs.
timeout 60 $mdhc check /dev/zero 2> "$tmp/err"; rc=$?
[ $rc = 1 ] && grep -q "error\[E0010\]" "$tmp/err" || { head -c 2000 "$tmp/err"; fail "mdhc check /dev/zero exited $rc without E0010"; }
mkdir "$tmp/imp"; ln -s /dev/zero "$tmp/imp/zero.mdh"; printf 'import zero;\n' > "$tmp/imp/m.mdh"
timeout 60 $mdhc check "$tmp/imp/m.mdh" 2> "$tmp/err"; rc=$?
[ $rc = 1 ] && grep -q "error\[E0101\].*" "$tmp/err" && grep -q "zero.mdh\` is not a regular file" "$tmp/err" ||
  { head -c 2000 "$tmp/err"; fail "an import of /dev/zero exited $rc without saying why"; }
timeout 60 $mdhc "$dir/gaps.mdh" --entry gaps --set N=5 --emit=ll --config /dev/zero 2> "$tmp/err"; rc=$?
[ $rc = 2 ] && grep -q "is larger than" "$tmp/err" || { head -c 2000 "$tmp/err"; fail "--config /dev/zero exited $rc"; }
# `fmt -` formats standard input (an editor's format command); --check exits 1 for a file that
# would be reformatted and 2 for one that cannot be formatted, so scripts tell them apart.
printf 'fn  f(a:f32)->f32=a;\n' | $mdhc fmt - > "$tmp/out" 2> "$tmp/err" || { cat "$tmp/err"; fail "fmt - failed"; }
[ "$(cat "$tmp/out")" = "fn f(a: f32) -> f32 = a;" ] || { cat "$tmp/out"; fail "fmt - printed something else"; }
printf 'fn  f(a:f32)->f32=a;\n' | $mdhc fmt --check - > "$tmp/out" 2>&1; rc=$?
[ $rc = 1 ] && grep -q "<stdin>: would be reformatted" "$tmp/out" || { cat "$tmp/out"; fail "fmt --check - exited $rc"; }
printf 'fn f(a: f32) -> f32 = a +;\n' | $mdhc fmt --check - > "$tmp/out" 2>&1; rc=$?
[ $rc = 2 ] && grep -q "<stdin>:1:26: error\[E0001\]" "$tmp/out" || { cat "$tmp/out"; fail "fmt --check of a syntax error exited $rc"; }
$mdhc fmt --check "$tmp/nothere.mdh" > /dev/null 2>&1; rc=$?
[ $rc = 2 ] || fail "fmt --check of a missing file exited $rc, not 2"
$mdhc fmt -i - < /dev/null > /dev/null 2> "$tmp/err"; rc=$?
[ $rc = 2 ] && grep -q "cannot be formatted in place" "$tmp/err" || { cat "$tmp/err"; fail "fmt -i - exited $rc"; }
# `fmt` names an unreadable file with the same codes as `check` (E0102 with its help; E0010).
$mdhc fmt "$tmp/nothere.mdh" 2> "$tmp/err"; rc=$?
[ $rc = 1 ] && grep -q "error\[E0102\]: cannot read \`$tmp/nothere.mdh\`: No such file" "$tmp/err" && grep -q "help: check the path" "$tmp/err" ||
  { cat "$tmp/err"; fail "fmt of a missing file exited $rc without E0102"; }
timeout 60 $mdhc fmt /dev/zero 2> "$tmp/err"; rc=$?
[ $rc = 1 ] && grep -q "error\[E0010\]" "$tmp/err" && grep -q "help: split it into modules" "$tmp/err" ||
  { head -c 2000 "$tmp/err"; fail "fmt /dev/zero exited $rc without E0010 and its help"; }
# Run-time sizes that give a buffer a negative extent: every tool says which access leaves
# the buffer (E0906), not that it is too large (E0905), and mdh-difftest does not abort.
printf 'import std;\nmdh ng<N: size, M: size> = out_view<i32>( O: (i) -> (i) ) o md_hom<N>( id, (++) ) o inp_view<i32>( A: (i) -> (i + 5 - M) );\nmdh ngd = ng<*, *>;\n' > "$tmp/neg.mdh"
for tool in "$mdhi run" "$mdhc run"; do
  $tool "$tmp/neg.mdh" --entry ngd --set N=1,M=7 -q 2> "$tmp/err"; rc=$?
  [ $rc = 1 ] && grep -q "error\[E0906\]: an access of input buffer \`A\` reaches index -2" "$tmp/err" && ! grep -q E0905 "$tmp/err" ||
    { cat "$tmp/err"; fail "$tool with a negative extent exited $rc without E0906"; }
done
$difftest "$tmp/neg.mdh" --entry ngd --set N=1,M=7 > /dev/null 2> "$tmp/err"; rc=$?
[ $rc = 2 ] && grep -q "nothing tested: the interpreter rejects this run: error\[E0906\]" "$tmp/err" ||
  { cat "$tmp/err"; fail "mdh-difftest with a negative extent exited $rc"; }
# The default configuration of a huge dimension is found at once (the cores' balanced split
# tried every tile from N/cores down to half of it: minutes at N = 2^40).
printf 'import std;\nmdh red<N: size> = out_view<i64>( O: (i) -> () ) o md_hom<N>( id, (pw(add)) ) o inp_view<i64>( A: (i) -> (i) );\n' > "$tmp/red.mdh"
timeout 10 $mdhc "$tmp/red.mdh" --entry red --set N=1099511627776 --threads 2 --emit=ll > "$tmp/ll" 2> "$tmp/err"; rc=$?
[ $rc = 0 ] && grep -q "<COR>" "$tmp/ll" || { cat "$tmp/err"; fail "--emit=ll of a 2^40 reduction exited $rc"; }
# Pins the model cannot use are a usage error (exit 2), as --config is in compile and run.
$mdhc tune "$dir/gaps.mdh" --entry gaps --set N=5 --pin '{"threads": -3}' --evaluations 1 --db "$tmp/db-pin" \
  -o "$tmp/pin.json" > /dev/null 2> "$tmp/err"; rc=$?
[ $rc = 2 ] && grep -q "threads = -3 is out of range" "$tmp/err" || { cat "$tmp/err"; fail "tune --pin threads -3 exited $rc, not 2"; }
# A typo in a 200000-letter name is suggested in linear time (the edit distance is banded), not
# quadratic (about 150 s before): the suggestion is found, and the check ends well inside 20 s.
long=$(head -c 200000 /dev/zero | tr '\0' x)
printf 'fn f(%s: f32) -> f32 = %sy;\n' "$long" "${long:1}" > "$tmp/long.mdh"
timeout 20 $mdhc check "$tmp/long.mdh" 2> "$tmp/err"; rc=$?
[ $rc = 1 ] && grep -q "error\[E0314\]" "$tmp/err" && grep -q "did you mean \`x" "$tmp/err" ||
  { head -c 600 "$tmp/err"; fail "a typo in a long name exited $rc without E0314 and its suggestion"; }
# A file just under E0010's limit that formatting would take over it is left alone, and
# says why (it was called "a formatter bug"); the file is unchanged.
yes 'fn f(a:f32)->f32=a;' | head -n 200000 > "$tmp/near.mdh"
cp "$tmp/near.mdh" "$tmp/near.orig"
timeout 60 $mdhc fmt -i "$tmp/near.mdh" 2> "$tmp/err"; rc=$?
[ $rc = 1 ] && grep -q "not formatted: the formatted text would have [0-9]* characters, over the limit of 4194304 (E0010)" "$tmp/err" &&
  ! grep -q "formatter bug" "$tmp/err" || { cat "$tmp/err"; fail "fmt of a file near the size limit exited $rc"; }
cmp -s "$tmp/near.mdh" "$tmp/near.orig" || fail "fmt -i changed a file it refused to format"
# Bool data other than 0 and 1 is refused by `mdhc run` too.
printf 'fn f(b: bool) -> bool = !b;\nmdh m = out_view<bool>( O: (i) -> (i) ) o md_hom<2>( f, (++) ) o inp_view<bool>( I: (i) -> (i) );\n' > "$tmp/bools.mdh"
$mdhi run "$tmp/bools.mdh" --entry m -q --seed 3 --out O="$tmp/b.npy" || fail "no bool file"
printf '\x02' | dd of="$tmp/b.npy" bs=1 seek=$(( $(stat -c %s "$tmp/b.npy") - 1 )) conv=notrunc 2> /dev/null
$mdhc run "$tmp/bools.mdh" --entry m --in I="$tmp/b.npy" 2> "$tmp/err" && fail "mdhc run took a bool byte 2"
grep -q "holds the byte 2 at element \[1\], which is not a bool" "$tmp/err" || { cat "$tmp/err"; fail "no message for a bool byte 2"; }
# Outputs never overwrite the program or each other (whatever the spelling), and go through links.
cp "$dir/gaps.mdh" "$tmp/victim.mdh"
$mdhc tune "$tmp/victim.mdh" --entry gaps --set N=5 --evaluations 1 --db "$tmp/db" -o "$tmp/./victim.mdh" > /dev/null 2> "$tmp/err"; rc=$?
[ $rc = 2 ] && grep -q "it is a source file of the program" "$tmp/err" || { cat "$tmp/err"; fail "tune -o over the program exited $rc"; }
[ ! -e "$tmp/db" ] || fail "tune tuned before refusing -o"
: > "$tmp/plainfile"
$mdhc tune "$dir/gaps.mdh" --entry gaps --set N=5 --evaluations 1 --db "$tmp/db" --report "$tmp/plainfile/r" -o "$tmp/t.json" > /dev/null 2> "$tmp/err"; rc=$?
[ $rc = 2 ] && grep -q "error: --report: cannot write .*plainfile/r/tuning.csv.*Not a directory" "$tmp/err" || { cat "$tmp/err"; fail "tune --report under a file exited $rc"; }
[ ! -e "$tmp/db" ] || fail "tune tuned before refusing --report"
cmp -s "$dir/gaps.mdh" "$tmp/victim.mdh" || fail "tune overwrote the program"
$mdhc run "$tmp/victim.mdh" --entry gaps --set N=5 --allow-undefined -q --out O="$tmp/victim.mdh" 2> "$tmp/err" && fail "run --out over the program"
grep -q "it is a source file of the program" "$tmp/err" || { cat "$tmp/err"; fail "no message for run --out over the program"; }
cmp -s "$dir/gaps.mdh" "$tmp/victim.mdh" || fail "run overwrote the program"
ln -s "$tmp/real.npy" "$tmp/link.npy"
$mdhc run "$dir/gaps.mdh" --entry gaps --set N=5 --allow-undefined -q --out O="$tmp/link.npy" 2> "$tmp/err" || { cat "$tmp/err"; fail "run --out through a link"; }
[ -L "$tmp/link.npy" ] && [ -s "$tmp/real.npy" ] || fail "run --out replaced the link"
# mdhc fmt -i: through links, keeping permissions and hard links; the OS's reason when it cannot write.
printf 'fn f(a: f32)->f32=a;\n' > "$tmp/secret.mdh"; chmod 600 "$tmp/secret.mdh"
$mdhc fmt -i "$tmp/secret.mdh" || fail "fmt -i"
[ "$(stat -c %a "$tmp/secret.mdh")" = 600 ] || fail "fmt -i changed the mode to $(stat -c %a "$tmp/secret.mdh")"
grep -q "fn f(a: f32) -> f32 = a;" "$tmp/secret.mdh" || fail "fmt -i did not format"
printf 'fn f(a: f32)->f32=a;\n' > "$tmp/target.mdh"; ln -s target.mdh "$tmp/sym.mdh"
$mdhc fmt -i "$tmp/sym.mdh" || fail "fmt -i through a link"
[ -L "$tmp/sym.mdh" ] && grep -q "f32 = a;" "$tmp/target.mdh" || fail "fmt -i replaced the link or left the target"
printf 'fn f(a: f32)->f32=a;\n' > "$tmp/hl.mdh"; ln "$tmp/hl.mdh" "$tmp/hl2.mdh"
$mdhc fmt -i "$tmp/hl.mdh" || fail "fmt -i of a hard-linked file"
cmp -s "$tmp/hl.mdh" "$tmp/hl2.mdh" && grep -q "f32 = a;" "$tmp/hl2.mdh" || fail "fmt -i broke a hard link"
if [ "$(id -u)" != 0 ]; then # root may write anywhere
  mkdir "$tmp/rodir"; printf 'fn f(a: f32)->f32=a;\n' > "$tmp/rodir/w.mdh"; chmod 555 "$tmp/rodir"
  $mdhc fmt -i "$tmp/rodir/w.mdh" 2> "$tmp/err" && fail "fmt -i wrote into a read-only directory"
  grep -q "cannot create files in the directory .*: Permission denied" "$tmp/err" || { cat "$tmp/err"; fail "fmt -i gave no reason"; }
  chmod 755 "$tmp/rodir"
fi
# mdh-difftest: an unusable --keep or --config is a usage error (2) before any testing, never a MISMATCH.
$difftest "$examples/dot.mdh" --entry dot --set T=f32,K=4 --configs 0 --keep /proc/nope > "$tmp/out" 2>&1; rc=$?
[ $rc = 2 ] && grep -q "error: --keep /proc/nope: cannot create the directory" "$tmp/out" || { cat "$tmp/out"; fail "--keep /proc/nope exited $rc"; }
grep -q MISMATCH "$tmp/out" && fail "--keep reported as a MISMATCH"
$difftest "$examples/dot.mdh" --entry dot --set T=f32,K=4 --configs 0 --config '{"threads": 2.5}' > "$tmp/out" 2>&1; rc=$?
[ $rc = 2 ] && grep -qF '`threads` must be an integer' "$tmp/out" || { cat "$tmp/out"; fail "a malformed --config exited $rc"; }
$difftest "$examples/dot.mdh" --entry dot --set T=f32,K=4 --configs 0 --config '{"levels": [{"layer": "L1", "tile": [1]}]}' > "$tmp/out" 2>&1; rc=$?
[ $rc = 2 ] && grep -q "is not usable here" "$tmp/out" || { cat "$tmp/out"; fail "an unusable --config exited $rc"; }
grep -q "of 0 configurations" "$tmp/out" && fail "'of 0 configurations'"
# compile -q: errors only (it printed the file list and the build lines).
$mdhc compile "$examples/dot.mdh" --entry dot --set T=f32,K=16 -q -o "$tmp/quiet" > "$tmp/out" 2>&1 || { cat "$tmp/out"; fail "compile -q"; }
[ ! -s "$tmp/out" ] || { cat "$tmp/out"; fail "compile -q printed something"; }
[ -s "$tmp/quiet/dot_f32_16.cpp" ] && [ -s "$tmp/quiet/dot_f32_16.h" ] || fail "compile -q wrote no files"
# /dev/stdout redirected to a file (`>>`) is appended to, never replaced; several outputs may go to it.
echo precious > "$tmp/log.txt"; inode=$(stat -c %i "$tmp/log.txt")
$mdhi run "$tmp/bools.mdh" --entry m -q --seed 3 --out O=/dev/stdout >> "$tmp/log.txt" 2> "$tmp/err" || { cat "$tmp/err"; fail "--out O=/dev/stdout"; }
[ "$(head -n 1 "$tmp/log.txt")" = precious ] && [ "$(stat -c %i "$tmp/log.txt")" = "$inode" ] || fail "/dev/stdout replaced the redirected file"
grep -q "NUMPY" "$tmp/log.txt" || fail "/dev/stdout: no .npy bytes appended"
$mdhc run "$tmp/bools.mdh" --entry m -q --out O=/dev/null --out O=/dev/null 2> "$tmp/err" && fail "mdhc run took an output twice"
# A missing output directory is an error before anything is computed or tuned.
$mdhc run "$tmp/bools.mdh" --entry m -q --out O="$tmp/nodir/x.npy" 2> "$tmp/err" && fail "run --out into a missing directory"
grep -q "the directory \`$tmp/nodir\` does not exist" "$tmp/err" || { cat "$tmp/err"; fail "no message for a missing directory"; }
$mdhi run "$tmp/bools.mdh" --entry m -q --out O="$tmp/nodir/x.npy" 2> "$tmp/err" && fail "mdhi run --out into a missing directory"
grep -q "does not exist" "$tmp/err" || { cat "$tmp/err"; fail "mdhi: no message for a missing directory"; }
$mdhc tune "$tmp/bools.mdh" --entry m --evaluations 1 --db "$tmp/db2" -o "$tmp/nodir/best.json" > /dev/null 2> "$tmp/err" && fail "tune -o into a missing directory"
grep -q "does not exist" "$tmp/err" && [ ! -e "$tmp/db2" ] || { cat "$tmp/err"; fail "tune did not refuse a missing directory first"; }
# fmt never turns a program that parses into one that does not (E0008 after added parentheses).
{ printf 'fn f(a: i32) -> i32 = '; for i in $(seq 150); do printf -- '- '; done; printf 'a;\n'; } > "$tmp/deep.mdh"
$mdhc check "$tmp/deep.mdh" 2> "$tmp/err" || { cat "$tmp/err"; fail "150 prefix minuses did not check"; }
$mdhc fmt "$tmp/deep.mdh" > "$tmp/deep2.mdh" 2> "$tmp/err" || { cat "$tmp/err"; fail "fmt of 150 prefix minuses"; }
$mdhc check "$tmp/deep2.mdh" 2> "$tmp/err" || { cat "$tmp/err"; fail "the formatted 150 prefix minuses do not check"; }
# A generic entry's size made a run-time size on the command line (`N=*`) takes its value from a
# second `N=<extent>` in mdhi, mdhc run and mdh-difftest, the same result as the static size;
# compile has no use for the value and says so; any other repetition is an error.
$mdhi run "$dir/gaps.mdh" --entry gaps --set N=5 --seed 4 --allow-undefined -q --out O="$tmp/g_static.npy" 2> "$tmp/err" || { cat "$tmp/err"; fail "static gaps"; }
$mdhi run "$dir/gaps.mdh" --entry gaps --set 'N=*,N=5' --seed 4 --allow-undefined -q --out O="$tmp/g_mdhi.npy" 2> "$tmp/err" || { cat "$tmp/err"; fail "mdhi --set N=*,N=5"; }
$mdhc run "$dir/gaps.mdh" --entry gaps --set 'N=*' --set N=5 --seed 4 --allow-undefined -q --out O="$tmp/g_mdhc.npy" 2> "$tmp/err" || { cat "$tmp/err"; fail "mdhc run --set N=* --set N=5"; }
cmp -s "$tmp/g_static.npy" "$tmp/g_mdhi.npy" && cmp -s "$tmp/g_static.npy" "$tmp/g_mdhc.npy" || fail "a run-time N=5 differs from the static one"
$mdhi run "$dir/gaps.mdh" --entry gaps --set 'N=*' --allow-undefined -q 2> "$tmp/err" && fail "mdhi ran with an unknown run-time size"
grep -q "E0905.*run-time size \`N\`" "$tmp/err" || { cat "$tmp/err"; fail "no E0905 for an unknown run-time size"; }
$mdhc compile "$dir/gaps.mdh" --entry gaps --set 'N=*,N=5' -o "$tmp" 2> "$tmp/err"; rc=$?
[ "$rc" = 2 ] && grep -q "only \`mdhc run\` takes the value of a run-time size" "$tmp/err" || { cat "$tmp/err"; fail "compile took N=*,N=5 (exit $rc)"; }
$mdhi run "$dir/gaps.mdh" --entry gaps --set 'N=4,N=5' -q 2> "$tmp/err"; rc=$?
[ "$rc" = 2 ] && grep -q "\`N\` is set twice (\`4\` and \`5\`); to run with a run-time size, give \`N=\*\` and" "$tmp/err" || { cat "$tmp/err"; fail "N=4,N=5 (exit $rc)"; }
$difftest "$dir/../difftest/regressions/canonical_multi_scans.mdh" --entry Scan2 --set 'N=*,M=*,N=7,M=1' --configs 1 > "$tmp/out" 2> "$tmp/err" || { cat "$tmp/out" "$tmp/err"; fail "difftest --set N=*,N=7"; }
# Run-time sizes are the entries' leading arguments in declaration order (they were alphabetical,
# and a caller passing them as declared overflowed the buffers), in every backend's entries.
for backend in openmp opencl cuda; do
  $mdhc compile "$dir/size_order.mdh" --entry cp --set 'Zed=*,Alpha=*,Mid=*' --backend $backend -o "$tmp/order_$backend" > /dev/null 2> "$tmp/err" || { cat "$tmp/err"; fail "compile size_order ($backend)"; }
  grep -q "^// Run-time sizes (arguments first): Zed, Alpha, Mid$" "$tmp/order_$backend/cp_dyn_dyn_dyn.h" || fail "$backend header: run-time sizes not in declaration order"
  [ "$(grep -c "cp_dyn_dyn_dyn[_a-z]*(.*int64_t sz_Zed, int64_t sz_Alpha, int64_t sz_Mid," "$tmp/order_$backend/cp_dyn_dyn_dyn.h")" -ge 2 ] || { grep -n "sz_" "$tmp/order_$backend/cp_dyn_dyn_dyn.h"; fail "$backend entries: run-time sizes not in declaration order"; }
done
$mdhc compile "$dir/size_order.mdh" --entry cp2 -o "$tmp/order2" > /dev/null 2> "$tmp/err" || { cat "$tmp/err"; fail "compile cp2"; }
grep -q "^// Run-time sizes (arguments first): Zed, Mid$" "$tmp/order2/cp_dyn_3_dyn.h" || fail "cp2: run-time sizes not in declaration order"
# An empty --name is refused, not taken for "no --name"; an MDH_OPENCL_DEVICE that is not
# PLATFORM:DEVICE, or names no device, is named in the error.
$mdhc compile "$dir/gaps.mdh" --entry gaps --set N=5 --name "" -o "$tmp" 2> "$tmp/err"; rc=$?
[ "$rc" = 2 ] && grep -q "error: --name is empty" "$tmp/err" || { cat "$tmp/err"; fail "--name '' (exit $rc)"; }
for bad in garbage 0:1x -1:0; do
  MDH_OPENCL_DEVICE=$bad $mdhc run "$dir/gaps.mdh" --entry gaps --set N=5 --allow-undefined -q --backend opencl 2> "$tmp/err" && fail "MDH_OPENCL_DEVICE=$bad was accepted"
  grep -q "MDH_OPENCL_DEVICE=$bad is not PLATFORM:DEVICE" "$tmp/err" || { cat "$tmp/err"; fail "no message for MDH_OPENCL_DEVICE=$bad"; }
done
MDH_OPENCL_DEVICE=7:0 $mdhc run "$dir/gaps.mdh" --entry gaps --set N=5 --allow-undefined -q --backend opencl 2> "$tmp/err" && fail "MDH_OPENCL_DEVICE=7:0 was accepted"
grep -q "MDH_OPENCL_DEVICE=7:0: there is no device 0 on platform 7" "$tmp/err" || { cat "$tmp/err"; fail "no message for MDH_OPENCL_DEVICE=7:0"; }
# --strict-fp holds without the printed flags: GCC in its default (contracting) mode fuses no
# a*b+c of a --strict-fp kernel (checked only where the non-strict build does fuse).
fma_count() { g++ -std=c++17 -O3 -march=native -fopenmp -S "$1" -o - | grep -c "vfmadd\|vfmsub\|vfnmadd"; }
$mdhc compile "$dir/../cmake/project/fma.mdh" --entry fm --set N=1000 --strict-fp -q -o "$tmp/sfp" || fail "compile --strict-fp"
$mdhc compile "$dir/../cmake/project/fma.mdh" --entry fm --set N=1000 -q -o "$tmp/nfp" || fail "compile fma"
if [ "$(fma_count "$tmp/nfp/fm_1000.cpp")" -gt 0 ]; then
  [ "$(fma_count "$tmp/sfp/fm_1000.cpp")" = 0 ] || fail "--strict-fp code built without -ffp-contract=off has FMAs"
fi
# A --config without "model" is for the backend asked for (it was taken as an openmp one).
for be in "opencl WG WI" "cuda BLK THR"; do
  read -r backend outer inner <<< "$be"
  partial="{\"levels\":[{\"layer\":\"$outer\",\"tile\":[4,8,5],\"order\":[0,1,2]},{\"layer\":\"$inner\",\"tile\":[1,4,5],\"order\":[0,1,2]}]}"
  $mdhc compile "$dir/../../examples/matmul.mdh" --entry matmul --set T=f32,I=9,J=8,K=5 --backend "$backend" --config "$partial" \
    -o "$tmp/partial-$backend" > /dev/null 2> "$tmp/err" || { cat "$tmp/err"; fail "a partial $backend configuration without model"; }
  grep -Eq "\"model\": *\"$backend\"" "$tmp/partial-$backend"/*.config.json || fail "the $backend configuration's model"
done
# Ctrl-C while the generated code compiles: "interrupted" and the shell's 130, not a compiler
# failure (exit 1 with an empty log); an existing output file is kept.
echo keep > "$tmp/kept.npy"
MDH_CXX="$dir/interrupted_cxx.sh" $mdhc run "$dir/gaps.mdh" --entry gaps --set N=5 --allow-undefined --out "O=$tmp/kept.npy" \
  > /dev/null 2> "$tmp/err"; rc=$?
[ $rc = 130 ] && grep -q "error: interrupted while compiling the generated code" "$tmp/err" ||
  { cat "$tmp/err"; fail "mdhc run interrupted while compiling exited $rc"; }
grep -q "compiling the generated code failed" "$tmp/err" && fail "an interrupted compile was reported as failed"
[ "$(cat "$tmp/kept.npy")" = keep ] || fail "an interrupted mdhc run changed its output file"
MDH_CXX="$dir/interrupted_cxx.sh" $difftest --generate 3 --configs 1 --seed 5 > "$tmp/out" 2> "$tmp/err"; rc=$?
[ $rc = 130 ] && grep -q "difftest: interrupted after 0 programs" "$tmp/err" ||
  { cat "$tmp/out" "$tmp/err"; fail "mdh-difftest interrupted while compiling exited $rc"; }
grep -q "MISMATCH\|FAIL" "$tmp/out" && fail "mdh-difftest reported an interrupted compile as a mismatch"
# A failed compile leaves no directory behind that -o created (it made `-o` and its missing parents).
$mdhc compile "$dir/gaps.mdh" --entry gaps --set N=5 -q --depfile "$tmp/no-such-dir/d.d" -o "$tmp/made/out" 2> "$tmp/err" &&
  fail "a depfile in a missing directory was accepted"
grep -q "does not exist" "$tmp/err" || { cat "$tmp/err"; fail "no message for the depfile's missing directory"; }
[ -e "$tmp/made" ] && fail "a failed compile left the directory -o created"
mkdir "$tmp/existing"
$mdhc compile "$dir/gaps.mdh" --entry gaps --set N=5 -q --depfile "$tmp/no-such-dir/d.d" -o "$tmp/existing" 2> /dev/null
[ -d "$tmp/existing" ] || fail "a failed compile removed a directory it did not create"
$mdhc compile "$dir/gaps.mdh" --entry gaps --set N=5 -q -o "$tmp/made/out/" || fail "compile -o DIR/"
[ -f "$tmp/made/out/gaps_5.cpp" ] || fail "compile -o with missing parents"
# Scratch storage no allocation can hold (the last level spans a run-time size with a tile
# of 2^40): status 2 and a message, where an allocation inside the parallel region aborted.
$mdhc run "$examples/matvec.mdh" --entry matvec_f32_dyn_rows --set I=5 -q \
  --config '{"levels":[{"layer":"COR","order":[0,1],"tile":[1099511627776,512]}],"model":"openmp","simd_dim":1}' > "$tmp/out" 2>&1; rc=$?
[ $rc = 1 ] || { cat "$tmp/out"; fail "scratch storage out of reach: exit $rc, want 1"; }
grep -q "out of memory for its scratch storage" "$tmp/out" || { cat "$tmp/out"; fail "no out-of-memory message"; }
grep -q "the openmp kernel failed (status 2)" "$tmp/out" || { cat "$tmp/out"; fail "no status 2"; }
echo "1 passed, 0 failed"
