#!/usr/bin/env bash
# CUDA backend benchmark, for a machine with an NVIDIA GPU: builds mdh,
# difftests the OpenCL path of the same GPU plan where an OpenCL device
# exists, compiles mdh's CUDA kernels for MatMul, MatVec and MCC (NHWC), runs
# them against cuBLAS / cuDNN (results compared, then timed) and prints a
# markdown table.  With --tune S, each workload is also tuned for S seconds
# (`mdhc tune --backend cuda`: candidates timed on the GPU, outputs checked)
# and the tuned kernel gets a row of its own beside the default's.
#   usage: benchmarks/gpu/run.sh [--compile-only] [--arch sm_90] [--tune SECONDS]
#   env:   MDHC (default build-gpu-bench/tools/mdhc, built here), NVCC, CUDA_HOME,
#          TUNE_JOBS (concurrent nvcc, default: cores - 2), TUNE_DB (tuning database
#          directory, default a temporary one), TUNE_OUT (a directory for the tuned
#          configurations and the tuner's reports)
# --compile-only (used by the test suite, no GPU needed): only checks that the
# driver compiles with nvcc; skips with a message when nvcc is absent.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
compileOnly=0 arch=sm_80 tuneSeconds=0
while [ $# -gt 0 ]; do
  case "$1" in
    --compile-only) compileOnly=1 ;;
    --arch) arch=$2; shift ;;
    --tune) tuneSeconds=$2; shift ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
cuda=${CUDA_HOME:-/usr/local/cuda}
nvcc=${NVCC:-$(command -v nvcc || echo "$cuda/bin/nvcc")}
if [ ! -x "$nvcc" ]; then echo "SKIP: nvcc not found (PATH, \$NVCC, $cuda/bin)"; exit 0; fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
flags=(-std=c++17 -O3 -arch="$arch" -I"$cuda/include")
# cuBLAS and cuDNN: the toolkit's, the system's, or NVIDIA's Python wheels
# (whose libraries have only versioned names, so they are linked by path).
searchRoots=("${CUDNN_HOME:-}" "$cuda" /usr/include /usr/lib/x86_64-linux-gnu /opt)
if command -v python3 >/dev/null; then
  read -r -a sitePackages <<< "$(python3 -c 'import site; print(" ".join(site.getsitepackages()))' 2>/dev/null || true)"
  for d in "${sitePackages[@]}"; do searchRoots+=("$d/nvidia"); done
fi
findFirst() { # NAME-PATTERN: the first such file under the search roots
  for d in "${searchRoots[@]}"; do
    [ -n "$d" ] && [ -d "$d" ] || continue
    f=$(find -L "$d" -name "$1" \( -type f -o -type l \) 2>/dev/null | sort | head -1)
    [ -n "$f" ] && { echo "$f"; return 0; }
  done
  return 1
}
if [ "$compileOnly" = 1 ]; then
  if header=$(findFirst cudnn.h); then flags+=(-I"$(dirname "$header")"); fi
  "$nvcc" "${flags[@]}" -c "$root/benchmarks/gpu/driver.cu" -o "$work/driver.o"
  echo "benchmarks/gpu/driver.cu compiles with $nvcc ($arch)"
  exit 0
fi
nvidia-smi -L >/dev/null 2>&1 || { echo "error: no NVIDIA GPU (nvidia-smi -L failed)"; exit 1; }
mdhc=${MDHC:-}
if [ -z "$mdhc" ]; then
  cmake -S "$root" -B "$root/build-gpu-bench" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
  ninja -C "$root/build-gpu-bench" mdhc mdh-difftest >/dev/null
  mdhc=$root/build-gpu-bench/tools/mdhc
  # The kernels CUDA runs are the kernels the OpenCL backend runs: difftest them where OpenCL exists.
  if "$root/build-gpu-bench/tools/mdh-difftest" "$root/examples/matmul.mdh" --entry matmul --set T=f32,I=19,J=33,K=17 \
       --configs 4 --backend opencl >/dev/null 2>&1; then echo "difftest (OpenCL, same GPU plan): ok"; fi
