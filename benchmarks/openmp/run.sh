#!/usr/bin/env bash
# Builds the three kernels with mdhc's default configuration, compiles the
# benchmark driver against them and runs it; prints a markdown table.
#   usage: benchmarks/openmp/run.sh [BUILD_DIR]   (default: ./build)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build}
mdhc=$build/tools/mdhc
out=${MDH_BENCH_BUILD:-/tmp/mdh-bench-openmp}
mkdir -p "$out"
"$mdhc" compile "$root/examples/matmul.mdh" --entry matmul --set T=f32,I=1024,J=1024,K=1024 --name matmul_bench -o "$out" > /dev/null
"$mdhc" compile "$root/examples/matvec.mdh" --entry matvec --set T=f32,I=4096,K=4096 --name matvec_bench -o "$out" > /dev/null
"$mdhc" compile "$root/examples/jacobi2d.mdh" --entry jacobi2d --set T=f32,N1=4094,N2=4094 --name jacobi2d_bench -o "$out" > /dev/null
flags="-std=c++17 -O3 -march=native -fopenmp -fno-fast-math -ffp-contract=fast"
${CXX:-c++} $flags -I "$out" "$out"/matmul_bench.cpp "$out"/matvec_bench.cpp "$out"/jacobi2d_bench.cpp \
  "$root/benchmarks/openmp/bench_openmp.cpp" -o "$out/bench_openmp"
echo "machine: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) cores; load: $(cut -d' ' -f1-3 /proc/loadavg)"
# The build machines are shared and noisy: like benchmarks/limits, run at
# real-time priority when allowed (MDH_BENCH_PRIORITY=none to disable).
prio=()
if [ "${MDH_BENCH_PRIORITY:-rt}" = rt ] && chrt -f 10 true 2>/dev/null; then prio=(chrt -f 10); echo "priority: chrt -f 10"; fi
OMP_PROC_BIND=${OMP_PROC_BIND:-close} "${prio[@]}" "$out/bench_openmp"
