#!/usr/bin/env bash
# The OpenCL row of the benchmark issue: mdh's OpenCL kernels on the default
# OpenCL device (PoCL on this CPU) for matmul_1024, matvec_4096, jacobi2d_4096
# and mcc_rn50_b1 (ids, files, entries and --set values from
# benchmarks/workloads/programs.json), next to mdh's OpenMP default measured
# in the same run.
#
# Timing goes through the tuner's measurement path (`mdhc tune --evaluations 1`
# on a fresh database measures exactly the default configuration): the kernel
# runs in a child through its generic `_run` entry on host pointers (so OpenCL
# times include the copies into and out of the device buffers, memcpy on
# PoCL), one warm-up run, then --reps timed runs (median, min, max).  Checks:
# the tuner checks the default's outputs on >= 256 sampled cells against the
# interpreter's high-precision values (and every tuned candidate against the
# default's outputs); then the whole output of `mdhc run --backend opencl`
# with the configuration used is compared with `mdhc run` (OpenMP default) on
# the same seeded inputs; max_rel_err = max|ocl - omp| / max|omp|.
# With --budget S > 0 the OpenCL kernel is tuned for S seconds
# (`mdhc tune --backend opencl`) and the tuned configuration is reported.
#
# Writes benchmarks/results/<id>/mdh-opencl.json (schema of the other results)
# and prints a markdown table.
#   usage: benchmarks/opencl/run.sh [--budget S] [--build DIR] [--ids a,b] [--reps N]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
budget=0 build=$root/build ids="matmul_1024,matvec_4096,jacobi2d_4096,mcc_rn50_b1" reps=5
while [ $# -gt 0 ]; do
  case $1 in
    --budget) budget=$2; shift 2 ;;
    --build) build=$2; shift 2 ;;
    --ids) ids=$2; shift 2 ;;
    --reps) reps=$2; shift 2 ;;
    *) echo "usage: $0 [--budget S] [--build DIR] [--ids a,b] [--reps N]" >&2; exit 2 ;;
  esac
done
mdhc=$build/tools/mdhc
[ -x "$mdhc" ] || { echo "error: $mdhc not found (build mdh first, or pass --build DIR)" >&2; exit 1; }
work=${MDH_BENCH_BUILD:-/tmp/mdh-bench-opencl}
mkdir -p "$work"
export MDH_CACHE_DIR=$work/cache
device=$("$mdhc" run "$root/examples/dot.mdh" --entry dot --set T=f32,K=8 --backend opencl >/dev/null 2>"$work/probe" && echo ok || true)
if [ "$device" != ok ]; then
  echo "error: no usable OpenCL device: $(head -1 "$work/probe")" >&2
  exit 1
