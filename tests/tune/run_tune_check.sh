#!/usr/bin/env bash
# The output check catches a wrong candidate (test hook
# MDH_TUNE_TEST_CORRUPT_CANDIDATE=k corrupts the k-th candidate's output):
# exit status 3, a clear message, a reproducer next to the output — for float
# and integer outputs; and `mdhc compile --tune` reuses the database.
source "$(dirname "$0")/common.sh"
for set in "$FSMALL" "$SMALL"; do
  rc=0
  mkdir -p "$tmp/out" # -o into a missing directory is refused before tuning
  MDH_TUNE_TEST_CORRUPT_CANDIDATE=2 $mdhc tune $PROG $set --evaluations 6 --db "$tmp/db-c" -o "$tmp/out/best.json" 2>"$tmp/log" || rc=$?
  [ "$rc" -eq 3 ] || { cat "$tmp/log"; fail "corrupt candidate ($set): exit status $rc, expected 3"; }
  grep -q "compiler bug" "$tmp/log" || fail "no clear message"
  [ -s "$tmp/out/best.json.mismatch-config.json" ] || fail "no reproducer configuration"
  grep -q "mdhc run" "$tmp/out/best.json.mismatch.txt" || fail "no reproducer command"
  rm -rf "$tmp/out" "$tmp/db-c"
done
# compile --tune: the first call tunes, the second reuses the database.
$mdhc compile $PROG $SMALL --tune --tune-evaluations 4 -o "$tmp/k" 2>"$tmp/log1" >/dev/null || { cat "$tmp/log1"; fail "compile --tune"; }
n=$(measurements)
[ "$n" -ge 1 ] || fail "compile --tune recorded nothing"
$mdhc compile $PROG $SMALL --tune --tune-evaluations 4 -o "$tmp/k" 2>"$tmp/log2" >/dev/null || { cat "$tmp/log2"; fail "second compile --tune"; }
grep -q "budget spent" "$tmp/log2" || { cat "$tmp/log2"; fail "the second compile --tune did not reuse the database"; }
[ "$(measurements)" -eq "$n" ] || fail "the second compile --tune measured again"
ls "$tmp/k"/*.cpp >/dev/null && ls "$tmp/k"/*.tuned.json >/dev/null || fail "compile --tune wrote no code"
# An -o that is a file is refused before tuning, as a usage error (exit 2) like compile's.
touch "$tmp/a_file"; rc=0
$mdhc compile $PROG $SMALL --tune --tune-evaluations 4 -o "$tmp/a_file" 2>"$tmp/log3" >/dev/null || rc=$?
[ "$rc" -eq 2 ] || { cat "$tmp/log3"; fail "compile --tune -o a file: exit status $rc, expected 2"; }
# A long scan: the high-precision cells are bounded by a work budget (a cell
# of a 2^22 prefix sum folds up to 4M elements) instead of running for hours.
timeout 120 $mdhc tune "$root/examples/scan.mdh" --entry prefix_sum --set T=i32,N=4194304 --evaluations 1 \
  --db "$tmp/db-scan" -o "$tmp/scan.json" 2>"$tmp/log3" || { cat "$tmp/log3"; fail "tuning a long scan"; }
grep -q "high-precision check covers the [0-9]* cheapest of 256 sampled cells" "$tmp/log3" || { cat "$tmp/log3"; fail "no bounded-check note for a long scan"; }
echo "1 passed, 0 failed"
