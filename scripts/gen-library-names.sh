#!/usr/bin/env bash
# Regenerates src/codegen/LibraryNames.cpp: the names that the headers and
# libraries of the generated code declare, which CNames.cpp keeps user names
# away from (docs/compiler.md, "Generated code").  Collected on this machine:
#   * object-like macros (`-dM`) of the C11 standard headers, the C++ headers
#     the generated code includes, <omp.h>, <CL/cl.h> and (through nvcc)
#     <cuda_runtime.h>;
#   * their function-like macros, the names declared at global scope in the
#     same headers (ctags over the preprocessed text) and the symbols that
#     libc, libm, libgomp, libOpenCL and libcudart export.
# Left out: names starting with `_` and the library prefixes that CNames.cpp
# reserves whole (cl_ CL_ clX CLK_ cuda CUDA cuX CU_ omp_ OMP_ GOMP_).
#   usage: scripts/gen-library-names.sh   (needs gcc, g++, nvcc, ctags, nm)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=$root/src/codegen/LibraryNames.cpp
nvcc=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
cudart=$(dirname "$(dirname "$nvcc")")/lib64/libcudart.so
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export LC_ALL=C

c_headers="assert complex ctype errno fenv float inttypes iso646 limits locale math setjmp signal stdalign stdarg
           stdbool stddef stdint stdio stdlib stdnoreturn string tgmath time uchar wchar wctype"
cxx_headers="algorithm cmath cstdint cstdio cstdlib cstring limits map memory mutex string type_traits vector"
{
  for h in $c_headers; do echo "#include <$h.h>"; done
  printf '#include <omp.h>\n#define CL_TARGET_OPENCL_VERSION 300\n#include <CL/cl.h>\n'
} > "$work/c.c"
{ cat "$work/c.c"; for h in $cxx_headers; do echo "#include <$h>"; done; } > "$work/cxx.cpp"
{ for h in $cxx_headers; do echo "#include <$h>"; done; echo '#include <cuda_runtime.h>'; } > "$work/k.cu"

identifiers() {
  grep -v '^_' | grep '^[A-Za-z][A-Za-z0-9_]*$' |
    grep -Ev '^(cl_|CL_|cl[A-Z]|CLK_|cuda|CUDA|cu[A-Z]|CU_|omp_|OMP_|GOMP_|GLIBC_)' | sort -u
}
# Object-like macros break every use of the name; function-like ones only a
# use followed by `(`, so they go with the global names below.
{
  gcc -std=gnu11 -fopenmp -dM -E "$work/c.c"
  g++ -std=gnu++17 -fopenmp -dM -E "$work/cxx.cpp"
  "$nvcc" -std=c++17 -E -Xcompiler -dM "$work/k.cu"
} > "$work/defines"
awk '/^#define/ && $2 !~ /\(/ { print $2 }' "$work/defines" | identifiers > "$work/macros"
awk '/^#define/ && $2 ~ /\(/ { sub(/\(.*/, "", $2); print $2 }' "$work/defines" | identifiers > "$work/function-macros"

globals() { ctags --language-force="$1" --kinds-"$1"=+px -x --_xformat='%N|%s' -f - "$2" | awk -F'|' '$2 == "" { print $1 }'; }
gcc -std=gnu11 -fopenmp -E -P "$work/c.c" > "$work/c.i"
g++ -std=gnu++17 -fopenmp -E -P "$work/cxx.cpp" > "$work/cxx.i"
"$nvcc" -std=c++17 -E "$work/k.cu" -o "$work/k.i"
{
  globals C "$work/c.i"
  globals C++ "$work/cxx.i"
  globals C++ "$work/k.i"
  for lib in libc.so.6 libm.so.6 libgomp.so.1 libOpenCL.so.1; do nm -D --defined-only "$(gcc -print-file-name=$lib)"; done
  nm -D --defined-only "$cudart"
  cat "$work/function-macros"
} | awk 'NF == 3 { print $3; next } { print $1 }' | sed 's/@.*//' | identifiers > "$work/globals"
comm -23 "$work/globals" "$work/macros" > "$work/globals-only"

table() { # NAME FILE: a sorted array of string literals, several to a line
  echo "const char *const $1[] = {"
  awk '{ item = "\"" $0 "\","; if (length(line) + length(item) + 1 > 116) { print "    " line; line = "" }
         line = line (line == "" ? "" : " ") item }
       END { if (line != "") print "    " line }' "$2"
  echo "};"
}
{
  cat <<EOF
/** \\file
 * Names that the headers and libraries of the generated code declare
 * (macros; global names and exported symbols), collected by
 * scripts/gen-library-names.sh with $(gcc --version | head -1 | sed 's/ (.*)//'), glibc $(ldd --version | head -1 | awk '{print $NF}'),
 * $("$nvcc" --version | grep -o 'release [0-9.]*' | sed 's/release/CUDA/') and the OpenCL 3.0 headers.  Generated: do not edit; rerun the script.
 */
#include "codegen/LibraryNames.h"

#include <algorithm>
#include <cstring>
#include <iterator>

namespace mdh::codegen {
namespace {

EOF
  table kMacros "$work/macros"
  echo
  table kGlobals "$work/globals-only"
  cat <<'EOF'

template <size_t N> bool listed(const char *const (&names)[N], const std::string &name) {
  return std::binary_search(std::begin(names), std::end(names), name.c_str(),
                            [](const char *a, const char *b) { return std::strcmp(a, b) < 0; });
}

} // namespace

bool isLibraryMacro(const std::string &name) { return listed(kMacros, name); }

bool isLibraryGlobal(const std::string &name) { return listed(kMacros, name) || listed(kGlobals, name); }

} // namespace mdh::codegen
EOF
} > "$out"
echo "$out: $(wc -l < "$work/macros") object-like macros, $(wc -l < "$work/globals-only") other global names"
