#!/usr/bin/env bash
# setup.sh: creates or updates (idempotently) the Python venv benchmarks/.venv with the pinned
# packages of the TVM peer (benchmarks/tvm/requirements.txt) and prints the TVM version.
# Usage: benchmarks/tvm/setup.sh        (called by scripts/install-bench-deps.sh)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
venv="$(cd "$here/.." && pwd)/.venv"
py="${PYTHON:-/usr/bin/python3}"   # not the pyenv shim on PATH
if [ ! -x "$venv/bin/python" ]; then
  "$py" -m venv "$venv"
fi
req="$here/requirements.txt"
stamp="$venv/.tvm-requirements.sha256"
want="$(sha256sum "$req" | cut -d' ' -f1)"
if [ "$(cat "$stamp" 2>/dev/null || true)" != "$want" ]; then
  "$venv/bin/pip" install --quiet --upgrade pip
  "$venv/bin/pip" install --quiet -r "$req"
  echo "$want" > "$stamp"
fi
TVM_NUM_THREADS=2 "$venv/bin/python" -c 'import tvm, xgboost; print("tvm", tvm.__version__, "xgboost", xgboost.__version__, "llvm", tvm.target.codegen.llvm_version_major(), "cpu", tvm.target.codegen.llvm_get_system_cpu())'
