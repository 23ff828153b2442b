// Speed of mdhc's OpenMP code with the default configuration (no tuning)
// against the baselines of issue #4, measured in one process, interleaved:
//  - MatMul 1024^3 f32 vs a sequential i-k-j loop nest (goal: >= 3x);
//  - MatVec 4096^2 f32 and Jacobi2D 4096^2 f32 vs a STREAM triad over the
//    same footprint (goal: >= 50% of its bandwidth).
// Medians of repeated warm runs; the spread (min..max) is printed too.
#include "jacobi2d_bench.h"
#include "matmul_bench.h"
#include "matvec_bench.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <vector>
#include <omp.h>

namespace {

struct Stats { double median, min, max; };

Stats timeIt(const std::function<void()> &fn, int reps) {
  fn(); // warm-up
  std::vector<double> t;
  for (int r = 0; r < reps; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    fn();
    t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(t.begin(), t.end());
  return {t[t.size() / 2], t.front(), t.back()};
}

/// STREAM triad a = b + s*c over three arrays of `bytes` in total; GB/s counting 3 arrays.
Stats triad(size_t bytes, int reps) {
  size_t n = bytes / 3 / sizeof(float);
  std::vector<float> a(n), b(n, 1.0f), c(n, 2.0f);
  Stats s = timeIt([&] {
    float *pa = a.data(); const float *pb = b.data(), *pc = c.data();
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; ++i) pa[i] = pb[i] + 3.0f * pc[i];
  }, reps);
  double gb = 3.0 * n * sizeof(float) / 1e9;
  return {gb / s.median, gb / s.max, gb / s.min};
}

} // namespace

int main() {
  std::printf("threads: %d\n\n| workload | mdh default | baseline | ratio | goal |\n|---|---|---|---|---|\n", omp_get_max_threads());
  {
    const int n = 1024;
    std::vector<float> A(size_t(n) * n), B(size_t(n) * n), C(size_t(n) * n), R(size_t(n) * n);
    for (size_t i = 0; i < A.size(); ++i) { A[i] = float(i % 7) - 3; B[i] = float(i % 5) - 2; }
    Stats m = timeIt([&] { matmul_bench(A.data(), B.data(), C.data()); }, 9);
    Stats naive = timeIt([&] {
      std::fill(R.begin(), R.end(), 0.0f);
      for (int i = 0; i < n; ++i)
        for (int k = 0; k < n; ++k) {
          const float a = A[size_t(i) * n + k];
          for (int j = 0; j < n; ++j) R[size_t(i) * n + j] += a * B[size_t(k) * n + j];
        }
    }, 3);
    for (size_t i = 0; i < R.size(); i += 4099)
      if (R[i] != C[i]) { std::printf("MatMul result differs at %zu\n", i); return 1; }
    double flop = 2.0 * n * n * n;
    std::printf("| MatMul 1024^3 f32 | %.1f GFLOP/s (%.1f..%.1f) | i-k-j loops %.1f GFLOP/s | %.2fx | >= 3x |\n", flop / m.median / 1e9,
                flop / m.max / 1e9, flop / m.min / 1e9, flop / naive.median / 1e9, naive.median / m.median);
  }
  {
    const int n = 4096;
    std::vector<float> M(size_t(n) * n, 0.5f), v(n, 2.0f), w(n);
    size_t bytes = (size_t(n) * n + 2 * n) * sizeof(float);
    Stats m = timeIt([&] { matvec_bench(M.data(), v.data(), w.data()); }, 15);
    Stats t = triad(bytes, 15);
    double gbs = bytes / m.median / 1e9;
    std::printf("| MatVec 4096^2 f32 | %.1f GB/s (%.1f..%.1f) | triad at %.0f MiB: %.1f GB/s | %.0f%% | >= 50%% |\n", gbs,
                bytes / m.max / 1e9, bytes / m.min / 1e9, bytes / 1048576.0, t.median, 100 * gbs / t.median);
  }
  {
    const int n = 4096;
    std::vector<float> in(size_t(n) * n, 1.0f), out(size_t(n - 2) * (n - 2));
    size_t bytes = (in.size() + out.size()) * sizeof(float);
    Stats m = timeIt([&] { jacobi2d_bench(in.data(), out.data()); }, 15);
    Stats t = triad(bytes, 15);
    double gbs = bytes / m.median / 1e9;
    std::printf("| Jacobi2D 4096^2 f32 | %.1f GB/s (%.1f..%.1f) | triad at %.0f MiB: %.1f GB/s | %.0f%% | >= 50%% |\n", gbs,
                bytes / m.max / 1e9, bytes / m.min / 1e9, bytes / 1048576.0, t.median, 100 * gbs / t.median);
  }
  return 0;
}
