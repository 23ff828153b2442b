#!/usr/bin/env bash
# Tuning an entry with run-time sizes (`*`): the tuner measures the values
# given with --set, the configuration found compiles and runs the entry at
# other sizes too, `compile --tune` takes the values and still emits the
# entry with run-time sizes, and a missing or unusable value is an error
# whose advice can be followed.
mdhi=$4
source "$(dirname "$0")/common.sh"
DOT="$root/examples/dot.mdh --entry dot_i64_dyn"
# No value: the message names the size and says how to give it.
$mdhc tune $DOT --evaluations 2 > "$tmp/out" 2> "$tmp/err" && fail "tuning without a value of K succeeded"
grep -q "error\[E0905\]: tuning \`dot_i64_dyn\` needs a value of its run-time size \`K\`" "$tmp/err" || { cat "$tmp/err"; fail "no message for a missing K"; }
grep -q "give it with \`--set K=<extent>\`" "$tmp/err" || { cat "$tmp/err"; fail "no advice for a missing K"; }
# Following the advice tunes at K = 1000.
$mdhc tune $DOT --set K=1000 --evaluations 3 --seed 2 -o "$tmp/best.json" 2> "$tmp/log" || { cat "$tmp/log"; fail "tuning at K=1000"; }
grep -q '"levels"' "$tmp/best.json" || fail "no configuration written"
# The configuration applies to the entry with run-time sizes, at any size.
for k in 1000 777; do
  $mdhc run $DOT --set K=$k --config "$tmp/best.json" --out C="$tmp/c1.npy" -q 2> "$tmp/err" || { cat "$tmp/err"; fail "run at K=$k"; }
  "$mdhi" run $DOT --set K=$k --out C="$tmp/c2.npy" -q 2> /dev/null || fail "mdhi at K=$k"
  cmp "$tmp/c1.npy" "$tmp/c2.npy" || fail "the tuned configuration gives another result at K=$k"
done
# compile --tune: the value is what the tuner measures; the entry still takes K.
$mdhc compile $DOT --set K=1000 --tune --tune-evaluations 2 -q -o "$tmp/out-dir" > /dev/null 2> "$tmp/err" || { cat "$tmp/err"; fail "compile --tune"; }
grep -q "int64_t sz_K" "$tmp/out-dir/dot_i64_dyn.h" || fail "compile --tune did not keep the run-time size"
[ -s "$tmp/out-dir/dot_i64_dyn.tuned.json" ] || fail "compile --tune wrote no tuned configuration"
# Without --tune a value of a run-time size stays an error of compile (it would be ignored).
$mdhc compile $DOT --set K=1000 -q -o "$tmp/plain" > /dev/null 2> "$tmp/err" && fail "compile took K=1000 without --tune"
grep -q "E0605" "$tmp/err" || { cat "$tmp/err"; fail "no E0605 for compile --set K=1000"; }
# Values read as strictly as by mdhc run, and sizes that put an access outside its buffer refused.
$mdhc tune $DOT --set K=0 --evaluations 1 > /dev/null 2> "$tmp/err" && fail "tuned at K=0"
grep -q "E0603" "$tmp/err" || { cat "$tmp/err"; fail "no E0603 for K=0"; }
$mdhc tune "$root/tests/cli/shifted_dyn.mdh" --entry shift_in_dyn --set N=5 --evaluations 1 > /dev/null 2> "$tmp/err" &&
  fail "tuned at N=5, where an access leaves its buffer"
grep -q "error\[E0906\]: an access of input buffer \`x\` reaches index -2" "$tmp/err" || { cat "$tmp/err"; fail "no E0906 for N=5"; }
echo "1 passed, 0 failed"
