#!/usr/bin/env bash
# The generated OpenMP code built by Clang (MDH_CXX=clang++-14) instead of
# GCC: `mdhc run` must accept the emitted flags and helpers (GCC-only flags
# once broke it) and compute what `mdhi run` computes.  Integer programs, so
# the outputs are compared byte for byte: a convolution whose register tile's
# rows read overlapping windows (the mdh_opaque path, with a remainder tile)
# and a matrix product at prime sizes.  Exit 77 (skipped) when Clang or its
# OpenMP runtime is missing.
set -euo pipefail
mdhc=$1 mdhi=$2 root=$3
cxx=clang++-14
command -v "$cxx" > /dev/null || { echo "skipped: $cxx not installed"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo '#include <omp.h>' > "$tmp/omp.cpp"
"$cxx" -fopenmp -fsyntax-only "$tmp/omp.cpp" 2> /dev/null || { echo "skipped: no OpenMP for $cxx (libomp-14-dev)"; exit 77; }
run_both() { # FILE ENTRY SET CONFIG OUTPUT
  local cfg=()
  [ -n "$4" ] && cfg=(--config "$4")
  MDH_CXX=$cxx "$mdhc" run -q "$1" --entry "$2" --set "$3" "${cfg[@]}" --seed 7 --out "$5=$tmp/clang.npy" > /dev/null
  "$mdhi" run -q "$1" --entry "$2" --set "$3" --seed 7 --out "$5=$tmp/ref.npy" > /dev/null
  cmp -s "$tmp/clang.npy" "$tmp/ref.npy" || { echo "FAIL: $2 $3 built by $cxx differs from mdhi"; exit 1; }
  echo "ok: $2 $3 built by $cxx"
}
conv_set=T=i32,N=1,P=5,Q=23,K=32,R=3,S=3,C=3
conv_rows_along_q='{"levels":[{"layer":"COR","tile":[1,5,23,32,3,3,3]},{"layer":"L2","tile":[1,5,23,32,3,3,3]},{"layer":"RM","tile":[1,1,12,32,1,1,3]}],"simd_dim":3}'
run_both "$root/examples/mcc.mdh" mcc "$conv_set" "$conv_rows_along_q" O
grep -q "mdh_opaque(&" <("$mdhc" --emit=code "$root/examples/mcc.mdh" --entry mcc --set "$conv_set" --config "$conv_rows_along_q") \
  || { echo "FAIL: the convolution's tile does not take the mdh_opaque path"; exit 1; }
run_both "$root/examples/matmul.mdh" matmul T=i32,I=37,J=41,K=29 "" C
# The flags `mdhc compile` prints mean the same to Clang (contraction last: Clang's
# -fno-fast-math resets it) and the code builds without warnings (records: `omp simd`
# loops Clang cannot vectorise warned, one per loop).
flags=$("$mdhc" compile "$root/examples/prl.mdh" --entry prl_dyn -o "$tmp/prl" | sed -n 's|.*build with: c++ \(.*\) -c .*|\1|p' | head -1)
[ -n "$flags" ] || { echo "FAIL: no build command printed"; exit 1; }
"$cxx" $flags -Werror -c "$tmp"/prl/prl_dyn_dyn.cpp -o "$tmp/prl.o" || { echo "FAIL: $cxx $flags warned or failed"; exit 1; }
echo "ok: $cxx $flags builds the generated records code without warnings"
