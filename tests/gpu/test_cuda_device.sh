#!/usr/bin/env bash
# `--backend cuda` of mdhc run and mdh-difftest.  Without an NVIDIA driver or
# device both must stop with a clear message (which of the two is missing,
# and that --backend opencl runs the same kernels) and their usage exit
# status, not crash; with a GPU, an example must run and match the interpreter.
set -u
mdhc=$1 difftest=$2 root=$3
example=("$root/examples/matmul.mdh" --entry matmul --set T=f32,I=19,J=33,K=17)
if out=$("$difftest" "${example[@]}" --configs 2 --backend cuda 2>&1); then
  echo "$out"
  echo "$out" | grep -q "CUDA device 0:" || { echo "expected the device to be named"; exit 1; }
  "$mdhc" run "${example[@]}" --backend cuda -q || { echo "mdhc run --backend cuda failed on a GPU machine"; exit 1; }
  echo "ok: a CUDA device is here and the example matches the interpreter"
  exit 0
else
  rc=$?
fi
echo "$out"
[ "$rc" -eq 2 ] || { echo "mdh-difftest: expected exit status 2 without a GPU, got $rc"; exit 1; }
echo "$out" | grep -Eq "error: --backend cuda: (no CUDA driver found|the CUDA driver)" || { echo "expected the missing driver or device to be named"; exit 1; }
echo "$out" | grep -q -- "--backend opencl" || { echo "expected the OpenCL alternative to be named"; exit 1; }
out=$("$mdhc" run "${example[@]}" --backend cuda 2>&1)
rc=$?
echo "$out"
[ "$rc" -eq 1 ] || { echo "mdhc run: expected exit status 1 without a GPU, got $rc"; exit 1; }
echo "$out" | grep -Eq "error: --backend cuda: (no CUDA driver found|the CUDA driver)" || { echo "expected the missing driver or device to be named"; exit 1; }
echo "ok: no CUDA device here, both tools said so"
