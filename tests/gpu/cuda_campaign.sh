#!/usr/bin/env bash
# The CUDA backend on a machine with an NVIDIA GPU, in one go: every example
# of tests/difftest/examples.txt (default + random configurations) and a
# campaign of generated programs, each built by nvcc, run on CUDA device 0
# and compared with the interpreter; then benchmarks/gpu/run.sh (MatMul,
# MatVec, MCC against cuBLAS / cuDNN).  Parts run side by side (JOBS).
# Not part of ctest (CI has no GPU); gpu/cuda-device checks the no-GPU path.
#   usage: tests/gpu/cuda_campaign.sh MDHC MDH_DIFFTEST [CONFIGS] [PROGRAMS_PER_JOB]
#   env:   JOBS (default: cores - 2), SEED (default 1127), LOGS (a directory for each part's log),
#          BENCH=0 skips the benchmark
set -u
mdhc=$1 difftest=$2 configs=${3:-3} programs=${4:-8}
root=$(cd "$(dirname "$0")/../.." && pwd)
jobs=${JOBS:-$(( $(nproc) > 3 ? $(nproc) - 2 : 1 ))}
seed=${SEED:-1127}
logs=${LOGS:-$(mktemp -d)}
mkdir -p "$logs"
status=0
start=$(date +%s)
"$difftest" "$root/examples/dot.mdh" --entry dot --set T=i32,K=5 --configs 0 --backend cuda || exit 2
echo "== examples: $jobs parts, $configs random configurations each"
for p in $(seq 0 $((jobs - 1))); do
  "$root/tests/difftest/run_examples.sh" "$difftest" "$root" "$configs" "$p" "$jobs" cuda -O0 > "$logs/examples-$p.log" 2>&1 &
done
wait
for p in $(seq 0 $((jobs - 1))); do
  grep -q ", 0 failed$" "$logs/examples-$p.log" || { status=1; cat "$logs/examples-$p.log"; }
done
grep -h "passed," "$logs"/examples-*.log | awk '{p += $1; f += $3} END {print "examples: " p " passed, " f " failed"}'
echo "== regressions (tests/gpu/regressions, tests/difftest/regressions)"
n=0
for case in "$root"/tests/gpu/regressions/*.mdh "$root"/tests/difftest/regressions/*.mdh; do
  for entry in $(sed -n 's/^mdh \([a-z0-9_]*\).*/\1/p' "$case"); do
    "$difftest" "$case" --entry "$entry" --configs "$configs" --seed 3 --backend cuda --opt -O0 > "$logs/regression-$n.log" 2>&1 &
    n=$((n + 1))
    [ $((n % jobs)) -eq 0 ] && wait
  done
done
wait
for i in $(seq 0 $((n - 1))); do
  grep -q ", 0 failed$" "$logs/regression-$i.log" || { status=1; head -40 "$logs/regression-$i.log"; }
done
grep -h "passed," "$logs"/regression-*.log | awk '{p += $1; f += $3} END {print "regressions: " p " passed, " f " failed"}'
# The configuration that failed on an H200 (tests/gpu/regressions/remainder_item_min_f64.mdh), exactly.
"$difftest" "$root/tests/gpu/regressions/remainder_item_min_f64.mdh" --entry prog --seed 1138003417 --backend cuda --configs 0 \
  --config '{"levels":[{"layer":"BLK","order":[1,0],"tile":[3,5]},{"layer":"THR","order":[0,1],"tile":[3,4]}]}' \
  > "$logs/remainder-item.log" 2>&1 || { status=1; cat "$logs/remainder-item.log"; }
tail -1 "$logs/remainder-item.log"
echo "== larger sizes (many blocks, multi-block scans and reductions)"
large=(
  "matmul.mdh matmul T=f32,I=257,J=129,K=511"
  "mcc.mdh mcc T=f32,N=2,P=31,Q=29,K=37,R=3,S=3,C=5"
  "dot.mdh dot T=f32,K=1000003"
  "scan.mdh prefix_sum T=i32,N=100003"
  "scan.mdh scan_running_max T=i32,N=65537"
  "jacobi3d.mdh jacobi3d T=f32,N1=67,N2=33,N3=129"
  "histo.mdh histo T=u8,E=100003,B=255"
  "matvec.mdh matvec T=f32,I=4099,K=1031"
  "reduce.mdh reduce_max T=i32,N=1048577"
  "mbbs.mdh mbbs T=i32,I=1001,J=257"
)
n=0
for line in "${large[@]}"; do
  read -r file entry settings <<< "$line"
  "$difftest" "$root/examples/$file" --entry "$entry" --set "$settings" --configs "$configs" --seed 9 --backend cuda --opt -O0 \
    > "$logs/large-$n.log" 2>&1 &
  n=$((n + 1))
done
wait
for i in $(seq 0 $((n - 1))); do
  grep -q ", 0 failed$" "$logs/large-$i.log" || { status=1; echo "FAIL ${large[$i]}"; head -40 "$logs/large-$i.log"; }
done
grep -h "passed," "$logs"/large-*.log | awk '{p += $1; f += $3} END {print "larger sizes: " p " passed, " f " failed"}'
echo "== generated programs: $jobs jobs x $programs programs, $configs random configurations each ($(( $(date +%s) - start )) s so far)"
for j in $(seq 0 $((jobs - 1))); do
  "$difftest" --generate "$programs" --configs "$configs" --seed $((seed + j)) --backend cuda --opt -O0 > "$logs/generated-$j.log" 2>&1 &
done
wait
for j in $(seq 0 $((jobs - 1))); do
  grep -q ", 0 failed$" "$logs/generated-$j.log" || { status=1; grep -v "^difftest: CUDA device" "$logs/generated-$j.log" | head -60; }
done
grep -h "passed," "$logs"/generated-*.log | awk '{p += $1; f += $3} END {print "generated: " p " passed, " f " failed"}'
if [ "${BENCH:-1}" != 0 ]; then
  echo "== benchmarks/gpu/run.sh ($(( $(date +%s) - start )) s so far)"
  cc=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -1 | tr -d '. ')
  MDHC=$mdhc "$root/benchmarks/gpu/run.sh" --arch "sm_${cc:-80}" || status=1
fi
echo "== done in $(( $(date +%s) - start )) s, status $status"
exit $status
