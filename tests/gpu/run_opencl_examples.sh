#!/usr/bin/env bash
# Differential test of the GPU plan's kernels against the interpreter, for
# every example instantiation of tests/difftest/examples.txt: the default GPU
# configuration plus random ones.  BACKEND opencl (the default) runs them on
# the default OpenCL device — PoCL on this CPU; cuda builds the same kernels
# with nvcc and runs them on CUDA device 0 (where there is an NVIDIA GPU).
# Lines are split into PARTS so that ctest -j2 runs two halves side by side.
#   usage: run_opencl_examples.sh MDH_DIFFTEST SOURCE_DIR CONFIGS PART PARTS [BACKEND]
set -u
difftest=$1 root=$2 configs=${3:-2} part=${4:-0} parts=${5:-1} backend=${6:-opencl}
passed=0 failed=0 n=0
while read -r file entry settings tol; do
  case "$file" in ''|'#'*) continue ;; esac
  n=$((n + 1))
  [ $(( (n - 1) % parts )) -eq "$part" ] || continue
  args=("$root/examples/$file" --entry "$entry" --set "$settings" --configs "$configs" --seed 5 --backend "$backend" --opt -O0)
  [ -n "${tol:-}" ] && args+=(--float-tolerance "$tol")
  if out=$("$difftest" "${args[@]}" 2>&1); then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    echo "FAIL $file $entry $settings"
    echo "$out" | head -40
  fi
done < "$root/tests/difftest/examples.txt"
echo "$backend difftest examples (part $part of $parts): $((passed + failed)) instantiations, $configs random configurations each"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
