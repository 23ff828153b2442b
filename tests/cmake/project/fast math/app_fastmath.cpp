// The NaN mask of a kernel built in a -ffast-math directory: 0 1 0 1.
#include "nan_mask.h"
#include <cstdio>
#include <limits>
int main() {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  float A[4] = {1.0f, nan, 2.0f, nan}, O[4] = {-1, -1, -1, -1};
  if (nan_mask(A, O) != 0) return 1;
  const float want[4] = {0, 1, 0, 1};
  for (int i = 0; i < 4; ++i)
    if (O[i] != want[i]) {
      std::printf("O[%d] = %g, expected %g (fast-math reached the kernel?)\n", i, O[i], want[i]);
      return 1;
    }
  std::printf("ok\n");
  return 0;
}
