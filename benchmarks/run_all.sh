#!/usr/bin/env bash
# run_all.sh — issue 5's one benchmark command. Runs the machine-limit micro-benchmarks
# (benchmarks/limits), then for every workload of benchmarks/workloads.json:
#   1. compiles mdh's default configuration with mdhc,
#   2. tunes mdh (mdhc tune, --budget seconds) unless a tuned configuration for at least that
#      budget, tuned on this CPU from the default mdhc plans now, is already in
#      benchmarks/results/<id>/ (resume: the whole run takes hours),
#   3. runs the TVM MetaSchedule peer (benchmarks/tvm/run_tvm.py) unless --skip-tvm or the script
#      is missing: tunes it for the budget, or, when a TVM result for at least that budget exists,
#      re-checks and re-times the best schedule of its tuning database (results/<id>/tvm-work,
#      kept in git) so that its row comes from this run too,
#   4. probes OPENBLAS_CORETYPE (read at library load: one process per coretype) for the
#      workloads OpenBLAS can express and keeps the fastest,
#   5. runs the driver (benchmarks/suite/bench_suite) at real-time priority: mdh default, mdh
#      tuned, naive OpenMP and every peer, interleaved in one process, outputs checked,
# then writes benchmarks/RESULTS.md and benchmarks/plots/*.svg (benchmarks/suite/report.py).
#
# Usage: benchmarks/run_all.sh [--budget SECONDS_PER_WORKLOAD] [--only id,id] [--skip-tvm]
#                              [--smoke] [--no-limits] [--timing-seconds S] [--priority rt|none]
#   --budget S        mdh tuning (and TVM) budget per workload; default 600 (the issue's 10 min)
#   --only ids        comma-separated workload ids to measure (default: all 20); the report
#                     still covers every workload with results in benchmarks/results
#   --smoke           CI mode: tiny sizes, every implementation's output checked, no tuning, no
#                     timing claims, results in a temporary directory (not benchmarks/results)
#   --no-limits       reuse benchmarks/limits/limits.json instead of re-measuring
#   --timing-seconds  driver time per workload after checking (default 20)
#   --priority        rt (default when allowed): timing binaries under chrt -f 10; none
#   --retime          rerun the driver even where results exist (default: rerun always; the
#                     driver is minutes per workload, tuning is the part that resumes)
# Env: MDHC (mdhc binary; default build/tools/mdhc, else build-bench/tools/mdhc), MDH_BENCH_SUITE_BUILD (driver build dir, default build-bench/suite),
#      TVM_PYTHON (default benchmarks/.venv/bin/python).
# Invariants: results/<id>/ holds the evidence (driver JSON, tuned config + its tuning record,
#   OpenBLAS coretype probe); a tuned config is reused only on the CPU and from the default
#   configuration it was tuned on (mdhc's planner changes), and only when its recorded budget is >= the
#   requested one; nothing is reported for an implementation whose output was not checked.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
budget=600 only="" skip_tvm=0 smoke=0 limits=1 timing=20 priority=rt
while [ $# -gt 0 ]; do
  case "$1" in
    --budget) budget=$2; shift 2 ;;
    --only) only=$2; shift 2 ;;
    --skip-tvm) skip_tvm=1; shift ;;
    --smoke) smoke=1; shift ;;
    --no-limits) limits=0; shift ;;
    --timing-seconds) timing=$2; shift 2 ;;
    --priority) priority=$2; shift 2 ;;
    --retime) shift ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "run_all.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done

wl=$root/benchmarks/suite/wl.py
if [ -z "${MDHC:-}" ]; then
  for c in build/tools/mdhc build-bench/tools/mdhc; do
    if [ -x "$root/$c" ]; then MDHC=$root/$c; break; fi
  done
fi
[ -x "${MDHC:-}" ] || { echo "run_all.sh: no mdhc found (set MDHC)" >&2; exit 2; }
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-$(nproc)}
export OMP_PROC_BIND=${OMP_PROC_BIND:-close} OMP_PLACES=${OMP_PLACES:-cores}
export OPENBLAS_NUM_THREADS=$OMP_NUM_THREADS
prio=()
if [ "$priority" = rt ]; then
  if chrt -f 10 true 2> /dev/null; then prio=(chrt -f 10); else echo "run_all.sh: chrt not allowed; timing at ordinary priority" >&2; priority=none; fi
