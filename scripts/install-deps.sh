#!/usr/bin/env bash
# Installs everything mdh needs on a fresh Debian 12 machine (Debian packages
# only; idempotent).  Run as root or with sudo available.
set -euo pipefail
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
packages=(
  build-essential cmake ninja-build pkg-config git python3
  antlr4 libantlr4-runtime-dev          # grammar -> C++ parser (tool 4.7.2, runtime 4.9)
  libfmt-dev libcli11-dev doctest-dev   # output, command lines, unit tests
  libboost-dev                          # Boost.Multiprecision (interpreter's high-precision mode)
  nlohmann-json3-dev                    # configurations, tuning database, LSP
  libedit-dev                           # REPL line editing
  llvm-14-tools clang-14 libclang-rt-14-dev  # FileCheck golden tests, libFuzzer
  libomp-14-dev                         # generated OpenMP code built by Clang too (tests/cli)
  ocl-icd-opencl-dev opencl-headers pocl-opencl-icd  # OpenCL backend on the CPU
  python3-numpy                         # independent references in tests
  python3-pexpect tmux                  # interpreter REPL tests on a terminal
  neovim                                # a real editor as LSP client (tests/lsp/nvim)
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing: ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
