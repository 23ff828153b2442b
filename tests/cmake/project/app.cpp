// Calls a kernel generated at build time and checks it against a loop.
#include "matvec_small.h"
#include <cstdio>
int main() {
  int32_t M[12], v[4], w[3];
  for (int i = 0; i < 12; ++i) M[i] = i - 5;
  for (int k = 0; k < 4; ++k) v[k] = 2 * k - 3;
  matvec_small(M, v, w);
  for (int i = 0; i < 3; ++i) {
    int32_t s = 0;
    for (int k = 0; k < 4; ++k) s += M[i * 4 + k] * v[k];
    if (s != w[i]) { std::printf("w[%d] = %d, expected %d\n", i, w[i], s); return 1; }
  }
  std::printf("ok\n");
  return 0;
}
