#!/usr/bin/env bash
# Generated code of user names that collide with C, C++, OpenCL, CUDA or the
# generated code's own names (tests/gpu/names/names.mdh) for every `mdh`
# entry of CASE:
#   openmp  differential test of the OpenMP code against the interpreter;
#   opencl  the same for the OpenCL code (PoCL);
#   cuda    `mdhc compile --backend cuda`, then nvcc for sm_80 (skipped
#           without nvcc);
#   headers each backend's headers of all entries, compiled together as
#           C++17 after <cmath>, <climits>, <cstdio>, ...; the OpenMP and
#           OpenCL headers also each alone as C11 after <math.h>, <limits.h>,
#           <stdio.h>, ... (gcc -std=c11 -Wall -Wextra -Werror).
#   usage: check_names.sh MDHC MDH_DIFFTEST CASE openmp|opencl|cuda|headers
set -u
mdhc=$1 difftest=$2 case=$3 what=$4
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
nvcc=""
for c in "${NVCC:-}" "$(command -v nvcc 2>/dev/null)" /usr/local/cuda/bin/nvcc /usr/local/cuda-*/bin/nvcc; do
  if [ -n "$c" ] && [ -x "$c" ]; then nvcc=$c; break; fi
done
cuda_include=$(dirname "$(dirname "${nvcc:-/usr/local/cuda/bin/nvcc}")")/include
entries=$(sed -n 's/^mdh \([A-Za-z0-9_]*\).*/\1/p' "$case")
failed=0
fail() { failed=$((failed + 1)); echo "FAIL $*"; }
compile() { # ENTRY BACKEND: mdhc compile into $work/BACKEND/ENTRY
  "$mdhc" compile "$case" --entry "$1" --backend "$2" -q -o "$work/$2/$1" > "$work/log" 2>&1 || { fail "mdhc compile $1 --backend $2"; cat "$work/log"; }
}
c_prelude='#include <math.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <errno.h>
#include <string.h>'
cxx_prelude='#include <cmath>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cerrno>
#include <cstring>
#include <omp.h>'
case $what in
openmp | opencl)
  for e in $entries; do
    "$difftest" "$case" --entry "$e" --configs 3 --seed 11 --backend "$what" --opt -O0 > "$work/log" 2>&1 ||
      { fail "difftest $e --backend $what"; tail -30 "$work/log"; }
  done ;;
cuda)
  if [ -z "$nvcc" ]; then echo "SKIP: nvcc not found"; exit 0; fi
  for e in $entries; do
    compile "$e" cuda
    "$nvcc" -std=c++17 -O1 -arch=sm_80 -c "$work/cuda/$e"/*.cu -o "$work/$e.o" > "$work/log" 2>&1 ||
      { fail "nvcc $e"; head -30 "$work/log"; }
  done ;;
headers)
  backends="openmp opencl"
  [ -n "$nvcc" ] && backends="$backends cuda"
  for b in $backends; do printf '%s\n' "$cxx_prelude" > "$work/$b-all.cpp"; done
  for e in $entries; do
    for b in $backends; do
      compile "$e" "$b"
      h=$(ls "$work/$b/$e"/*.h)
      echo "#include \"$h\"" >> "$work/$b-all.cpp"
      [ "$b" = cuda ] && continue
      printf '%s\n#include "%s"\n' "$c_prelude" "$h" > "$work/$b-$e.c"
      gcc -std=c11 -Wall -Wextra -Werror -c "$work/$b-$e.c" -o "$work/$b-$e.o" > "$work/log" 2>&1 ||
        { fail "$b header of $e as C11"; head -30 "$work/log"; }
    done
  done
  for b in $backends; do
    g++ -std=c++17 -Wall -Wextra -Werror -fopenmp -I"$cuda_include" -c "$work/$b-all.cpp" -o "$work/$b-all.o" > "$work/log" 2>&1 ||
      { fail "the $b headers of all entries together as C++17"; head -40 "$work/log"; }
  done ;;
*) echo "usage: check_names.sh MDHC MDH_DIFFTEST CASE openmp|opencl|cuda|headers"; exit 2 ;;
esac
echo "names ($what): $(echo $entries | wc -w) entries, $failed failed"
[ "$failed" -eq 0 ]
