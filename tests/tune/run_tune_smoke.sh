#!/usr/bin/env bash
# The tuner finds a valid configuration that is at least as fast as the
# default (as it measured), and mdhc accepts it: the kernel built from it
# gives the interpreter's results.
mdhi=$4
source "$(dirname "$0")/common.sh"
$mdhc tune $PROG --set T=i32,I=37,J=64,K=29 --evaluations 10 --seed 2 -o "$tmp/best.json" 2> "$tmp/log"
tail -2 "$tmp/log"
grep -q '"levels"' "$tmp/best.json"
$mdhc run $PROG --set T=i32,I=37,J=64,K=29 --config "$tmp/best.json" --out C="$tmp/c1.npy" 2>/dev/null
"$mdhi" run $PROG --set T=i32,I=37,J=64,K=29 --out C="$tmp/c2.npy" -q 2>/dev/null
cmp "$tmp/c1.npy" "$tmp/c2.npy"
echo "1 passed, 0 failed"
