#!/usr/bin/env bash
# Installs the peer libraries of the issue-5 benchmarks (benchmarks/run_all.sh) on Debian 12
# (Debian packages only; idempotent), then the TVM peer's environment through
# benchmarks/tvm/setup.sh when that script exists (owned by the TVM benchmark). Run as root or
# with sudo available. mdh itself needs none of these (scripts/install-deps.sh).
set -euo pipefail
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
packages=(
  libopenblas-dev                  # OpenBLAS: sgemm/sgemv/sdot peer (OPENBLAS_CORETYPE per workload)
  libdnnl-dev                      # oneDNN: matmul and convolution primitives (MatMul shapes, MCC)
  libeigen3-dev                    # Eigen: GEMM/GEMV/dot and Tensor contractions (CCSD(T))
  libhalide14-0-dev                # Halide 14 + autoscheduler plugins: stencils, MCC, MatMul
  python3-numpy python3-matplotlib # RESULTS.md plots (benchmarks/suite/report.py)
  util-linux                       # chrt: real-time priority for the timed processes
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing: ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
  echo "benchmark peers already installed"
fi
root=$(cd "$(dirname "$0")/.." && pwd)
if [ -x "$root/benchmarks/tvm/setup.sh" ] || [ -f "$root/benchmarks/tvm/setup.sh" ]; then
  bash "$root/benchmarks/tvm/setup.sh"
else
  echo "benchmarks/tvm/setup.sh not present: TVM peer not set up (run_all.sh skips it)"
fi
