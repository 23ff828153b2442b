#!/usr/bin/env bash
# Every example instantiation of tests/difftest/examples.txt, compiled to CUDA
# by `mdhc compile --backend cuda` (default configuration) and then by nvcc
# for sm_80 and sm_90 in one invocation.  CUDA kernels are compiled, not run
# (no GPU here).  Skips (exit 0 with a message) only when nvcc is truly absent.
#   usage: compile_cuda_examples.sh MDHC SOURCE_DIR [PART PARTS]
set -u
mdhc=$1 root=$2 part=${3:-0} parts=${4:-1}
nvcc=""
for c in "${NVCC:-}" "$(command -v nvcc 2>/dev/null)" /usr/local/cuda/bin/nvcc /usr/local/cuda-*/bin/nvcc /opt/cuda/bin/nvcc; do
  if [ -n "$c" ] && [ -x "$c" ]; then nvcc=$c; break; fi
done
if [ -z "$nvcc" ]; then
  echo "SKIP: nvcc not found (looked at \$NVCC, PATH, /usr/local/cuda*/bin, /opt/cuda/bin)"
  exit 0
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
passed=0 failed=0 n=0
while read -r file entry settings tol; do
  case "$file" in ''|'#'*) continue ;; esac
  n=$((n + 1))
  [ $(( (n - 1) % parts )) -eq "$part" ] || continue
  dir="$work/$n"
  if ! out=$("$mdhc" compile "$root/examples/$file" --entry "$entry" --set "$settings" --backend cuda -o "$dir" 2>&1); then
    failed=$((failed + 1)); echo "FAIL (mdhc) $file $entry $settings"; echo "$out" | head -20; continue
  fi
  cu=$(ls "$dir"/*.cu)
  if out=$("$nvcc" -std=c++17 -O1 -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90 \
             -c "$cu" -o "$dir/k.o" 2>&1); then
    passed=$((passed + 1))
  else
    failed=$((failed + 1)); echo "FAIL (nvcc) $file $entry $settings"; echo "$out" | head -30
  fi
done < "$root/tests/difftest/examples.txt"
echo "cuda examples (part $part of $parts): $passed compiled for sm_80 and sm_90 with $nvcc, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
