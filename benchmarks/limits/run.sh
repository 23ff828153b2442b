#!/usr/bin/env bash
# Measures the machine's limits that mdh's benchmarks are judged against (issues 4 and 5):
# FMA peak (fma_peak.cpp), STREAM-triad bandwidth at several footprints and at the footprints of
# the issue-4 kernels (stream_triad.cpp), and the naive sequential i-k-j MatMul 1024^3 f32
# baseline (naive_matmul.cpp), and the cost of starting an OpenMP parallel region, awake and after
# an idle (team_wake.cpp). Builds the four standalone programs with
# g++ -O3 -march=native -fopenmp into $MDH_BENCH_BUILD (default /tmp/mdh-bench), runs them on all
# cores (OMP_NUM_THREADS defaults to nproc, threads bound one per core), prints a markdown
# table, and writes LIMITS.md (machine, date, load, every figure with its command) and
# limits.json (for other benchmark scripts) into --out DIR (default: this directory).
# Needs only bash, g++ with OpenMP, awk, lscpu. Takes well under a minute on an idle 2-core
# machine; on a loaded one the figures drop (the load average is recorded: rerun when it is low).
#
# Usage: run.sh [--out DIR] [--no-write] [--reps N] [--bytes N]... [--priority none|nice|rt]
#   --bytes N  also measure the triad at footprint N (K/M/G suffixes), e.g. a kernel's own
#              footprint; the MatVec 4096^2 and Jacobi2D 4096^2 f32 footprints are always added.
#   --no-write print only; do not write LIMITS.md / limits.json.
#   --priority on a machine others keep busy: run the programs (not the build) with
#              nice -n -10, or with SCHED_FIFO priority 10 (chrt -f 10; other processes then run
#              only in the kernel's real-time throttling window, 5% by default). Needs the
#              privilege to raise priority; recorded in LIMITS.md. Default: none.
# limits.json keys (numbers are medians): fma_peak_{f32,f64}_{1core,allcores}_gflops (best ISA),
#   triad_dram_gbs (f32, warm, 512 MiB), triad_l3_gbs (f32, warm, 16 MiB: fits L3, not L2),
#   naive_matmul_f32_1024_gflops, omp_fork_join_us and omp_team_wake_120ms_us (team_wake.cpp:
#   an empty parallel region back to back and after the driver's 120 ms cold-call idle), and "results": every figure by key with median/min/max/unit.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
build=${MDH_BENCH_BUILD:-/tmp/mdh-bench}
out=$here
write=1
reps=9
extra_bytes=()
priority=none
while [ $# -gt 0 ]; do
  case "$1" in
    --out) out=$2; shift 2 ;;
    --no-write) write=0; shift ;;
    --reps) reps=$2; shift 2 ;;
    --bytes) extra_bytes+=("$2"); shift 2 ;;
    --priority) priority=$2; shift 2 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "run.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done

case "$priority" in
  none) prio=(); prio_text="ordinary (no priority change)" ;;
  nice) prio=(nice -n -10); prio_text="\`nice -n -10\`" ;;
  rt) prio=(chrt -f 10)
      rt_run=$(cat /proc/sys/kernel/sched_rt_runtime_us 2> /dev/null || echo 950000)
      rt_per=$(cat /proc/sys/kernel/sched_rt_period_us 2> /dev/null || echo 1000000)
      prio_text="\`chrt -f 10\` (SCHED_FIFO: other processes ran only in the RT-throttling window, $(( (rt_per - rt_run) / 1000 )) ms of every $(( rt_per / 1000 )) ms)" ;;
  *) echo "run.sh: --priority none|nice|rt" >&2; exit 2 ;;