fi
echo "machine: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) cores; load: $(cut -d' ' -f1-3 /proc/loadavg); budget ${budget} s"
rows=()
for id in ${ids//,/ }; do
  read -r file entry set <<<"$(python3 - "$root" "$id" <<'PY'
import json, sys
p = json.load(open(sys.argv[1] + "/benchmarks/workloads/programs.json"))["programs"][sys.argv[2]]
print(p["file"], p["entry"], p["set"])
PY
)"
  # The first output buffer, as the program names it (`// outputs: NAME: type[...]`).
  out=$("$mdhc" --emit=hl "$root/$file" --entry "$entry" --set "$set" | sed -n 's|^// outputs: *\([A-Za-z_][A-Za-z0-9_]*\):.*|\1|p' | head -1)
  [ -n "$out" ] || { echo "error: $id: no output buffer found in mdhc --emit=hl" >&2; exit 1; }
  w=$work/$id
  rm -rf "$w"; mkdir -p "$w"
  prog=("$root/$file" --entry "$entry" --set "$set")
  echo "== $id: OpenMP default" >&2
  "$mdhc" tune "${prog[@]}" --backend openmp --evaluations 1 --repetitions "$reps" --db "$w/db-omp" -o "$w/omp.json" 2>"$w/omp.log" ||
    { cat "$w/omp.log" >&2; echo "error: $id: the OpenMP default could not be measured" >&2; exit 1; }
  echo "== $id: OpenCL default" >&2
  "$mdhc" tune "${prog[@]}" --backend opencl --evaluations 1 --repetitions "$reps" --db "$w/db-ocl" -o "$w/ocl-default.json" 2>"$w/ocl.log" ||
    { cat "$w/ocl.log" >&2; echo "error: $id: the OpenCL default could not be measured" >&2; exit 1; }
  cfg=$w/ocl-default.json variant=default
  if python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) > 0 else 1)" "$budget"; then
    echo "== $id: tuning OpenCL for $budget s" >&2
    "$mdhc" tune "${prog[@]}" --backend opencl --seconds "$budget" --repetitions "$reps" --db "$w/db-ocl" -o "$w/ocl-tuned.json" 2>"$w/tune.log" ||
      { cat "$w/tune.log" >&2; echo "error: $id: tuning failed" >&2; exit 1; }
    grep '^tune: best' "$w/tune.log" >&2 || true
    cfg=$w/ocl-tuned.json variant=tuned
  fi
  echo "== $id: full-output check" >&2
  "$mdhc" run "${prog[@]}" --backend opencl --config "$cfg" --seed 1 --out "$out=$w/ocl.npy" >/dev/null 2>"$w/run-ocl.log" ||
    { cat "$w/run-ocl.log" >&2; echo "error: $id: mdhc run --backend opencl failed" >&2; exit 1; }
  "$mdhc" run "${prog[@]}" --seed 1 --out "$out=$w/omp.npy" >/dev/null 2>"$w/run-omp.log" ||
    { cat "$w/run-omp.log" >&2; echo "error: $id: mdhc run (OpenMP) failed" >&2; exit 1; }
  mkdir -p "$root/benchmarks/results/$id"
  row=$(python3 - "$id" "$w" "$variant" "$budget" "$root/benchmarks/results/$id/mdh-opencl.json" <<'PY'
import array, glob, json, os, struct, sys
wid, w, variant, budget, dest = sys.argv[1:6]

def records(db):
    out = []
    for f in glob.glob(db + "/*.jsonl"):
        for line in open(f):
            try:
                j = json.loads(line)
            except ValueError:
                continue
            if j.get("kind") == "measurement":
                out.append(j)
    return out

def default_of(db):
    r = [j for j in records(db) if j.get("technique") == "default" and j.get("ok")]
    return r[0] if r else None

def best_of(db):
    r = [j for j in records(db) if j.get("ok")]
    return min(r, key=lambda j: j["median_s"]) if r else None

def machine(db):
    for f in glob.glob(db + "/*.jsonl"):
        for line in open(f):
            j = json.loads(line)
            if j.get("kind") == "key":
                return j["key"]["machine"]
    return ""

def npy(path):
    data = open(path, "rb").read()
    assert data[:6] == b"\x93NUMPY"
    hl = struct.unpack("<H", data[8:10])[0]
    header = data[10:10 + hl].decode()
    # f32 and i32 outputs (the workloads' types); anything else is reported, not guessed.
    codes = {"'<f4'": "f", "'<i4'": "i"}
    code = next((c for d, c in codes.items() if d in header), None)
    assert code, header
    a = array.array(code)
    a.frombytes(data[10 + hl:])
    return a

omp, ocl_def = default_of(w + "/db-omp"), default_of(w + "/db-ocl")
chosen = best_of(w + "/db-ocl") if variant == "tuned" else ocl_def
a, b = npy(w + "/ocl.npy"), npy(w + "/omp.npy")
scale = max((abs(x) for x in b), default=0.0) or 1.0
err = max((abs(x - y) for x, y in zip(a, b)), default=0.0) / scale
checked = len(a) == len(b) and err <= 1e-5
times = chosen["times_s"]
dev = machine(w + "/db-ocl").split("OpenCL device: ")[-1]
note = ("mdhc OpenCL kernel, %s configuration, on %s through the generic _run entry (host pointers: includes the copies "
        "to/from device buffers); outputs checked by the tuner against mdhi high-precision cells and in full against "
        "mdhc's OpenMP output (max_rel_err = max abs diff / max abs value); mdh OpenMP default in the same run: %.4g ms; "
        "OpenCL default: %.4g ms%s; configuration: %s") % (
    variant, dev, omp["median_s"] * 1e3, ocl_def["median_s"] * 1e3,
    "; tuned for %s s" % budget if variant == "tuned" else "", json.dumps(chosen["config"], sort_keys=True, separators=(",", ":")))
res = {"workload": wid, "impl": "mdh-opencl", "variant": "warm", "median_s": chosen["median_s"], "min_s": min(times),
       "max_s": max(times), "runs": len(times), "checked": checked, "max_rel_err": err, "note": note,
       "config_variant": variant, "device": dev, "mdh_openmp_default_median_s": omp["median_s"],
       "opencl_default_median_s": ocl_def["median_s"],
       "cpu": next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "")}
tmp = dest + ".tmp"
with open(tmp, "w") as f:
    json.dump(res, f)
    f.write("\n")
os.replace(tmp, dest)
print("| %s | %.4g | %.4g | %.4g..%.4g | %s | %s (%.2g) | %.2f |" % (
    wid, omp["median_s"] * 1e3, ocl_def["median_s"] * 1e3, min(times) * 1e3, max(times) * 1e3,
    "%.4g" % (chosen["median_s"] * 1e3) if variant == "tuned" else "—", "yes" if checked else "**no**", err,
    chosen["median_s"] / omp["median_s"]))
PY
)
  rows+=("$row")
  echo "$row" >&2
done
echo
echo "| workload | mdh OpenMP default ms | mdh OpenCL default ms | OpenCL min..max ms | OpenCL tuned ms | checked (max rel err) | OpenCL / OpenMP |"
echo "|---|---:|---:|---:|---:|---|---:|"
printf '%s\n' "${rows[@]}"
