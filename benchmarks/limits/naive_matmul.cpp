// naive_matmul.cpp — the baseline mdh's default configuration must beat by 3x (issue 4): the
// sequential i-k-j loop nest for C = A * B, MatMul 1024^3 f32, row-major, one thread.
//
// How: C[i][j] += A[i][k] * B[k][j] with loops i, k, j (j innermost, so B and C are read
// contiguously and GCC vectorises the j loop), pointers marked __restrict (so no run-time alias
// checks; the stronger, and so the honest, baseline), n a run-time argument (as in a library
// function), compiled with g++ -O3 -march=native and nothing else: no tiling, no threads. C is
// zeroed outside the timed region. One untimed warm-up run, then --reps timed runs (default 7,
// at least 7); GFLOP/s = 2 n^3 / time, median with min and max. The result is checked against a
// double-precision dot product on 64 random cells.
//
// Build: g++ -O3 -march=native -fopenmp -std=c++17 naive_matmul.cpp -o naive_matmul
//        (run.sh uses the same flags for all its programs; -fopenmp changes nothing here)
// Usage: naive_matmul [--n N] [--reps N]
// Output: a readable line, plus for scripts
//   RESULT naive_matmul.f32.<n> <median> <min> <max> GFLOP/s
//   RESULT naive_matmul_ms.f32.<n> <median> <min> <max> ms
// Standalone: needs nothing from the rest of the mdh project.

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace {

__attribute__((noinline)) void matmul_ikj(int n, const float* __restrict A,
                                          const float* __restrict B, float* __restrict C) {
  for (int i = 0; i < n; ++i)
    for (int k = 0; k < n; ++k)
      for (int j = 0; j < n; ++j) C[i * n + j] += A[i * n + k] * B[k * n + j];
}

double now_s() {
  using C = std::chrono::steady_clock;
  return std::chrono::duration<double>(C::now().time_since_epoch()).count();
}

struct Stat { double med, lo, hi; };
Stat stats(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  double med = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
  return {med, v.front(), v.back()};
}

}  // namespace

int main(int argc, char** argv) {
  int n = 1024, reps = 7;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> const char* {
      if (i + 1 >= argc) { std::fprintf(stderr, "naive_matmul: %s needs a value\n", a.c_str()); std::exit(2); }
      return argv[++i];
    };
    if (a == "--n") n = std::atoi(next());
    else if (a == "--reps") reps = std::atoi(next());
    else if (a == "-h" || a == "--help") { std::printf("usage: naive_matmul [--n N] [--reps N>=7]\n"); return 0; }
    else { std::fprintf(stderr, "naive_matmul: unknown argument %s\n", a.c_str()); return 2; }
  }
  if (reps < 7 || n < 1) { std::fprintf(stderr, "naive_matmul: need --reps >= 7 and --n >= 1\n"); return 2; }

  const size_t nn = size_t(n) * n;
  std::vector<float> A(nn), B(nn), C(nn);
  std::mt19937 rng(42);
  std::uniform_real_distribution<float> U(-1.0f, 1.0f);
  for (auto& x : A) x = U(rng);
  for (auto& x : B) x = U(rng);

  auto once = [&]() {
    std::memset(C.data(), 0, nn * sizeof(float));
    double t0 = now_s();
    matmul_ikj(n, A.data(), B.data(), C.data());
    return now_s() - t0;
  };
  once();  // warm-up
  std::vector<double> g, ms;
  for (int r = 0; r < reps; ++r) {
    double t = once();
    g.push_back(2.0 * n * double(n) * n / t * 1e-9);
    ms.push_back(t * 1e3);
  }

  // Check 64 cells against a double-precision reference.
  std::uniform_int_distribution<int> I(0, n - 1);
  for (int s = 0; s < 64; ++s) {
    int i = I(rng), j = I(rng);
    double ref = 0, mag = 0;
    for (int k = 0; k < n; ++k) {
      ref += double(A[size_t(i) * n + k]) * B[size_t(k) * n + j];
      mag += std::fabs(double(A[size_t(i) * n + k]) * B[size_t(k) * n + j]);
    }
    if (std::fabs(C[size_t(i) * n + j] - ref) > 1e-4 * mag + 1e-6) {
      std::fprintf(stderr, "naive_matmul: wrong result at (%d,%d): %g vs %g\n", i, j,
                   double(C[size_t(i) * n + j]), ref);
      return 1;
    }
  }

  Stat s = stats(g), sm = stats(ms);
  std::printf("# naive_matmul: i-k-j, f32, n=%d, 1 thread, reps=%d (result checked)\n", n, reps);
  std::printf("  median %.2f GFLOP/s (min %.2f, max %.2f); median %.1f ms per run\n", s.med, s.lo,
              s.hi, sm.med);
  std::printf("RESULT naive_matmul.f32.%d %.3f %.3f %.3f GFLOP/s\n", n, s.med, s.lo, s.hi);
  std::printf("RESULT naive_matmul_ms.f32.%d %.2f %.2f %.2f ms\n", n, sm.med, sm.lo, sm.hi);
  return 0;
}
