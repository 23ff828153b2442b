#!/usr/bin/env bash
# The main job on a bundled example: installs dependencies, builds, checks
# examples/matvec.mdh and prints its instantiated high-level expression.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/install-deps.sh"
"$root/scripts/build.sh"
bin="${MDH_BUILD_DIR:-$root/build}/tools"
cd "$root"
echo "== mdhc check examples/matvec.mdh"
"$bin/mdhc" check examples/matvec.mdh && echo "ok"
echo "== mdhc --emit=hl examples/matvec.mdh --entry matvec --set T=f32,I=1024,K=512"
"$bin/mdhc" --emit=hl examples/matvec.mdh --entry matvec --set T=f32,I=1024,K=512
echo "== mdhi run examples/matvec.mdh --entry matvec --set T=f32,I=4,K=3   (interpreter, random inputs, seed 1)"
"$bin/mdhi" run examples/matvec.mdh --entry matvec --set T=f32,I=4,K=3 --seed 1
echo "== mdhc run examples/matvec.mdh --entry matvec --set T=f32,I=4,K=3   (generated OpenMP code, same inputs)"
"$bin/mdhc" run examples/matvec.mdh --entry matvec --set T=f32,I=4,K=3 --seed 1
echo "== mdhc --emit=ll (the low-level expression of the default configuration, MatVec 1024 x 512)"
"$bin/mdhc" --emit=ll examples/matvec.mdh --entry matvec --set T=f32,I=1024,K=512
