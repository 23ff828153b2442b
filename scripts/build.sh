#!/usr/bin/env bash
# Configures and builds mdh in ./build (Release-with-debug-info, Ninja, -j2).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${MDH_BUILD_DIR:-$root/build}
jobs=${MDH_JOBS:-2}
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@" > /dev/null
cmake --build "$build" -j "$jobs"