fi
[ "$smoke" = 1 ] && prio=()
log() { echo "[run_all $(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg)] $*" >&2; }

# ---- driver
log "building the driver"
driver=$("$root/benchmarks/suite/build.sh")
peers=$(tr '\n' ' ' < "$(dirname "$driver")/peers.txt")
log "driver $driver (peers: ${peers:-none})"

if [ "$smoke" = 1 ]; then
  results=$(mktemp -d /tmp/mdh-bench-smoke.XXXXXX)
  work=$results/work
  ids=${only:-matmul_1024,matvec_4096,dot_2p24,jacobi1d_2p24,jacobi2d_4096,jacobi3d_256,mcc_rn50_b1,mcc_vgg16_b1,ccsdt_ijma_mkbc,ccsdt_ikmb_mjac,histo_1m_256,scan_2p24,prl_1k_64k}
  smokeflag=--smoke
else
  results=$root/benchmarks/results
  work=${MDH_BENCH_SUITE_BUILD:-$root/build-bench/suite}/work
  ids=${only:-$("$wl" ids | paste -sd,)}
  smokeflag=
fi
mkdir -p "$results" "$work"
# A driver that hangs (a peer's thread pool, a kernel) is killed: 2 min in smoke mode, else
# 40 min (a workload's reference, Halide autoscheduling and JIT, checks and timing).
drv_timeout=$([ "$smoke" = 1 ] && echo 120 || echo 2400)

