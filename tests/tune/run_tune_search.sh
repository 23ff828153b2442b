#!/usr/bin/env bash
# Search behaviour: each technique runs; the same seed gives the same
# candidate sequence; the evaluation, time and plateau budgets stop a run;
# --report writes a CSV and an SVG plot; --pin keeps pinned fields; the
# fastest candidates are re-timed side by side and that ranking decides; a resumed
# session's own measurement of the default competes with the database's.
source "$(dirname "$0")/common.sh"
for t in random annealing pattern auc; do
  $mdhc tune $PROG $SMALL --technique $t --evaluations 4 --db "$tmp/db-$t" -q -o "$tmp/$t.json" 2>"$tmp/log-$t" ||
    { cat "$tmp/log-$t"; fail "technique $t"; }
done
# Same seed => same sequence (fresh databases; within one batch the bandit's
# choices do not depend on measurements).
for run in a b; do
  $mdhc tune $PROG $SMALL --technique random --evaluations 6 --seed 7 --db "$tmp/db-r$run" --report "$tmp/r$run" -q -o "$tmp/x.json" 2>/dev/null
  $mdhc tune $PROG $SMALL --evaluations 6 --batch 8 --seed 7 --db "$tmp/db-a$run" --report "$tmp/a$run" -q -o "$tmp/x.json" 2>/dev/null
