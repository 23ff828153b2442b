# Shared set-up of the tuner's tests: a private database and report
# directory per test, a compile cache shared by the tune tests of one build
# (entries are complete or absent, so concurrent tests may share it).
set -eu
mdhc=$1 root=$2 cache=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export MDH_CACHE_DIR=$cache
export MDH_TUNE_DB=$tmp/db
PROG="$root/examples/matmul.mdh --entry matmul"
SMALL="--set T=i32,I=24,J=32,K=16"
FSMALL="--set T=f32,I=24,J=32,K=16"
fail() { echo "FAIL: $*" >&2; exit 1; }
# Measurement lines of the (single) database file.
measurements() { cat "$MDH_TUNE_DB"/*.jsonl 2>/dev/null | grep -c '"kind":"measurement"' || true; }
# Every complete line must be JSON (python3 is in the toolchain image).
db_parses() {
  python3 - "$MDH_TUNE_DB" <<'PY'
import json, sys, glob
for f in glob.glob(sys.argv[1] + "/*.jsonl"):
    data = open(f).read()
    lines = data.split("\n")
    for i, l in enumerate(lines[:-1]):
        json.loads(l)
    # a torn last line (no newline) is allowed: the reader ignores it
PY
}