# ---- limits
if [ "$smoke" = 0 ] && [ "$limits" = 1 ]; then
  extra=()
  for id in ${ids//,/ }; do
    b=$("$wl" get "$id" bytes)
    [ -n "$b" ] && [ "$("$wl" get "$id" metric)" = "GB/s" ] && extra+=(--bytes "$b")
  done
  log "limits: benchmarks/limits/run.sh --priority $priority ${extra[*]}"
  "$root/benchmarks/limits/run.sh" --priority "$priority" "${extra[@]}" >&2
fi

tune_help=$("$MDHC" tune --help 2>&1 || true)

# A tuned configuration or TVM schedule is reused only on the CPU it was tuned on: the fastest
# configuration of a 32 MiB-L3 AMD EPYC is not the fastest of a 260 MiB-L3 Xeon. The identity
# (benchmarks/cpu_id.sh) goes to every result through MDH_BENCH_CPU (driver, TVM).
cpu_now=$("$root/benchmarks/cpu_id.sh")
export MDH_BENCH_CPU=$cpu_now
# tuned_on FILE...: the first "cpu" recorded in the JSON files given (a tuning record, then the
# driver result of the same run for records that predate the field); empty when none says.
tuned_on() {
  /usr/bin/python3 - "$@" <<'PY'
import json, sys
for path in sys.argv[1:]:
    try:
        cpu = json.load(open(path)).get("cpu")
    except (OSError, ValueError):
        continue
    if cpu:
        print(cpu)
        break
PY
}
# default_changed META DEFAULT_JSON CONFIG: 1 when the default configuration a tuning started
# from (META's default_config, else the note of the driver's mdh-default.json) is known and
# differs from CONFIG (this mdhc's default, JSON text); 0 otherwise.
default_changed() {
  /usr/bin/python3 - "$@" <<'PY'
import json, sys
meta, default_json, now = sys.argv[1:]
then = None
try:
    then = json.load(open(meta)).get("default_config")
except (OSError, ValueError):
    pass
if then is None:
    try:
        note = json.load(open(default_json)).get("note", "")
        then = json.loads(note.split("default configuration: ", 1)[1]) if "default configuration: " in note else None
    except (OSError, ValueError, IndexError):
        then = None
try:
    print(1 if then is not None and now and then != json.loads(now) else 0)
except ValueError:
    print(0)
PY
}
has_db=0; grep -q -- '--db' <<< "$tune_help" && has_db=1

# As mdhc and the tuner build generated code with GCC 12 (src/runtime/CompilerWorkarounds.h).
gcc12_flags=()
cxx_macros=$(${CXX:-g++} -dM -E -x c++ /dev/null 2> /dev/null || true)
if grep -q '^#define __GNUC__ 12$' <<< "$cxx_macros" && ! grep -q '__clang__' <<< "$cxx_macros"; then
  gcc12_flags=(--param=vrp2-mode=vrp)
fi

failed=()
for id in ${ids//,/ }; do
  log "=== $id"
  R=$results/$id W=$work/$id
  mkdir -p "$R" "$W"
  mapfile -t prog < <("$wl" mdh "$id" $smokeflag)
  file=${prog[0]} entry=${prog[1]} set=${prog[2]}
  cflags=(-std=c++17 -O3 -march=native -fopenmp -fno-fast-math -ffp-contract=fast -shared -fPIC "${gcc12_flags[@]+"${gcc12_flags[@]}"}")
  # 1. mdh default
  dargs=() dnote="" default_cfg=""
  if "$MDHC" compile "$file" --entry "$entry" --set "$set" --name "${id}_default" -o "$W" > "$W/default.log" 2>&1 &&
     ${CXX:-g++} "${cflags[@]}" "$W/${id}_default.cpp" -o "$W/${id}_default.so" >> "$W/default.log" 2>&1; then
    dargs=(--mdh-default "$W/${id}_default.so")
    default_cfg=$(sed -n 's|^// *\* Configuration: ||p' "$W/${id}_default.h" | head -1)
    dnote="default configuration: $default_cfg"
  else
    dnote="failed: mdhc compile with the default configuration failed: $(tr '\n' ' ' < "$W/default.log" | cut -c1-400)"
    log "mdh default failed: $dnote"
  fi
  # 2. mdh tuned (resumable)
  targs=() tnote=""
  if [ "$smoke" = 0 ]; then
    cfg=$R/mdh-tuned.config.json meta=$R/mdh-tuned.tune.json
    have=0
    if [ -f "$cfg" ] && [ -f "$meta" ]; then
      have=$(/usr/bin/python3 -c "import json,sys; m=json.load(open('$meta')); print(1 if m.get('budget_s',0) >= $budget else 0)")
      tuned_cpu=$(tuned_on "$meta" "$R/mdh-tuned.json")
      if [ "$have" = 1 ] && [ "$tuned_cpu" != "$cpu_now" ]; then
        have=0
        log "the tuned config was tuned on '${tuned_cpu:-an unrecorded CPU}', this is '$cpu_now': tuning again"
      fi
      # The tuner starts from the default configuration: when mdhc now plans another default
      # than the one the tuning started from (recorded in the tuning record, or for older
      # records in the last driver run's mdh-default.json), the tuned one may be the slower.
      if [ "$have" = 1 ] && [ "$(default_changed "$meta" "$R/mdh-default.json" "$default_cfg")" = 1 ]; then
        have=0
        log "mdhc's default configuration differs from the one this tuning started from: tuning again"
      fi
    fi
    if [ "$have" = 1 ]; then
      log "tuned config for budget >= $budget s on this CPU exists: reusing $cfg"
    else
      log "tuning mdh for $budget s"
      targs_db=()
      # With the tuning database (mdhc tune --db DIR), measured candidates survive an
      # interrupted run and are resumed; --report writes the CSV and convergence plot.
      [ "$has_db" = 1 ] && targs_db=(--db "${MDH_TUNE_DB:-$root/benchmarks/results/tuning-db}")
      grep -q -- '--report' <<< "$tune_help" && targs_db+=(--report "$R/mdh-tune-report")
      t0=$(date +%s)
      # The tuner measures candidates itself: at the same priority as the driver,
      # or its timings on this shared machine mislead the search.  Only its
      # measurement children run real-time (--realtime): a real-time tuner
      # reaping children once spun for 20 minutes in the kernel (2026-11-22).
      tcmd=("$MDHC" tune) trt=()
      if [ ${#prio[@]} -gt 0 ]; then
        if grep -q -- '--realtime' <<< "$tune_help"; then trt=(--realtime 10); else tcmd=("${prio[@]}" "$MDHC" tune); fi
      fi
      if "${tcmd[@]}" "$file" --entry "$entry" --set "$set" --seconds "$budget" --evaluations 1000000 "${trt[@]+"${trt[@]}"}" \
           "${targs_db[@]+"${targs_db[@]}"}" -o "$W/best.json" > "$W/tune.log" 2>&1; then
        cp "$W/best.json" "$cfg.tmp" && mv "$cfg.tmp" "$cfg"
        # The side-by-side re-timing's ratio when the tuner confirmed, else its search's.
        summary=$(grep '^tune: re-timed' "$W/tune.log" | tail -1 || true)
        [ -n "$summary" ] || summary=$(grep '^tune: best' "$W/tune.log" | tail -1 || true)
        /usr/bin/python3 - "$meta" "$budget" "$(( $(date +%s) - t0 ))" "$summary" "$MDHC" "$(nproc)" "$cpu_now" "$default_cfg" <<'PY'
import json, sys, datetime, os
meta, budget, wall, summary, mdhc, ncpu, cpu, default_cfg = sys.argv[1:]
json.dump({"budget_s": float(budget), "wall_s": int(wall), "summary": summary,
           "mdhc": os.path.relpath(mdhc), "cores": int(ncpu), "cpu": cpu,
           "default_config": json.loads(default_cfg) if default_cfg else None,
           "date": datetime.datetime.utcnow().strftime("%Y-%m-%d %H:%M UTC"),
           "load_avg_end": open("/proc/loadavg").read().split()[:3]},
          open(meta + ".tmp", "w"), indent=1)
os.replace(meta + ".tmp", meta)
PY
      else
        log "mdh tuning failed (see $W/tune.log)"
        tnote="failed: mdhc tune failed: $(tail -3 "$W/tune.log" | tr '\n' ' ' | cut -c1-300)"
      fi
    fi
    if [ -f "$cfg" ] && [ -f "$meta" ]; then
      if "$MDHC" compile "$file" --entry "$entry" --set "$set" --config "$cfg" --name "${id}_tuned" -o "$W" > "$W/tuned.log" 2>&1 &&
         ${CXX:-g++} "${cflags[@]}" "$W/${id}_tuned.cpp" -o "$W/${id}_tuned.so" >> "$W/tuned.log" 2>&1; then
        targs=(--mdh-tuned "$W/${id}_tuned.so")
        tnote="tuned $(/usr/bin/python3 -c "import json; m=json.load(open('$meta')); print('for %g s (%s)' % (m['budget_s'], m.get('summary','')))")"
      else
        tnote="failed: compiling the tuned configuration failed: $(tr '\n' ' ' < "$W/tuned.log" | cut -c1-300)"
      fi
    fi
  else
    tnote="n/a: --smoke does not tune"
  fi
  # 3. TVM
  if [ "$skip_tvm" = 0 ] && [ -f "$root/benchmarks/tvm/run_tvm.py" ]; then
    py=${TVM_PYTHON:-$root/benchmarks/.venv/bin/python}
    [ -x "$py" ] || py=/usr/bin/python3
    tvm_out=$R/tvm.json
    tvm_have=0
    # mdh's kernels are also checked and timed in TVM's process, interleaved with TVM's
    # (run_tvm.py --pair): TVM cannot run in the driver's process.
    pair_args=()
    [ ${#dargs[@]} -gt 0 ] && pair_args+=(--pair "mdh-default=${dargs[1]}")
    [ ${#targs[@]} -gt 0 ] && pair_args+=(--pair "mdh-tuned=${targs[1]}")
    if [ "$smoke" = 0 ] && [ -f "$tvm_out" ]; then
      tvm_have=$(/usr/bin/python3 -c "import json; m=json.load(open('$tvm_out')); print(1 if m.get('na') or (m.get('budget_s') or m.get('budget_seconds') or 0) >= $budget else 0)" 2> /dev/null || echo 0)
      tvm_cpu=$(tuned_on "$tvm_out")
      if [ "$tvm_cpu" != "$cpu_now" ] && ! grep -q '"na": *true' "$tvm_out"; then
        # Another CPU's schedules (another LLVM -mcpu) neither re-time nor seed a search here.
        tvm_have=0
        log "TVM was tuned on '${tvm_cpu:-an unrecorded CPU}', this is '$cpu_now': tuning again from an empty database"
        rm -rf "$R/tvm-work"
      fi
    fi
    if [ "$tvm_have" = 1 ] && [ -d "$R/tvm-work" ]; then
      # Tuned before: re-time the database's best schedule now (budget 0 tunes nothing), so that
      # the TVM row comes from the same run as the other rows; the tuning facts stay the old ones.
      log "TVM result for budget >= $budget s exists: re-timing its best schedule"
      if "$py" "$root/benchmarks/tvm/run_tvm.py" --workload "$id" --budget-seconds 0 --work-dir "$R/tvm-work" \
           "${pair_args[@]+"${pair_args[@]}"}" --out "$W/tvm-retimed.json" > "$W/tvm.log" 2>&1; then
        /usr/bin/python3 - "$tvm_out" "$W/tvm-retimed.json" <<'PY' || log "TVM re-timing could not be merged (see $W/tvm.log)"
import json, os, sys, datetime
old_path, new_path = sys.argv[1:]
old, new = json.load(open(old_path)), json.load(open(new_path))
if not new.get("checked"):
    sys.exit(1)
for k in ("median_s", "min_s", "max_s", "runs", "max_rel_err", "timing_policy", "gflops", "gbs", "cpu", "paired"):
    if k in new:
        old[k] = new[k]
if "paired" not in new:
    old.pop("paired", None)  # an interleaved comparison from an earlier run is not this run's
stamp = datetime.datetime.utcnow().strftime("%Y-%m-%d %H:%M UTC")
old["retimed"] = stamp
old["note"] = old.get("note", "").split("; re-timed")[0] + f"; re-timed from its tuning database in this run ({stamp})"
json.dump(old, open(old_path + ".tmp", "w"), indent=1)
os.replace(old_path + ".tmp", old_path)
PY
      else
        log "TVM re-timing failed (see $W/tvm.log); keeping the earlier result"
      fi
    elif [ "$tvm_have" = 1 ]; then
      log "TVM result for budget >= $budget s exists (no tuning database to re-time it from)"
    else
      log "TVM MetaSchedule ($budget s)"
      tvm_args=(--workload "$id" --budget-seconds "$budget" --out "$tvm_out" "${pair_args[@]+"${pair_args[@]}"}")
      [ "$smoke" = 1 ] && tvm_args+=(--smoke --work-dir "$W/tvm-work")
      "$py" "$root/benchmarks/tvm/run_tvm.py" "${tvm_args[@]}" > "$W/tvm.log" 2>&1 || log "TVM failed (see $W/tvm.log)"
    fi
  fi
  if [ "$smoke" = 0 ] && [ -f "${tvm_out:-}" ]; then
    /usr/bin/python3 - "$tvm_out" <<'PY' | while read -r line; do log "$line"; done || true
import json, sys
p = (json.load(open(sys.argv[1])).get("paired") or {}).get("impls", {})
t = p.get("tvm", {}).get("median_s")
for name in ("mdh-default", "mdh-tuned"):
    r = p.get(name)
    if r and t and r.get("median_s"):
        print("paired with TVM: %s %.4g ms, tvm %.4g ms: %.2fx" % (name, r["median_s"] * 1e3, t * 1e3, t / r["median_s"]))
    elif r:
        print("paired with TVM: %s not timed: %s" % (name, r.get("error", "?")))
PY
  fi
  # 4. OpenBLAS coretype probe (separate processes: OPENBLAS_CORETYPE is read at load)
  mapfile -t dargs_wl < <("$wl" driver-args "$id" $smokeflag | tr ' ' '\n')
  kind=$("$wl" get "$id" kind)
  coretype=""
  if [[ " $peers " == *" openblas "* ]] && [[ "$kind" =~ ^(matmul|matvec|dot)$ ]]; then
    cts=(SkylakeX Haswell)
    grep -qw avx512_bf16 /proc/cpuinfo && cts=(Cooperlake "${cts[@]}")
    grep -qw AuthenticAMD /proc/cpuinfo && cts+=(Zen)  # OpenBLAS's own kernels for AMD
    best="" bestt=""
    probe="{"
    for ct in "${cts[@]}"; do
      P=$W/openblas-$ct; mkdir -p "$P"
      if OPENBLAS_CORETYPE=$ct timeout "$drv_timeout" "${prio[@]+"${prio[@]}"}" "$driver" "${dargs_wl[@]}" $smokeflag --only openblas \
           --seconds 3 --min-rounds 3 --max-rounds 15 --coretype "$ct" --out "$P" > "$P/log" 2>&1; then
        t=$(/usr/bin/python3 -c "import json; print(json.load(open('$P/openblas.json'))['median_s'])")
        probe+="\"$ct\": $t, "
        if [ -z "$bestt" ] || /usr/bin/python3 -c "import sys; sys.exit(0 if $t < $bestt else 1)"; then best=$ct bestt=$t; fi
      else
        probe+="\"$ct\": \"failed\", "
      fi
    done
    probe="${probe%, }}"
    coretype=$best
    echo "{\"probe_median_s\": $probe, \"chosen\": \"$coretype\"}" > "$R/openblas-coretypes.json"
    log "OpenBLAS coretype probe: $probe -> $coretype"
  fi
  # 5. the interleaved run
  run_env=()
  [ -n "$coretype" ] && run_env=(env "OPENBLAS_CORETYPE=$coretype")
  log "driver: ${prio[*]:-} ${run_env[*]:-} bench_suite ${dargs_wl[*]}"
  if ! "${run_env[@]+"${run_env[@]}"}" timeout "$drv_timeout" "${prio[@]+"${prio[@]}"}" "$driver" "${dargs_wl[@]}" $smokeflag \
       "${dargs[@]+"${dargs[@]}"}" "${targs[@]+"${targs[@]}"}" --mdh-default-note "$dnote" --mdh-tuned-note "$tnote" \
       ${coretype:+--coretype "$coretype"} --seconds "$timing" --out "$R" 2> "$W/driver.log"; then
    failed+=("$id")
    log "driver reported a failure for $id (see $W/driver.log)"
    grep -E "MISMATCH|error" "$W/driver.log" >&2 || true
  fi
  grep -E "check:|n/a" "$W/driver.log" | sed 's/^/    /' >&2 || true
done

if [ "$smoke" = 1 ]; then
  if [ ${#failed[@]} -gt 0 ]; then echo "bench smoke: FAILED for ${failed[*]} (results in $results)"; exit 1; fi
  # Every checked implementation was also timed alone (what TVM is compared with), and the
  # report renders this run's results.
  /usr/bin/python3 - "$results" ${ids//,/ } <<'PY' || { echo "bench smoke: FAILED (alone timings, results in $results)"; exit 1; }
import json, os, sys
root, ids = sys.argv[1], sys.argv[2:]
missing = []
for wid in ids:
    d = os.path.join(root, wid)
    for f in sorted(os.listdir(d)):
        if f.count(".") != 1 or not f.endswith(".json") or f.startswith(("openblas-coretypes", "tvm")):
            continue
        r = json.load(open(os.path.join(d, f)))
        if r.get("checked") and r.get("median_s") is not None:
            alone = os.path.join(d, f[:-5] + ".alone.json")
            a = json.load(open(alone)) if os.path.exists(alone) else {}
            if not (a.get("checked") and (a.get("runs") or 0) >= 1):
                missing.append("%s/%s" % (wid, f[:-5]))
if missing:
    print("no alone timing for: " + ", ".join(missing), file=sys.stderr)
    sys.exit(1)
PY
  /usr/bin/python3 "$root/benchmarks/suite/report.py" --budget 0 --priority none --mdhc "$MDHC" --ids "$ids" \
    --results "$results" --out "$results/RESULTS.md" --plots "$results/plots" > /dev/null ||
    { echo "bench smoke: FAILED (report.py, results in $results)"; exit 1; }
  grep -q '^\*\*alone\*\*' "$results/RESULTS.md" || { echo "bench smoke: FAILED (no alone table in $results/RESULTS.md)"; exit 1; }
  echo "bench smoke: every implementation's output checked for $ids (results in $results)"
  exit 0
fi
log "report"
# RESULTS.md covers every workload with results, not only those of this run
# (--only): each section says when and where its rows were measured.
/usr/bin/python3 "$root/benchmarks/suite/report.py" --budget "$budget" --priority "$priority" --mdhc "$MDHC"
[ ${#failed[@]} -eq 0 ] || { log "failures: ${failed[*]}"; exit 1; }
