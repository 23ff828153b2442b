// A strict-FP kernel built by mdh_add_library(... CONFIG strict.json) rounds
// a*b before adding c: every cell equals the unfused expression (with FMA
// contraction, c = -a*b gives the rounding error of a*b instead of 0).
#include "fm_strict.h"
#include <cstdio>
int main() {
  static double A[1000], B[1000], C[1000], O[1000];
  for (int i = 0; i < 1000; ++i) {
    A[i] = 1.0 + i * 1e-9 + 1.0 / 3;
    B[i] = 3.0 - i * 1e-7;
    C[i] = -A[i] * B[i];
  }
  fm_strict(A, B, C, O);
  int differ = 0;
  for (int i = 0; i < 1000; ++i) {
    volatile double p = A[i] * B[i];
    differ += O[i] != p + C[i];
  }
  std::printf("%d of 1000 cells differ from the unfused a*b+c\n", differ);
  return differ != 0;
}
