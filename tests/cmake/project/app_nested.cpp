// Calls scan kernels directly and from inside a parallel region (where
// their own region runs on one thread) and checks them against a loop.
#include "scan_nested.h"
#include "scan_rows_nested.h"
#include <omp.h>
#include <cstdio>
#include <vector>

int main() {
  const int64_t N = 200003, K = 3;
  std::vector<int32_t> a(N * K), scan(N), rows(N);
  for (int64_t i = 0; i < N * K; ++i) a[size_t(i)] = int32_t(i * 7 % 13) - 6;
  int32_t s = 0, r = 0;
  for (int64_t i = 0; i < N; ++i) {
    s += a[size_t(i)];
    scan[size_t(i)] = s;
    for (int64_t k = 0; k < K; ++k) r += a[size_t(i * K + k)];
    rows[size_t(i)] = r;
  }
  omp_set_max_active_levels(1);
  int bad = 0;
  auto check = [&](const char *what, const std::vector<int32_t> &got, const std::vector<int32_t> &want) {
    for (size_t i = 0; i < want.size(); ++i)
      if (got[i] != want[i]) {
        std::printf("%s: O[%zu] = %d, expected %d\n", what, i, got[i], want[i]);
        #pragma omp atomic
        ++bad;
        return;
      }
  };
  std::vector<int32_t> o1(N), o2(N);
  scan_nested(a.data(), o1.data());
  check("scan", o1, scan);
  scan_rows_nested(a.data(), o2.data());
  check("row-sum scan", o2, rows);
  #pragma omp parallel num_threads(2)
  {
    std::vector<int32_t> p1(N), p2(N);
    scan_nested(a.data(), p1.data());
    check("scan in a parallel region", p1, scan);
    scan_rows_nested(a.data(), p2.data());
    check("row-sum scan in a parallel region", p2, rows);
  }
  if (bad) return 1;
  std::printf("ok\n");
  return 0;
}
