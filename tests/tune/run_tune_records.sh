#!/usr/bin/env bash
# What the tuner takes from its database: a record whose configuration is invalid for the
# program (a hand-edited or foreign line: tiles past the extents, no such SIMD dimension) is
# never run, confirmed or written as the best, however fast it claims to be; a run with
# pins writes a configuration that keeps them, though the database (keyed without pins)
# holds faster unpinned records. Pins whose tiles do not nest, and a pin or config giving a
# field twice, are usage errors; an -o file that cannot be created is refused before the
# search (root passes access() for /proc); a database file that never ends is an error.
source "$(dirname "$0")/common.sh"
$mdhc tune $PROG $SMALL --evaluations 4 --seed 2 -o "$tmp/first.json" 2> "$tmp/log" || { cat "$tmp/log"; fail "first tuning"; }
db=$(ls "$MDH_TUNE_DB"/*.jsonl)
# A forged record 1000x faster than anything measured, then one more evaluation.
python3 - "$db" <<'PY'
import json, sys
path = sys.argv[1]
lines = [json.loads(l) for l in open(path).read().splitlines() if l]
rec = dict(next(l for l in lines if l.get("kind") == "measurement"))
cfg = json.loads(json.dumps(rec["config"]))
cfg["levels"][0]["tile"] = [999999, 1, 1]
cfg["simd_dim"] = 9
rec.update(config=cfg, hash="f" * 32, median_s=1e-12, times_s=[1e-12] * 5, technique="random")
with open(path, "a") as f:
    f.write(json.dumps(rec, separators=(",", ":")) + "\n")
PY
rc=0; $mdhc tune $PROG $SMALL --evaluations 6 --seed 3 -o "$tmp/second.json" 2> "$tmp/log" || rc=$?
[ "$rc" = 0 ] || { cat "$tmp/log"; fail "tuning beside a forged record exited $rc"; }
grep -q 999999 "$tmp/second.json" && fail "the forged record was written as the best"
$mdhc compile $PROG $SMALL --config "$tmp/second.json" -q -o "$tmp/k" || fail "the best configuration does not compile"
# A record whose search time the re-timing contradicts (here: the default's, edited to a
# thousandth) is named in a note; the verdict uses the re-timing.
python3 - "$db" <<'PY'
import json, sys
path = sys.argv[1]
lines = [json.loads(l) for l in open(path).read().splitlines() if l]
for l in lines:
    if l.get("kind") == "measurement" and l.get("technique") == "default":
        l["median_s"] /= 1000
        l["times_s"] = [t / 1000 for t in l["times_s"]]
open(path, "w").write("".join(json.dumps(l, separators=(",", ":")) + "\n" for l in lines))
PY
$mdhc tune $PROG $SMALL --evaluations 9 --seed 5 -o "$tmp/third.json" 2> "$tmp/log" || { cat "$tmp/log"; fail "tuning after the edited default"; }
grep -q "note: the default measured .* ms in the search but .* ms re-timed" "$tmp/log" || { cat "$tmp/log"; fail "no note on the contradicted default"; }
# Pins: threads 1 and an RM tile; the written best keeps both.
pin='{"threads": 3, "levels": [{"layer": "COR"}, {"layer": "RM", "tile": [2, 32, 1]}]}'
$mdhc tune $PROG $SMALL --evaluations 3 --seed 4 --pin "$pin" -o "$tmp/pinned.json" 2> "$tmp/log" || { cat "$tmp/log"; fail "pinned tuning"; }
python3 - "$tmp/pinned.json" <<'PY' || fail "the pinned run wrote a configuration that breaks its pins"
import json, sys
c = json.load(open(sys.argv[1]))
assert c["threads"] == 3, c
assert [l for l in c["levels"] if l["layer"] == "RM"][0]["tile"] == [2, 32, 1], c
PY
# Pins that do not nest; a field given twice; an -o file that cannot be created.
rc=0; $mdhc tune $PROG $SMALL --evaluations 1 --pin '{"levels": [{"layer": "COR", "tile": [1, 1, 1]}, {"layer": "RM", "tile": [7, 5, 3]}]}' \
  -o "$tmp/x.json" 2> "$tmp/log" || rc=$?
[ "$rc" = 2 ] && grep -q "contradict each other" "$tmp/log" || { cat "$tmp/log"; fail "pins that do not nest (exit $rc)"; }
rc=0; $mdhc tune $PROG $SMALL --evaluations 1 --pin '{"threads": 4, "threads": 1}' 2> "$tmp/log" || rc=$?
[ "$rc" = 2 ] && grep -q "gives the field \`threads\` twice" "$tmp/log" || { cat "$tmp/log"; fail "a pin field given twice (exit $rc)"; }
if [ -d /proc/self ]; then
  before=$(measurements)
  rc=0; $mdhc tune $PROG $SMALL --evaluations 3 --seed 9 -o /proc/mdh-best.json 2> "$tmp/log" || rc=$?
  [ "$rc" = 2 ] && grep -q "cannot create a temporary file beside" "$tmp/log" || { cat "$tmp/log"; fail "-o /proc/... (exit $rc)"; }
  [ "$(measurements)" = "$before" ] || fail "-o /proc/... was refused only after measuring"
fi
db_parses
# A database file that never ends (a link to /dev/zero) is an error, not a read until memory runs out.
mkdir "$tmp/endless" && ln -s /dev/zero "$tmp/endless/$(basename "$db")"
rc=0; $mdhc tune $PROG $SMALL --evaluations 1 --db "$tmp/endless" 2> "$tmp/log" || rc=$?
[ "$rc" = 1 ] && grep -q "is larger than 1 GiB (or never ends)" "$tmp/log" || { cat "$tmp/log"; fail "an endless database (exit $rc)"; }
echo "1 passed, 0 failed"