fi
workloads=(
  "matmul.mdh matmul T=f32,I=4096,J=4096,K=4096 bench_matmul"
  "matvec.mdh matvec T=f32,I=8192,K=8192 bench_matvec"
  "mcc.mdh mcc T=f32,N=1,P=112,Q=112,K=64,R=7,S=7,C=3 bench_mcc"
)
variants=(default)
[ "$tuneSeconds" != 0 ] && variants+=(tuned)
tuneJobs=${TUNE_JOBS:-$(( $(nproc) > 3 ? $(nproc) - 2 : 1 ))}
tuneDb=${TUNE_DB:-$work/db}
tuneOut=${TUNE_OUT:-$work/tuned}
mkdir -p "$tuneOut"
for v in "${variants[@]}"; do
  mkdir -p "$work/$v"
  for line in "${workloads[@]}"; do
    read -r file entry settings name <<< "$line"
    config=()
    if [ "$v" = tuned ]; then
      echo "tuning $name for $tuneSeconds s ($tuneJobs concurrent nvcc)" >&2
      "$mdhc" tune "$root/examples/$file" --entry "$entry" --set "$settings" --backend cuda --seconds "$tuneSeconds" \
        --jobs "$tuneJobs" --db "$tuneDb" --report "$tuneOut/$name" -o "$tuneOut/$name.json" 2> "$tuneOut/$name.log" ||
        { cat "$tuneOut/$name.log" >&2; echo "error: tuning $name failed" >&2; exit 1; }
      grep "^tune: best" "$tuneOut/$name.log" >&2 || true
      # The label counts every session in the database (a resumed tuning included).
      "$mdhc" tune "$root/examples/$file" --entry "$entry" --set "$settings" --backend cuda --db "$tuneDb" --show \
        > "$tuneOut/$name.show" 2>&1 || true
      spent=$(sed -n 's/^measurements: \([0-9]*\) .* \([0-9]*\) s of tuning.*/\2 s, \1 candidates/p' "$tuneOut/$name.show")
      echo "${spent:-$tuneSeconds s}" > "$work/tuned/$name.label"
      config=(--config "$tuneOut/$name.json")
    fi
    "$mdhc" compile "$root/examples/$file" --entry "$entry" --set "$settings" --backend cuda --name "$name" "${config[@]}" \
      -o "$work/$v" >/dev/null
  done
done
libs=() found=()
for lib in cublas cublasLt cudnn; do
  if f=$(findFirst "lib$lib.so") || f=$(findFirst "lib$lib.so.*[0-9]"); then
    libs+=("$f" -Xlinker -rpath -Xlinker "$(dirname "$f")") found+=("$f")
  else
    echo "error: lib$lib.so not found (looked under ${searchRoots[*]}; set CUDNN_HOME)"; exit 1
  fi
done
header=$(findFirst cudnn.h) || { echo "error: cudnn.h not found (looked under ${searchRoots[*]}; set CUDNN_HOME)"; exit 1; }
flags+=(-I"$(dirname "$header")")
echo "cuBLAS/cuDNN: ${found[*]} $header"
for v in "${variants[@]}"; do
  "$nvcc" "${flags[@]}" "$root/benchmarks/gpu/driver.cu" "$work/$v"/bench_*.cu -o "$work/$v/driver" "${libs[@]}"
done
echo "| workload | mdh ms | mdh GFLOP/s | vendor ms | vendor GFLOP/s | vendor | vendor/mdh time | results |"
echo "|---|---|---|---|---|---|---|---|"
status=0
for args in "matmul 4096 4096 4096" "matvec 8192 8192" "mcc 1 112 112 64 7 7 3"; do
  for v in "${variants[@]}"; do
    label="mdh $v"
    [ "$v" = tuned ] && label="mdh tuned $(cat "$work/tuned/bench_${args%% *}.label")"
    # shellcheck disable=SC2086
    MDH_VARIANT=$label "$work/$v/driver" $args || status=1
  done
done
exit $status
