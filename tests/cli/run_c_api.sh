#!/usr/bin/env bash
# The generated OpenMP C API from a C11 program: the typed entry and `_run` return a
# status — 0, 1 for a null buffer pointer or bad run-time sizes (with a message, outputs
# untouched), 2 when the scratch storage cannot be allocated (with a message, not an
# abort through the C entry) — and the generated .cpp builds warning-free with
# -Wall -Wextra -pedantic -Werror. Arguments: mdhc, the source directory.
set -u
mdhc=$1 src=$2
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
# Run-time sizes: the default configuration keeps the reduction whole (its core tile
# along K is 2^40), so no temporary; a configuration whose core tile along K is 1024
# splits the reduction over the cores when K > 1024, and then the entry needs a
# temporary output MDA of I*J*parts floats (tested last, out of memory).
$mdhc compile "$src/examples/matmul.mdh" --entry matmul --set 'T=f32,I=*,J=*,K=*' -q -o "$tmp/default" || fail "compile"
sed 's/1099511627776/1024/' "$tmp/default/matmul_f32_dyn_dyn_dyn.config.json" > "$tmp/split.json"
cmp -s "$tmp/default/matmul_f32_dyn_dyn_dyn.config.json" "$tmp/split.json" && fail "no core tile of 2^40 along K in the default"
$mdhc compile "$src/examples/matmul.mdh" --entry matmul --set 'T=f32,I=*,J=*,K=*' --config "$tmp/split.json" -q -o "$tmp" || fail "compile split"
g++ -std=c++17 -O2 -march=native -fopenmp -Wall -Wextra -pedantic -Werror -c "$tmp/matmul_f32_dyn_dyn_dyn.cpp" -o "$tmp/mm.o" \
  || fail "the generated code has warnings"
cat > "$tmp/drv.c" <<'C'
#include "matmul_f32_dyn_dyn_dyn.h"
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
  if (argc != 4) return 9;
  const long I = atol(argv[1]), J = atol(argv[2]), K = atol(argv[3]);
  float *A = calloc((size_t)(I * K), 4), *B = calloc((size_t)(K * J), 4), *C = calloc((size_t)(I * J), 4);
  if (!A || !B || !C) return 8;
  for (long i = 0; i < I * K; ++i) A[i] = 1.0f;
  for (long i = 0; i < K * J; ++i) B[i] = 2.0f;
  C[0] = -7.0f;
  const int null_status = matmul_f32_dyn_dyn_dyn(I, J, K, A, NULL, C);
  const int64_t sizes[3] = {I, J, K};
  void *const no_input[3] = {A, NULL, C};
  const int null_run_status = matmul_f32_dyn_dyn_dyn_run(sizes, no_input);
  const int bad_size_status = matmul_f32_dyn_dyn_dyn(I, J, 0, A, B, C);
  if (C[0] != -7.0f) return 7; /* refused calls leave the output alone */
  const int status = matmul_f32_dyn_dyn_dyn(I, J, K, A, B, C);
  printf("%d %d %d %d %g\n", null_status, null_run_status, bad_size_status, status, (double)C[I * J - 1]);
  return 0;
}
C
gcc -std=c11 -Wall -Wextra -pedantic -Werror -I"$tmp" "$tmp/drv.c" "$tmp/mm.o" -fopenmp -lstdc++ -o "$tmp/drv" || fail "the C driver does not build"
out=$("$tmp/drv" 5 7 3000 2> "$tmp/err") || { cat "$tmp/err"; fail "driver exited $?"; }
[ "$out" = "1 1 1 0 6000" ] || { cat "$tmp/err"; fail "statuses and result: got '$out', want '1 1 1 0 6000'"; }
grep -q "buffer \`B\` is a null pointer" "$tmp/err" || { cat "$tmp/err"; fail "no message for a null buffer"; }
# The default keeps a run-time reduction whole (core tile 2^40): a larger K is refused with
# status 1 and a message, before anything is read or written.
g++ -std=c++17 -O1 -fopenmp -c "$tmp/default/matmul_f32_dyn_dyn_dyn.cpp" -o "$tmp/default/mm.o" || fail "compile the default"
cat > "$tmp/default/big.c" <<'C'
#include "matmul_f32_dyn_dyn_dyn.h"
#include <stdio.h>
int main(void) {
  float a = 1.0f, b = 1.0f, c = -7.0f;
  const int status = matmul_f32_dyn_dyn_dyn(1, 1, (1LL << 40) + 1, &a, &b, &c);
  printf("%d %g\n", status, (double)c);
  return 0;
}
C
gcc -std=c11 -I"$tmp/default" "$tmp/default/big.c" "$tmp/default/mm.o" -fopenmp -lstdc++ -o "$tmp/default/big" || fail "the K driver does not build"
out=$("$tmp/default/big" 2> "$tmp/err") || { cat "$tmp/err"; fail "K beyond the core tile: the driver exited $?"; }
[ "$out" = "1 -7" ] || { cat "$tmp/err"; fail "K beyond the core tile: got '$out', want '1 -7'"; }
grep -q "run-time size K = 1099511627777 exceeds the configuration's core tile 1099511627776 of its reduction; nothing computed" "$tmp/err" ||
  { cat "$tmp/err"; fail "no message for K beyond the core tile"; }
# 8000 x 8000 x 1100: 256 MB of output, and a 512 MB temporary that 700 MB of address space
# cannot hold next to the inputs; the entry says so and returns 2.
out=$(ulimit -v 700000; OMP_NUM_THREADS=2 "$tmp/drv" 8000 8000 1100 2> "$tmp/err"); rc=$?
[ "$rc" = 8 ] && { echo "skipped: the driver's own buffers did not fit"; exit 0; }
[ "$rc" = 0 ] || { cat "$tmp/err"; fail "out of memory: the driver exited $rc (an abort through the C entry?)"; }
[ "$(echo "$out" | cut -d' ' -f4)" = 2 ] || { cat "$tmp/err"; fail "out of memory: status '$out', want 2"; }
grep -q "out of memory for its scratch storage" "$tmp/err" || { cat "$tmp/err"; fail "no out-of-memory message"; }
echo "1 passed, 0 failed"
