#!/usr/bin/env bash
# Float max/min reductions against the interpreter, bit for bit, in what the difftest lets pass:
# the difftest accepts a result within the precise evaluation's error bound, and -0 and +0 are
# within every bound, so it cannot see a max that returns -0 where mdh_max gives +0. Here
# `mdhc run` (built at -O3, vector lanes starting at NaN, combined by mdh_vfmax/mdh_vfmin) and
# `mdhi run` print the same values for every entry of minmax_specials.mdh, under the default
# configuration and two with other register tiles and threads. NaN is compared as NaN (its sign
# is not specified).
# Usage: run.sh MDHC MDHI
set -u
mdhc=$1 mdhi=$2 dir=$(dirname "$0")
src="$dir/minmax_specials.mdh"
configs=('' '{"threads":2}' '{"threads":3,"levels":[{"layer":"COR","order":[0,1],"tile":[7,7]},{"layer":"RM","order":[1,0],"tile":[1,7]}]}')
fail=0 runs=0
for entry in rowmax32 rowmin32 colmax64 colmin64 rowscanmax32 colscanmin64; do
  for seed in 1 2; do
    want=$("$mdhi" run "$src" --entry "$entry" --seed "$seed" 2> /dev/null | sed 's/-nan/nan/g' | tr -s ' ')
    [ -n "$want" ] || { echo "FAIL: mdhi run $entry printed nothing"; fail=1; continue; }
    grep -qw -- "-0" <<< "$want" || grep -qw -- "0" <<< "$want" ||
      { echo "FAIL: $entry (seed $seed) has no zero result: the test lost its point"; fail=1; }
    for cfg in "${configs[@]}"; do
      args=()
      [ -n "$cfg" ] && args=(--config "$cfg")
      got=$("$mdhc" run "$src" --entry "$entry" --seed "$seed" "${args[@]}" 2> /dev/null | sed 's/-nan/nan/g' | tr -s ' ')
      runs=$((runs + 1))
      if [ "$got" != "$want" ]; then
        echo "FAIL: $entry (seed $seed, config '${cfg:-default}'): mdhc run differs from mdhi run"
        diff <(echo "$want") <(echo "$got") | head -6
        fail=1
      fi
    done
  done
done
[ $fail = 0 ] && echo "$runs runs agree with the interpreter"
exit $fail
