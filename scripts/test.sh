#!/usr/bin/env bash
# The test command: installs dependencies, builds, and runs the whole default
# test suite with ctest (about 10-20 minutes on 2 cores).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/install-deps.sh"
"$root/scripts/build.sh"
cd "${MDH_BUILD_DIR:-$root/build}"
ctest --output-on-failure -j "${MDH_JOBS:-2}" "$@"
