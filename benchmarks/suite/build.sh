#!/usr/bin/env bash
# Builds the benchmark driver benchmarks/suite/bench_suite.cpp into $1 (default
# /work/main/build-bench/suite or $MDH_BENCH_SUITE_BUILD), with every peer library that is installed:
# OpenBLAS (cblas.h + libopenblas), oneDNN (libdnnl), Eigen (eigen3 headers), Halide 14
# (libHalide14 + its autoscheduler plugins, loaded at run time). A missing peer is left out and
# listed in <dir>/peers.txt; the driver then writes no result for it. Never part of the main build.
# Rebuilds only when the source is newer than the binary. Prints the binary's path.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-${MDH_BENCH_SUITE_BUILD:-$here/../../build-bench/suite}}
mkdir -p "$out"
bin=$out/bench_suite
defs=() libs=() incs=() peers=()
if [ -f /usr/include/x86_64-linux-gnu/cblas.h ] || [ -f /usr/include/cblas.h ] || [ -f /usr/include/x86_64-linux-gnu/openblas-pthread/cblas.h ]; then
  if ls /usr/lib/x86_64-linux-gnu/libopenblas.so > /dev/null 2>&1; then
    defs+=(-DWITH_OPENBLAS); libs+=(-lopenblas); peers+=(openblas)
    [ -d /usr/include/x86_64-linux-gnu/openblas-pthread ] && incs+=(-I/usr/include/x86_64-linux-gnu/openblas-pthread)
  fi
fi
if [ -f /usr/include/oneapi/dnnl/dnnl.hpp ]; then defs+=(-DWITH_DNNL); libs+=(-ldnnl); peers+=(onednn); fi
if [ -f /usr/include/eigen3/Eigen/Dense ]; then defs+=(-DWITH_EIGEN); incs+=(-I/usr/include/eigen3); peers+=(eigen); fi
if [ -f /usr/include/halide14/Halide.h ] && [ -e /usr/lib/x86_64-linux-gnu/libHalide14.so ]; then
  defs+=(-DWITH_HALIDE); incs+=(-I/usr/include/halide14); libs+=(-lHalide14 -ldl -lpthread); peers+=(halide)
fi
printf '%s\n' "${peers[@]+"${peers[@]}"}" > "$out/peers.txt.tmp" && mv "$out/peers.txt.tmp" "$out/peers.txt"
stamp="${defs[*]+"${defs[*]}"}"
if [ ! -x "$bin" ] || [ "$here/bench_suite.cpp" -nt "$bin" ] || [ "$(cat "$out/defs.txt" 2>/dev/null)" != "$stamp" ]; then
  # shellcheck disable=SC2086
  ${CXX:-g++} -std=c++17 -O3 -march=native -fopenmp -fno-fast-math -ffp-contract=fast \
    "${defs[@]+"${defs[@]}"}" "${incs[@]+"${incs[@]}"}" "$here/bench_suite.cpp" -o "$bin.tmp" \
    "${libs[@]+"${libs[@]}"}" -ldl >&2
  mv "$bin.tmp" "$bin"
  echo "$stamp" > "$out/defs.txt"
fi
echo "$bin"