done
cut -d, -f7 "$tmp/ra/tuning.csv" > "$tmp/h1"; cut -d, -f7 "$tmp/rb/tuning.csv" > "$tmp/h2"
[ "$(wc -l < "$tmp/h1")" -eq 7 ] || fail "random: expected 6 evaluations in the CSV"
cmp -s "$tmp/h1" "$tmp/h2" || fail "random: the same seed gave different candidates"
cut -d, -f7 "$tmp/aa/tuning.csv" > "$tmp/h1"; cut -d, -f7 "$tmp/ab/tuning.csv" > "$tmp/h2"
cmp -s "$tmp/h1" "$tmp/h2" || fail "auc: the same seed gave different candidates"
grep -q "<svg" "$tmp/ra/convergence.svg" && grep -q "best so far" "$tmp/ra/convergence.svg" || fail "no SVG plot"
# Budgets.
$mdhc tune $PROG $SMALL --evaluations 5 --db "$tmp/db-e" -o "$tmp/x.json" 2>"$tmp/log" ; grep -q "stopped by evaluations: 5 new" "$tmp/log" || { cat "$tmp/log"; fail "evaluation budget"; }
$mdhc tune $PROG $SMALL --evaluations 1000 --plateau 3 --technique pattern --db "$tmp/db-p" -o "$tmp/x.json" 2>"$tmp/log" ; grep -q "stopped by plateau" "$tmp/log" || { cat "$tmp/log"; fail "plateau"; }
$mdhc tune $PROG $SMALL --evaluations 1000 --seconds 4 --db "$tmp/db-s" -o "$tmp/x.json" 2>"$tmp/log" ; grep -q "stopped by seconds" "$tmp/log" || { cat "$tmp/log"; fail "time budget"; }
# Pins: the pinned simd_dim and COR tile stay in every candidate.
echo '{"simd_dim": 1, "levels": [{"layer": "COR", "tile": [8, 32, 16]}, {"layer": "RM"}]}' > "$tmp/pin.json"
$mdhc tune $PROG $SMALL --pin "$tmp/pin.json" --evaluations 5 --db "$tmp/db-pin" --report "$tmp/rp" -q -o "$tmp/p.json" 2>/dev/null || fail "--pin"
n=$(tail -n +2 "$tmp/rp/tuning.csv" | grep -v '"default"' | grep -c 'COR"",""order"":\[[0-9,]*\],""tile"":\[8,32,16\]' || true)
all=$(tail -n +2 "$tmp/rp/tuning.csv" | grep -vc ',default,' || true)
[ "$n" -eq "$all" ] || fail "pinned COR tile changed ($n of $all candidates keep it)"
# Confirmation: the default and at most --confirm others, each timed in every
# round; the configuration written is the fastest of those rounds, unless its
# lead over the default is inside the rounds' spread.
$mdhc tune $PROG $SMALL --evaluations 6 --confirm 3 --db "$tmp/db-c" --report "$tmp/rc" -o "$tmp/c.json" 2>"$tmp/log" || { cat "$tmp/log"; fail "confirm"; }
# The report states the verdict printed on the terminal (after the re-timing), and what was written.
verdict=$(sed -n 's/^tune: \(best.*\)$/\1/p' "$tmp/log" | head -1)
[ "$(head -1 "$tmp/rc/result.txt")" = "$verdict" ] || { cat "$tmp/rc/result.txt"; fail "result.txt does not state the verdict '$verdict'"; }
grep -qF "$(echo "$verdict" | cut -c1-40)" "$tmp/rc/convergence.svg" || fail "the plot does not state the verdict"
python3 - "$tmp/rc/result.txt" "$tmp/c.json" <<'PY' || fail "result.txt does not hold the configuration written"
import json, sys
text = open(sys.argv[1]).read()
assert json.loads(text.split("chosen configuration:\n", 1)[1]) == json.load(open(sys.argv[2]))
PY
k=$(sed -n 's/.*re-timed side by side (\([0-9]*\) candidates).*/\1/p' "$tmp/log")
[ -n "$k" ] && [ "$k" -ge 2 ] && [ "$k" -le 4 ] || { cat "$tmp/log"; fail "no side-by-side re-timing of 2 to 4 candidates reported"; }
python3 - "$tmp/db-c" "$tmp/c.json" "$k" <<'PY' || fail "the confirmation does not decide the written configuration"
import json, sys, glob
lines = [json.loads(l) for f in glob.glob(sys.argv[1] + "/*.jsonl") for l in open(f)]
meas = {l["hash"]: l for l in lines if l.get("kind") == "measurement"}
conf = [l for l in lines if l.get("kind") == "confirmation"]
assert len(conf) == 1, conf
entries = conf[0]["entries"]
k = int(sys.argv[3])
assert len(entries) == k and len(set(e["hash"] for e in entries)) == k, entries
ok = sorted((m for m in meas.values() if m["ok"]), key=lambda m: m["median_s"])
expect = {m["hash"] for m in ok[:3]} | {m["hash"] for m in ok if m["technique"] == "default"}
assert {e["hash"] for e in entries} == expect, (entries, expect)
assert any(meas[e["hash"]]["technique"] == "default" for e in entries), "the default is not re-timed"
rounds = conf[0]["rounds"]
assert all(len(e["times_s"]) == 5 * rounds for e in entries), (rounds, entries)
best = min((e for e in entries if e["median_s"] > 0), key=lambda e: e["median_s"])
# The default stays unless the fastest is faster by more than twice the larger
# relative spread (median absolute deviation) of the two as a ratio of times, and
# by at least 1%, or every round of the fastest beat every round of the default
# (and by at least 1% at the medians), or the fastest beat it pair by pair (a sign
# test at 0.5% and a median ratio of at least 1.01; TuningDb.cpp, pairedLead).
def spread(e):
    t = e["times_s"]
    if len(t) < 3 or e["median_s"] <= 0: return 0
    d = sorted(abs(x - e["median_s"]) for x in t)
    return d[len(d) // 2] / e["median_s"]
def paired_lead(c, d):
    ct, dt = c["times_s"], d["times_s"]
    n = len(ct)
    if n < 8 or len(dt) != n or any(x <= 0 for x in ct + dt): return False
    wins = sum(a < b for a, b in zip(ct, dt))
    from math import comb
    tail = sum(comb(n, k) for k in range(wins, n + 1)) / 2 ** n
    ratios = sorted(b / a for a, b in zip(ct, dt))
    return tail <= 0.005 and ratios[n // 2] >= 1.01
dflt = [e for e in entries if e["median_s"] > 0 and meas[e["hash"]]["technique"] == "default"]
if dflt and best is not dflt[0]:
    margin = max(0.01, 2 * max(spread(best), spread(dflt[0])))
    clear = dflt[0]["median_s"] > best["median_s"] * (1 + margin)
    separated = (max(best["times_s"]) < min(dflt[0]["times_s"])
                 and dflt[0]["median_s"] > best["median_s"] * 1.01)
    if not clear and not separated and not paired_lead(best, dflt[0]): best = dflt[0]
assert json.load(open(sys.argv[2])) == meas[best["hash"]]["config"]
PY
$mdhc tune $PROG $SMALL --evaluations 4 --confirm 0 --db "$tmp/db-n" -q -o "$tmp/n.json" 2>/dev/null || fail "--confirm 0"
! grep -q '"kind":"confirmation"' "$tmp"/db-n/*.jsonl || fail "--confirm 0 still re-timed"
# Resume after a session on a busier machine: the database's times are stale (default 50 ms,
# a candidate 40 ms); this session's measurement of the default competes, so with --confirm 0
# (the single fastest measurement wins) the default, far faster now, is the best.
$mdhc tune $PROG $SMALL --evaluations 2 --confirm 0 --db "$tmp/db-stale" -q -o "$tmp/s1.json" 2>/dev/null || fail "stale: first session"
python3 - "$tmp/db-stale" <<'PY'
import glob, json, sys
f = glob.glob(sys.argv[1] + "/*.jsonl")[0]
lines = [json.loads(l) for l in open(f)]
for j in lines:
    if j.get("kind") == "measurement" and j.get("ok"):
        t = 0.05 if j.get("technique") == "default" else 0.04
        j["median_s"] = t
        j["times_s"] = [t] * len(j["times_s"])
open(f, "w").write("".join(json.dumps(j) + "\n" for j in lines))
PY
$mdhc tune $PROG $SMALL --evaluations 0 --confirm 0 --db "$tmp/db-stale" -o "$tmp/s2.json" 2>"$tmp/log" || { cat "$tmp/log"; fail "stale: resumed session"; }
grep -q "^tune: best is the default" "$tmp/log" || { cat "$tmp/log"; fail "stale: a candidate slower than the default now was chosen"; }
echo "1 passed, 0 failed"
