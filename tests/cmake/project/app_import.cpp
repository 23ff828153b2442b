// Calls a kernel whose scalar function comes from an imported module:
// O[i] = I[i] + K * I[i + 1], with K the module's weight given as argv[1].
#include "pair_i32.h"
#include <cstdio>
#include <cstdlib>
int main(int argc, char **argv) {
  const int32_t k = argc > 1 ? std::atoi(argv[1]) : 2;
  int32_t I[8] = {1, 2, 3, 4, 5, 6, 7, 8}, O[7];
  pair_i32(I, O);
  for (int i = 0; i < 7; ++i)
    if (O[i] != I[i] + k * I[i + 1]) { std::printf("O[%d] = %d, expected %d (weight %d)\n", i, O[i], I[i] + k * I[i + 1], k); return 1; }
  std::printf("ok\n");
  return 0;
}
