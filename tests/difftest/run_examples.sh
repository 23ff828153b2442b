#!/usr/bin/env bash
# Differential test of every example instantiation (tests/difftest/examples.txt:
# small, odd and prime sizes) against the interpreter: the default configuration
# plus CONFIGS random ones, per line. BACKEND openmp (the default), opencl (the GPU
# plan's kernels on the default OpenCL device — PoCL on this CPU) or cuda (the same
# kernels built by nvcc, on CUDA device 0); OPT the generated code's optimisation
# flags. Lines are split into PARTS so that runs can go side by side.
#   usage: run_examples.sh MDH_DIFFTEST SOURCE_DIR [CONFIGS] [PART PARTS] [BACKEND] [OPT]
set -u
difftest=$1 root=$2 configs=${3:-4} part=${4:-0} parts=${5:-1} backend=${6:-openmp} opt=${7:--O1}
passed=0 failed=0 n=0
while read -r file entry settings tol; do
  case "$file" in ''|'#'*) continue ;; esac
  n=$((n + 1))
  [ $(( (n - 1) % parts )) -eq "$part" ] || continue
  args=("$root/examples/$file" --entry "$entry" --set "$settings" --configs "$configs" --seed 5 --backend "$backend" --opt "$opt")
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
