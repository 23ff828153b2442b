#!/usr/bin/env bash
# A host compiler that drops mdh's GCC 12 workaround flag (--param=vrp2-mode=vrp), so that a
# test can show the generated source is right without it (docs/compiler.md, "A host-compiler
# bug"). Runs $CXX, else c++, with every other argument unchanged.
args=()
for a in "$@"; do
  [ "$a" = "--param=vrp2-mode=vrp" ] || args+=("$a")
done
exec "${CXX:-c++}" "${args[@]}"
