#!/usr/bin/env bash
# Crash safety of the tuning database: SIGKILL mid-run keeps every finished
# measurement and a parseable database; a torn last line is ignored; a
# resumed run does not re-measure anything; SIGINT exits 130 after saving, and
# promptly while candidates compile (no compiler started after it); compilers
# do not outlive a killed tuner.
source "$(dirname "$0")/common.sh"
wait_for() { # wait until the database holds at least $1 measurements (max 60 s)
  for _ in $(seq 600); do [ "$(measurements)" -ge "$1" ] && return 0; sleep 0.1; done
  fail "the tuning run recorded fewer than $1 measurements"
}
# 1. SIGKILL.
$mdhc tune $PROG $SMALL --evaluations 200 --batch 2 --seed 3 -q -o "$tmp/best.json" 2>/dev/null &
pid=$!
wait_for 3
kill -KILL $pid; wait $pid 2>/dev/null || true
db_parses || fail "the database does not parse after SIGKILL"
n=$(measurements)
echo "after SIGKILL: $n measurements"
# A crash mid-append leaves a torn line: the reader must ignore it.
printf '{"kind":"measurement","hash":"torn' >> "$MDH_TUNE_DB"/*.jsonl
$mdhc tune $PROG $SMALL --show > "$tmp/show" || fail "--show failed on a torn database"
grep -q "measurements: $n " "$tmp/show" || { cat "$tmp/show"; fail "--show does not list the $n measurements"; }
# 2. Resume: 3 new evaluations, nothing measured twice.
$mdhc tune $PROG $SMALL --evaluations 3 --batch 2 --seed 3 -o "$tmp/best.json" 2> "$tmp/log" || { cat "$tmp/log"; fail "resume failed"; }
grep -q "resuming from $n measurements" "$tmp/log" || { cat "$tmp/log"; fail "did not resume"; }
db_parses || fail "the database does not parse after resuming"
m=$(measurements)
[ "$m" -eq $((n + 3)) ] || fail "expected $((n + 3)) measurements after resuming, found $m"
dups=$(grep '"kind":"measurement"' "$MDH_TUNE_DB"/*.jsonl | grep -o '"hash":"[0-9a-f]*"' | sort | uniq -d | wc -l)
[ "$dups" -eq 0 ] || fail "$dups configurations were measured twice"
# 3. SIGINT: exit status 130, measurements kept, an `interrupted` session.
$mdhc tune $PROG $SMALL --evaluations 200 --batch 2 --seed 4 -q -o "$tmp/best2.json" 2>"$tmp/log2" &
pid=$!
wait_for $((m + 2))
kill -INT $pid
rc=0; wait $pid || rc=$?
[ "$rc" -eq 130 ] || { cat "$tmp/log2"; fail "SIGINT: exit status $rc, expected 130"; }
db_parses || fail "the database does not parse after SIGINT"
grep -q '"stop":"interrupted"' "$MDH_TUNE_DB"/*.jsonl || fail "no interrupted session recorded"
[ -s "$tmp/best2.json" ] || fail "SIGINT: the best configuration so far was not written"
# 4. SIGINT while a batch compiles (an empty compile cache, PRL's slow-to-compile candidates):
# the tuner starts no compiler after it and exits within seconds (it recompiled the interrupted
# batch candidate by candidate: 25 s).
MDH_CACHE_DIR="$tmp/fresh-cache" MDH_TUNE_DB="$tmp/db-int" $mdhc tune "$root/examples/prl.mdh" --entry prl --set I=41,J=1005 \
  --evaluations 40 --batch 8 -q -o "$tmp/best3.json" 2>"$tmp/log3" &
pid=$!
for _ in $(seq 600); do [ "$(cat "$tmp"/db-int/*.jsonl 2>/dev/null | grep -c '"kind":"measurement"' || true)" -ge 1 ] && break; sleep 0.1; done
sleep 1
t0=$(date +%s)
kill -INT $pid
rc=0; wait $pid || rc=$?
took=$(( $(date +%s) - t0 ))
[ "$rc" -eq 130 ] || { cat "$tmp/log3"; fail "SIGINT while compiling: exit status $rc, expected 130"; }
[ "$took" -le 8 ] || fail "SIGINT while compiling: the tuner took $took s to stop"
# 5. SIGKILL while a batch compiles: the compilers do not outlive the tuner (they kept both
# cores busy until their compile timeout).
MDH_CACHE_DIR="$tmp/fresh-cache2" MDH_TUNE_DB="$tmp/db-kill" $mdhc tune "$root/examples/prl.mdh" --entry prl --set I=43,J=1007 \
  --evaluations 40 --batch 8 -q -o "$tmp/best4.json" 2>/dev/null &
pid=$!
for _ in $(seq 600); do [ "$(cat "$tmp"/db-kill/*.jsonl 2>/dev/null | grep -c '"kind":"measurement"' || true)" -ge 1 ] && break; sleep 0.1; done
sleep 1
kill -KILL $pid; wait $pid 2>/dev/null || true
for _ in $(seq 50); do pgrep -f "$tmp/fresh-cache2" > /dev/null || break; sleep 0.1; done
! pgrep -fa "$tmp/fresh-cache2" || fail "compilers kept running after the tuner was killed"
echo "1 passed, 0 failed"
