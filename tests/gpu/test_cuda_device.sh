#!/usr/bin/env bash
# `--backend cuda` of mdhc run, mdh-difftest and mdhc tune.  Without an
# NVIDIA driver or device all must stop with a clear message (which of the
# two is missing, and that --backend opencl runs the same kernels) and their
# exit status, not crash; with a GPU, an example must run and match the
# interpreter, and tuning it must give a cuda configuration that matches too.
set -u
mdhc=$1 difftest=$2 root=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
example=("$root/examples/matmul.mdh" --entry matmul --set T=f32,I=19,J=33,K=17)
if out=$("$difftest" "${example[@]}" --configs 2 --backend cuda 2>&1); then
  echo "$out"
  echo "$out" | grep -q "CUDA device 0:" || { echo "expected the device to be named"; exit 1; }
  "$mdhc" run "${example[@]}" --backend cuda -q || { echo "mdhc run --backend cuda failed on a GPU machine"; exit 1; }
  "$mdhc" tune "${example[@]}" --backend cuda --evaluations 6 --batch 3 --seed 3 --db "$tmp/db" -o "$tmp/best.json" 2>"$tmp/log" ||
    { cat "$tmp/log"; echo "mdhc tune --backend cuda failed on a GPU machine"; exit 1; }
  tail -2 "$tmp/log"
  grep -q '"model": "cuda"' "$tmp/best.json" || { cat "$tmp/best.json"; echo "the tuned configuration is not a cuda one"; exit 1; }
  grep -h '"backend"' "$tmp/db"/*.jsonl | head -1 | grep -q '"backend":"cuda".*CUDA device: ' ||
    { echo "the database key does not say backend cuda and name the device"; exit 1; }
  "$difftest" "${example[@]}" --backend cuda --configs 0 --config "$tmp/best.json" ||
    { echo "the tuned CUDA configuration does not match the interpreter"; exit 1; }
  echo "ok: a CUDA device is here, the example matches the interpreter, tuned and untuned"
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
out=$("$mdhc" tune "${example[@]}" --backend cuda --evaluations 2 --db "$tmp/db" 2>&1)
rc=$?
echo "$out"
[ "$rc" -eq 1 ] || { echo "mdhc tune: expected exit status 1 without a GPU, got $rc"; exit 1; }
echo "$out" | grep -Eq "error: cannot tune for CUDA: (no CUDA driver found|the CUDA driver)" || { echo "expected the missing driver or device to be named"; exit 1; }
echo "$out" | grep -q -- "--backend opencl" || { echo "expected the OpenCL alternative to be named"; exit 1; }
[ ! -e "$tmp/db" ] || [ -z "$(ls -A "$tmp/db")" ] || { echo "mdhc tune wrote a database without a device"; exit 1; }
echo "ok: no CUDA device here, the three tools said so"