esac
if [ ${#prio[@]} -gt 0 ] && ! "${prio[@]}" true 2> /dev/null; then
  echo "run.sh: cannot run with --priority $priority here (no privilege?)" >&2; exit 2
fi

CXX=${CXX:-g++}
CXXFLAGS_LIMITS="-O3 -march=native -fopenmp -std=c++17"
mkdir -p "$build"
for p in fma_peak stream_triad naive_matmul team_wake; do
  # shellcheck disable=SC2086
  "$CXX" $CXXFLAGS_LIMITS -o "$build/$p" "$here/$p.cpp"
done

ncpu=$(nproc)
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-$ncpu}
export OMP_PROC_BIND=${OMP_PROC_BIND:-close}
export OMP_PLACES=${OMP_PLACES:-cores}
ompenv="OMP_NUM_THREADS=$OMP_NUM_THREADS OMP_PROC_BIND=$OMP_PROC_BIND OMP_PLACES=$OMP_PLACES"

# Footprints of the issue-4 kernels (f32): MatVec 4096^2 reads M (64 MiB) and v, writes w;
# Jacobi2D 4096^2 reads the 4096^2 input and writes the 4096^2 output (in/out 64 MiB each).
matvec_bytes=$(( 4096 * 4096 * 4 + 4096 * 4 * 2 ))
jacobi_bytes=$(( 2 * 4096 * 4096 * 4 ))
kernel_bytes=("$matvec_bytes" "$jacobi_bytes" "${extra_bytes[@]+"${extra_bytes[@]}"}")

loadavg() { cut -d' ' -f1-3 /proc/loadavg; }
# label BYTES: the footprint label stream_triad uses in its keys (16MiB, 65568KiB, 1000B).
label() {
  local b=$1
  if (( b % (1 << 30) == 0 )); then echo "$(( b >> 30 ))GiB"
  elif (( b % (1 << 20) == 0 )); then echo "$(( b >> 20 ))MiB"
  elif (( b % (1 << 10) == 0 )); then echo "$(( b >> 10 ))KiB"
  else echo "${b}B"; fi
}
nrun=0
# CPU accounting, to tell how much of the machine other processes took during a run:
# jiffies (USER_HZ) busy incl. steal, and total, from /proc/stat; and this shell's children's
# CPU seconds (user + sys of the benchmark programs, from `times`).
stat_jiffies() { awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 + $9, $2 + $3 + $4 + $5 + $6 + $7 + $8 + $9 }' /proc/stat; }
# `times` must run in this shell (in a $(...) subshell it sees no children), so it writes a file.
times_file=$build/times.txt
children_cpu_s() {
  awk 'NR == 2 { s = 0; for (i = 1; i <= 2; ++i) { split($i, a, /[ms]/); s += a[1] * 60 + a[2] } print s }' "$times_file"
}
results=$build/results.txt
: > "$results"
cmds=$build/commands.txt
: > "$cmds"
# run NAME ARGS...: runs $build/NAME, tees its output, records command and load around it.
run() {
  local name=$1; shift
  local before after j0 j1 c0 c1 other hz
  before=$(loadavg)
  echo "== $ompenv $name $*  (load average before: $before)" >&2
  nrun=$((nrun + 1))
  local log=$build/run$nrun.$name.out
  times > "$times_file"; j0=$(stat_jiffies); c0=$(children_cpu_s)
  "${prio[@]+"${prio[@]}"}" "$build/$name" "$@" | tee "$log" | grep -v '^RESULT' >&2
  times > "$times_file"; j1=$(stat_jiffies); c1=$(children_cpu_s)
  after=$(loadavg)
  hz=$(getconf CLK_TCK 2>/dev/null || echo 100)
  # share of all CPUs' time (over the run) used by other processes or stolen by the hypervisor
  other=$(awk -v a="$j0" -v b="$j1" -v c0="$c0" -v c1="$c1" -v hz="$hz" 'BEGIN {
    split(a, x, " "); split(b, y, " "); tot = (y[2] - x[2]) / hz; busy = (y[1] - x[1]) / hz
    o = tot > 0 ? (busy - (c1 - c0)) / tot * 100 : 0; if (o < 0) o = 0; printf "%.0f%%", o }')
  echo "   (other processes took $other of the CPUs' time during this run; load average after: $after)" >&2
  grep '^RESULT' "$log" | while read -r _ key med lo hi unit; do
    printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$key" "$med" "$lo" "$hi" "$unit" "$name $*" >> "$results"
  done
  printf '%s\t%s\t%s\t%s\n' "$name $*" "$before" "$after" "$other" >> "$cmds"
}

date_utc=$(date -u '+%Y-%m-%d %H:%M UTC')
uptime_before=$(uptime)
run fma_peak --reps "$reps"
run stream_triad --reps "$reps"
kb_args=()
for b in "${kernel_bytes[@]}"; do kb_args+=(--bytes "$b"); done
run stream_triad --reps "$reps" --type f32 "${kb_args[@]}"
run naive_matmul --reps 7
run team_wake --reps 41 --idle-ms 20 --idle-ms 120
uptime_after=$(uptime)

# ---- collect -----------------------------------------------------------------------------
get() { awk -F'\t' -v k="$1" -v f="${2:-2}" '$1 == k { print $f; exit }' "$results"; }
# best ISA for a type/core count: prints "median isa"
best_fma() {
  awk -F'\t' -v t="$1" -v c="$2" '
    { n = split($1, p, "."); if (p[1] == "fma" && p[3] == t && p[4] == c && $2 + 0 > best) { best = $2 + 0; isa = p[2] } }
    END { if (isa != "") print best, isa }' "$results"
}
read -r f32_1 f32_1_isa <<< "$(best_fma f32 1core)"
read -r f32_a f32_a_isa <<< "$(best_fma f32 allcores)"
read -r f64_1 f64_1_isa <<< "$(best_fma f64 1core)"
read -r f64_a f64_a_isa <<< "$(best_fma f64 allcores)"
triad_dram=$(get triad.f32.warm.512MiB)
triad_l3=$(get triad.f32.warm.16MiB)
naive=$(get naive_matmul.f32.1024)
fork_join=$(get omp_fork_join)
team_wake=$(get omp_team_wake.120ms)

model=$("$here/../cpu_id.sh")  # the identity results record (model name, family, model, L3)
cores_per_socket=$(lscpu | awk -F: '/^Core\(s\) per socket/ { gsub(/[ \t]/, "", $2); print $2; exit }')
sockets=$(lscpu | awk -F: '/^Socket\(s\)/ { gsub(/[ \t]/, "", $2); print $2; exit }')
tpc=$(lscpu | awk -F: '/^Thread\(s\) per core/ { gsub(/[ \t]/, "", $2); print $2; exit }')
cache() { lscpu | awk -F: -v k="$1" '$1 == k { sub(/^[ \t]+/, "", $2); print $2; exit }'; }
l1d=$(cache "L1d cache"); l2=$(cache "L2 cache"); l3=$(cache "L3 cache")
mem=$(awk '/MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo)
cxxver=$("$CXX" --version | head -1)
kernel=$(uname -r)
hyper=$(lscpu | awk -F: '/^Hypervisor vendor/ { sub(/^[ \t]+/, "", $2); print $2; exit }')
load1=$(awk '{ print $1 }' /proc/loadavg)
# Judged on the stream_triad runs: they use all threads throughout (fma_peak and naive_matmul
# leave CPUs idle in their one-thread parts, which others may use without disturbing them).
max_other=$(awk -F'\t' '$1 ~ /^stream_triad/ { v = $4 + 0; if (v > m) m = v } END { print m + 0 }' "$cmds")
# Loaded: other processes took > 10% of the CPUs during a triad run, or (at ordinary priority,
# where the load average means competition) the load average exceeded half the CPUs.
loaded=$(awk -v l="$load1" -v n="$ncpu" -v o="$max_other" -v p="$priority" \
  'BEGIN { print ((p == "none" && l > 0.5 * n) || o > 10) ? 1 : 0 }')
commit=$(git -C "$here" rev-parse --short HEAD 2>/dev/null || echo unknown)

fmt() { awk -v x="$1" 'BEGIN { if (x == "") print "n/a"; else printf "%.1f", x }'; }
spread() {  # key -> "min–max"
  awk -F'\t' -v k="$1" '$1 == k { printf "%.1f–%.1f", $3, $4; exit }' "$results"
}
bin="\$MDH_BENCH_BUILD"

# ---- markdown ----------------------------------------------------------------------------
md=$build/LIMITS.md
{
  echo "# Machine limits"
  echo
  echo "Generated by \`benchmarks/limits/run.sh\` (sources in this directory; commit $commit) on"
  echo "$date_utc. Regenerate with \`benchmarks/limits/run.sh\`; figures are medians of ≥ 7 samples"
  echo "with the min–max spread; GB/s = 10^9 B/s. These are the limits mdh's benchmarks report their"
  echo "fraction of (issues 4 and 5); \`limits.json\` holds the same figures for scripts."
  echo
  echo "## Machine"
  echo
  echo "| | |"
  echo "|---|---|"
  echo "| CPU (\`benchmarks/cpu_id.sh\`) | $model |"
  echo "| cores | $ncpu logical CPUs: $sockets socket(s) × $cores_per_socket core(s) × $tpc thread(s)${hyper:+ (virtual machine, $hyper)} |"
  echo "| caches | L1d $l1d, L2 $l2, L3 $l3 |"
  echo "| memory | $mem |"
  echo "| OS kernel | $kernel |"
  echo "| compiler | $cxxver: \`$CXXFLAGS_LIMITS\` |"
  echo "| OpenMP | \`$ompenv\` |"
  echo "| scheduling | $prio_text |"
  echo "| date | $date_utc |"
  echo "| \`uptime\` before | \`${uptime_before# }\` |"
  echo "| \`uptime\` after | \`${uptime_after# }\` |"
  echo
  if [ "$loaded" = 0 ] && [ "$priority" != none ]; then
    echo "Other processes were runnable during this run (1-minute load average $load1 at the end, on"
    echo "$ncpu CPUs), but with the raised priority above they took at most $max_other% of the CPUs'"
    echo "time during a triad run (see \"Runs and load\"); they can still have disturbed the shared L3"
    echo "and memory in that time."
    echo
  fi
  if [ "$loaded" = 1 ]; then
    echo "**The machine was loaded during this run** (1-minute load average $load1 at the end, on"
    echo "$ncpu CPUs; other processes took up to $max_other% of the CPUs' time during a triad run, see"
    echo "\"Runs and load\"): wall-clock figures are lower bounds. The per-CPU-second FMA figures"
    echo "(\`fma_cpu.*\`) are not affected by time-sharing."
    echo
  fi
  echo "## Headline figures"
  echo
  echo "| figure | median | spread | command (\`$bin/…\`, with the OpenMP settings above) |"
  echo "|---|---:|---|---|"
  echo "| FMA peak f32, 1 core ($f32_1_isa) | $(fmt "$f32_1") GFLOP/s | $(spread "fma.$f32_1_isa.f32.1core") | \`fma_peak --isa $f32_1_isa\` |"
  echo "| FMA peak f32, all $OMP_NUM_THREADS cores ($f32_a_isa) | $(fmt "$f32_a") GFLOP/s | $(spread "fma.$f32_a_isa.f32.allcores") | \`fma_peak --isa $f32_a_isa\` |"
  echo "| FMA peak f32, all cores, per CPU-second | $(fmt "$(get "fma_cpu.$f32_a_isa.f32.allcores")") GFLOP/s | $(spread "fma_cpu.$f32_a_isa.f32.allcores") | \`fma_peak --isa $f32_a_isa\` |"
  echo "| FMA peak f64, 1 core ($f64_1_isa) | $(fmt "$f64_1") GFLOP/s | $(spread "fma.$f64_1_isa.f64.1core") | \`fma_peak --isa $f64_1_isa\` |"
  echo "| FMA peak f64, all cores ($f64_a_isa) | $(fmt "$f64_a") GFLOP/s | $(spread "fma.$f64_a_isa.f64.allcores") | \`fma_peak --isa $f64_a_isa\` |"
  echo "| STREAM triad f32, DRAM (512 MiB, warm) | $(fmt "$triad_dram") GB/s | $(spread triad.f32.warm.512MiB) | \`stream_triad --bytes 512M --type f32 --mode warm\` |"
  echo "| STREAM triad f32, L3 (16 MiB, warm) | $(fmt "$triad_l3") GB/s | $(spread triad.f32.warm.16MiB) | \`stream_triad --bytes 16M --type f32 --mode warm\` |"
  echo "| STREAM triad f32, MatVec 4096² footprint ($matvec_bytes B, warm) | $(fmt "$(get "triad.f32.warm.$(label "$matvec_bytes")")") GB/s | $(spread "triad.f32.warm.$(label "$matvec_bytes")") | \`stream_triad --bytes $matvec_bytes --type f32\` |"
  echo "| STREAM triad f32, Jacobi2D 4096² footprint (128 MiB, warm) | $(fmt "$(get triad.f32.warm.128MiB)") GB/s | $(spread triad.f32.warm.128MiB) | \`stream_triad --bytes 128M --type f32\` |"
  echo "| naive i-k-j MatMul 1024³ f32, 1 thread | $(fmt "$naive") GFLOP/s | $(spread naive_matmul.f32.1024) | \`naive_matmul\` |"
  echo "| — its time per run | $(fmt "$(get naive_matmul_ms.f32.1024)") ms | $(spread naive_matmul_ms.f32.1024) | \`naive_matmul\` |"
  echo "| empty OpenMP parallel region, back to back | $(fmt "$fork_join") µs | $(spread omp_fork_join) | \`team_wake\` |"
  echo "| — after 120 ms idle (the team's threads asleep: a cold call's start) | $(fmt "$team_wake") µs | $(spread omp_team_wake.120ms) | \`team_wake --idle-ms 120\` |"
  echo
  echo "Triad GB/s count 3 arrays (STREAM's convention); with the write-allocate read of \`a\` they"
  echo "are 4/3 of that (\`triad_wa.*\` below). Cold = caches flushed (3x the L3, at least 256 MiB touched) before each"
  echo "single timed pass (below the L3 size the write-back of \`a\` falls after the timer, so cold"
  echo "figures there exceed DRAM bandwidth); warm = back-to-back passes over data already in cache"
  echo "(beyond the L3 size, i.e. from DRAM every pass)."
  echo
  echo "## All figures"
  echo
  echo "| key | median | min | max | unit | measured by (\`$bin/…\`) |"
  echo "|---|---:|---:|---:|---|---|"
  awk -F'\t' '{ printf "| `%s` | %.2f | %.2f | %.2f | %s | `%s` |\n", $1, $2, $3, $4, $5, $6 }' "$results"
  echo
  echo "## Runs and load"
  echo
  echo "| command | load average before | after | CPU time taken by other processes (and steal) during it |"
  echo "|---|---|---|---:|"
  awk -F'\t' '{ printf "| `%s` | %s | %s | %s |\n", $1, $2, $3, $4 }' "$cmds"
  echo
  echo "The last column is the share of all CPUs' time over the program's run that went to other"
  echo "processes or to the hypervisor (steal), from \`/proc/stat\` less the program's own CPU time."
  echo "While one thread runs (\`naive_matmul\`, the 1-core parts of \`fma_peak\`) the other"
  echo "$(( ncpu - 1 )) CPU(s) are free, so up to $(( (ncpu - 1) * 100 / ncpu ))% there need not have slowed it (beyond sharing the L3 and"
  echo "memory); \`stream_triad\` uses all CPUs throughout, so its share is the real interference."
  echo
  echo "Keys: \`fma.<isa>.<type>.<1core|allcores>\` wall-clock GFLOP/s; \`fma_cpu.*\` the same flops per"
  echo "CPU-second of the benchmark's threads (insensitive to other processes taking the cores);"
  echo "\`triad.<type>.<warm|cold>.<footprint>\` GB/s (3 arrays), \`triad_wa.*\` (4 arrays);"
  echo "\`naive_matmul.f32.1024\` GFLOP/s; \`omp_fork_join\`, \`omp_team_wake.<idle>ms\` µs. AVX-512 code runs at a lower clock than AVX2 on this"
  echo "class of Intel server CPU, so per-ISA figures are listed; the peak is the best ISA."
} > "$md"

# ---- json --------------------------------------------------------------------------------
js=$build/limits.json
jnum() { if [ -z "$1" ]; then echo null; else echo "$1"; fi; }
{
  echo "{"
  echo "  \"schema\": 1,"
  echo "  \"generated_by\": \"benchmarks/limits/run.sh\","
  echo "  \"date\": \"$date_utc\","
  echo "  \"machine\": {\"model\": \"$model\", \"logical_cpus\": $ncpu, \"threads_used\": $OMP_NUM_THREADS, \"l1d\": \"$l1d\", \"l2\": \"$l2\", \"l3\": \"$l3\"},"
  echo "  \"compiler\": \"$cxxver\", \"flags\": \"$CXXFLAGS_LIMITS\", \"openmp_env\": \"$ompenv\","
  echo "  \"load_average_end\": \"$(loadavg)\", \"priority\": \"$priority\","
  echo "  \"fma_peak_f32_1core_gflops\": $(jnum "$f32_1"), \"fma_peak_f32_1core_isa\": \"$f32_1_isa\","
  echo "  \"fma_peak_f32_allcores_gflops\": $(jnum "$f32_a"), \"fma_peak_f32_allcores_isa\": \"$f32_a_isa\","
  echo "  \"fma_peak_f64_1core_gflops\": $(jnum "$f64_1"), \"fma_peak_f64_1core_isa\": \"$f64_1_isa\","
  echo "  \"fma_peak_f64_allcores_gflops\": $(jnum "$f64_a"), \"fma_peak_f64_allcores_isa\": \"$f64_a_isa\","
  echo "  \"fma_peak_f32_allcores_per_cpu_second_gflops\": $(jnum "$(get "fma_cpu.$f32_a_isa.f32.allcores")"),"
  echo "  \"triad_dram_gbs\": $(jnum "$triad_dram"), \"triad_dram_bytes\": 536870912,"
  echo "  \"triad_l3_gbs\": $(jnum "$triad_l3"), \"triad_l3_bytes\": 16777216,"
  echo "  \"triad_note\": \"f32, warm, all cores, GB/s = 1e9 B/s counting 3 arrays; triad_wa.* in results count 4\","
  echo "  \"naive_matmul_f32_1024_gflops\": $(jnum "$naive"),"
  echo "  \"omp_fork_join_us\": $(jnum "$fork_join"), \"omp_team_wake_120ms_us\": $(jnum "$team_wake"),"
  echo "  \"results\": {"
  awk -F'\t' '{ printf "%s    \"%s\": {\"median\": %s, \"min\": %s, \"max\": %s, \"unit\": \"%s\", \"command\": \"%s\"}", (NR > 1 ? ",\n" : ""), $1, $2, $3, $4, $5, $6 } END { print "" }' "$results"
  echo "  }"
  echo "}"
} > "$js"

# ---- print -------------------------------------------------------------------------------
echo
sed -n '/^## Headline figures/,/^Triad GB/p' "$md" | sed '$d'
if [ "$write" = 1 ]; then
  mkdir -p "$out"
  cp "$md" "$out/LIMITS.md"
  cp "$js" "$out/limits.json"
  echo "wrote $out/LIMITS.md and $out/limits.json"
else
  echo "(not written: $md, $js)"
fi
