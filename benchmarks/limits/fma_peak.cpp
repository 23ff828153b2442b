// fma_peak.cpp — the machine's fused-multiply-add peak, in GFLOP/s, f32 and f64,
// on one core and on all cores (OpenMP).
//
// How: each thread runs NACC independent accumulator chains acc_k <- acc_k * x + y, one
// vector FMA per chain per step (2 flops per lane). With NACC at least FMA latency (4 cycles)
// times FMA ports (2), every port issues an FMA every cycle, so the rate is the core's FMA
// throughput. Nothing is loaded or stored in the loop. The kernels are written with
// intrinsics in functions compiled for their own ISA (__attribute__((target(...)))) and chosen
// at run time with __builtin_cpu_supports: AVX-512F (16 chains of zmm) and AVX2+FMA
// (12 chains of ymm; 16 ymm registers only). AVX-512 may run at a lower clock than AVX2 on
// Intel server parts, so both are measured where both exist; the peak is the larger.
//
// Timing: one warm-up sample, then --reps samples (default 9, at least 7) of about --ms
// milliseconds each (iteration count calibrated once); the all-cores sample starts after an
// OpenMP barrier and ends after the barrier that follows the slowest thread. Reported: median
// GFLOP/s with min and max over the samples. Wall-clock rates are the figures; on a shared,
// loaded machine they drop when the scheduler preempts the benchmark, so a second, load-robust
// figure is also printed (key fma_cpu.*): flops divided by each thread's own CPU time
// (CLOCK_THREAD_CPUTIME_ID), summed over threads — what the cores do while they run. For the
// FMA peak (core-private resources) that is the undisturbed rate; compare the two to see the load.
//
// Build: g++ -O3 -march=native -fopenmp -std=c++17 fma_peak.cpp -o fma_peak
// Usage: fma_peak [--reps N] [--ms T] [--isa avx512|avx2|all]
// Output: a readable table, plus one line per figure for scripts:
//   RESULT <key> <median> <min> <max> <unit>     e.g. RESULT fma.avx512.f32.1core ...
//   keys: fma.<isa>.<f32|f64>.<1core|allcores> (wall clock), fma_cpu.* (per CPU-second)
// Standalone: needs nothing from the rest of the mdh project.

#include <immintrin.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>

namespace {

// ---- kernels -------------------------------------------------------------------------------
// Each returns a value depending on every chain so nothing can be removed; the chains start at
// distinct values so the compiler cannot merge them (it does, if they start equal). They converge
// to y / (1 - x), which stays finite.

#define FMA_STEP16(OP)                                                                             \
  a0 = OP(a0, x, y); a1 = OP(a1, x, y); a2 = OP(a2, x, y); a3 = OP(a3, x, y);                  \
  a4 = OP(a4, x, y); a5 = OP(a5, x, y); a6 = OP(a6, x, y); a7 = OP(a7, x, y);                  \
  a8 = OP(a8, x, y); a9 = OP(a9, x, y); a10 = OP(a10, x, y); a11 = OP(a11, x, y);              \
  a12 = OP(a12, x, y); a13 = OP(a13, x, y); a14 = OP(a14, x, y); a15 = OP(a15, x, y);
#define FMA_STEP12(OP)                                                                             \
  a0 = OP(a0, x, y); a1 = OP(a1, x, y); a2 = OP(a2, x, y); a3 = OP(a3, x, y);                  \
  a4 = OP(a4, x, y); a5 = OP(a5, x, y); a6 = OP(a6, x, y); a7 = OP(a7, x, y);                  \
  a8 = OP(a8, x, y); a9 = OP(a9, x, y); a10 = OP(a10, x, y); a11 = OP(a11, x, y);

// Declares chains a0..a15 (a0..a11) of vector type T, each starting at its own value.
#define CHAINS16(T, SET1) \
  T a0 = SET1(seed + 0 * 1e-3), a1 = SET1(seed + 1 * 1e-3), a2 = SET1(seed + 2 * 1e-3), \
    a3 = SET1(seed + 3 * 1e-3), a4 = SET1(seed + 4 * 1e-3), a5 = SET1(seed + 5 * 1e-3), \
    a6 = SET1(seed + 6 * 1e-3), a7 = SET1(seed + 7 * 1e-3), a8 = SET1(seed + 8 * 1e-3), \
    a9 = SET1(seed + 9 * 1e-3), a10 = SET1(seed + 10 * 1e-3), a11 = SET1(seed + 11 * 1e-3), \
    a12 = SET1(seed + 12 * 1e-3), a13 = SET1(seed + 13 * 1e-3), a14 = SET1(seed + 14 * 1e-3), \
    a15 = SET1(seed + 15 * 1e-3);
#define CHAINS12(T, SET1) \
  T a0 = SET1(seed + 0 * 1e-3), a1 = SET1(seed + 1 * 1e-3), a2 = SET1(seed + 2 * 1e-3), \
    a3 = SET1(seed + 3 * 1e-3), a4 = SET1(seed + 4 * 1e-3), a5 = SET1(seed + 5 * 1e-3), \
    a6 = SET1(seed + 6 * 1e-3), a7 = SET1(seed + 7 * 1e-3), a8 = SET1(seed + 8 * 1e-3), \
    a9 = SET1(seed + 9 * 1e-3), a10 = SET1(seed + 10 * 1e-3), a11 = SET1(seed + 11 * 1e-3);

__attribute__((target("avx512f"), noinline)) double k_avx512_f32(long iters, float seed) {
  CHAINS16(__m512, _mm512_set1_ps)
  const __m512 x = _mm512_set1_ps(0.999999f), y = _mm512_set1_ps(1e-7f);
  for (long i = 0; i < iters; ++i) { FMA_STEP16(_mm512_fmadd_ps) }
  __m512 s = _mm512_add_ps(_mm512_add_ps(_mm512_add_ps(a0, a1), _mm512_add_ps(a2, a3)),
                           _mm512_add_ps(_mm512_add_ps(a4, a5), _mm512_add_ps(a6, a7)));
  s = _mm512_add_ps(s, _mm512_add_ps(_mm512_add_ps(_mm512_add_ps(a8, a9), _mm512_add_ps(a10, a11)),
                                     _mm512_add_ps(_mm512_add_ps(a12, a13), _mm512_add_ps(a14, a15))));
  alignas(64) float t[16];
  _mm512_store_ps(t, s);
  double r = 0;
  for (float v : t) r += v;
  return r;
}
__attribute__((target("avx512f"), noinline)) double k_avx512_f64(long iters, double seed) {
  CHAINS16(__m512d, _mm512_set1_pd)
  const __m512d x = _mm512_set1_pd(0.999999), y = _mm512_set1_pd(1e-7);
  for (long i = 0; i < iters; ++i) { FMA_STEP16(_mm512_fmadd_pd) }
  __m512d s = _mm512_add_pd(_mm512_add_pd(_mm512_add_pd(a0, a1), _mm512_add_pd(a2, a3)),
                            _mm512_add_pd(_mm512_add_pd(a4, a5), _mm512_add_pd(a6, a7)));
  s = _mm512_add_pd(s, _mm512_add_pd(_mm512_add_pd(_mm512_add_pd(a8, a9), _mm512_add_pd(a10, a11)),
                                     _mm512_add_pd(_mm512_add_pd(a12, a13), _mm512_add_pd(a14, a15))));
  alignas(64) double t[8];
  _mm512_store_pd(t, s);
  double r = 0;
  for (double v : t) r += v;
  return r;
}
__attribute__((target("avx2,fma"), noinline)) double k_avx2_f32(long iters, float seed) {
  CHAINS12(__m256, _mm256_set1_ps)
  const __m256 x = _mm256_set1_ps(0.999999f), y = _mm256_set1_ps(1e-7f);
  for (long i = 0; i < iters; ++i) { FMA_STEP12(_mm256_fmadd_ps) }
  __m256 s = _mm256_add_ps(_mm256_add_ps(_mm256_add_ps(a0, a1), _mm256_add_ps(a2, a3)),
                           _mm256_add_ps(_mm256_add_ps(a4, a5), _mm256_add_ps(a6, a7)));
  s = _mm256_add_ps(s, _mm256_add_ps(_mm256_add_ps(a8, a9), _mm256_add_ps(a10, a11)));
  alignas(32) float t[8];
  _mm256_store_ps(t, s);
  double r = 0;
  for (float v : t) r += v;
  return r;
}
__attribute__((target("avx2,fma"), noinline)) double k_avx2_f64(long iters, double seed) {
  CHAINS12(__m256d, _mm256_set1_pd)
  const __m256d x = _mm256_set1_pd(0.999999), y = _mm256_set1_pd(1e-7);
  for (long i = 0; i < iters; ++i) { FMA_STEP12(_mm256_fmadd_pd) }
  __m256d s = _mm256_add_pd(_mm256_add_pd(_mm256_add_pd(a0, a1), _mm256_add_pd(a2, a3)),
                            _mm256_add_pd(_mm256_add_pd(a4, a5), _mm256_add_pd(a6, a7)));
  s = _mm256_add_pd(s, _mm256_add_pd(_mm256_add_pd(a8, a9), _mm256_add_pd(a10, a11)));
  alignas(32) double t[4];
  _mm256_store_pd(t, s);
  return t[0] + t[1] + t[2] + t[3];
}

struct Kernel {
  const char* isa;
  const char* type;
  double (*run)(long, double);  // wrapped to one signature below
  double flops_per_iter;        // chains * lanes * 2
};

double w_avx512_f32(long n, double s) { return k_avx512_f32(n, float(s)); }
double w_avx512_f64(long n, double s) { return k_avx512_f64(n, s); }
double w_avx2_f32(long n, double s) { return k_avx2_f32(n, float(s)); }
double w_avx2_f64(long n, double s) { return k_avx2_f64(n, s); }

volatile double g_sink;  // keeps results observable

double now_s() {
  using C = std::chrono::steady_clock;
  return std::chrono::duration<double>(C::now().time_since_epoch()).count();
}

double thread_cpu_s() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + 1e-9 * double(ts.tv_nsec);
}

// One sample on `threads` threads (1 = calling thread only): wall seconds, and the sum over
// threads of iterations per CPU-second of that thread (for the load-robust figure).
struct Sample { double wall, iters_per_cpu_s; };
Sample sample(const Kernel& k, long iters, int threads) {
  if (threads == 1) {
    double c0 = thread_cpu_s(), t0 = now_s();
    g_sink = k.run(iters, 1.0 + 1e-9 * double(iters));
    double t1 = now_s(), c1 = thread_cpu_s();
    return {t1 - t0, double(iters) / (c1 - c0)};
  }
  double t0 = 0, t1 = 0;
  std::vector<double> sinks(threads), rate(threads);
#pragma omp parallel num_threads(threads)
  {
    const int me = omp_get_thread_num();
#pragma omp barrier
#pragma omp master
    t0 = now_s();
    double c0 = thread_cpu_s();
    sinks[me] = k.run(iters, 1.0 + me);
    rate[me] = double(iters) / (thread_cpu_s() - c0);
#pragma omp barrier
#pragma omp master
    t1 = now_s();
  }
  double s = 0, r = 0;
  for (int i = 0; i < threads; ++i) s += sinks[i], r += rate[i];
  g_sink = s;
  return {t1 - t0, r};
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
  int reps = 9;
  double ms = 60;
  std::string isa_sel = "all";
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> const char* {
      if (i + 1 >= argc) { std::fprintf(stderr, "fma_peak: %s needs a value\n", a.c_str()); std::exit(2); }
      return argv[++i];
    };
    if (a == "--reps") reps = std::atoi(next());
    else if (a == "--ms") ms = std::atof(next());
    else if (a == "--isa") isa_sel = next();
    else if (a == "-h" || a == "--help") {
      std::printf("usage: fma_peak [--reps N>=7] [--ms T] [--isa avx512|avx2|all]\n");
      return 0;
    } else { std::fprintf(stderr, "fma_peak: unknown argument %s\n", a.c_str()); return 2; }
  }
  if (reps < 7) { std::fprintf(stderr, "fma_peak: --reps must be >= 7\n"); return 2; }

  __builtin_cpu_init();
  const bool has512 = __builtin_cpu_supports("avx512f");
  const bool has2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  std::vector<Kernel> ks;
  if (has512 && (isa_sel == "all" || isa_sel == "avx512")) {
    ks.push_back({"avx512", "f32", w_avx512_f32, 16.0 * 16 * 2});
    ks.push_back({"avx512", "f64", w_avx512_f64, 16.0 * 8 * 2});
  }
  if (has2 && (isa_sel == "all" || isa_sel == "avx2")) {
    ks.push_back({"avx2", "f32", w_avx2_f32, 12.0 * 8 * 2});
    ks.push_back({"avx2", "f64", w_avx2_f64, 12.0 * 4 * 2});
  }
  if (ks.empty()) {
    std::fprintf(stderr, "fma_peak: CPU supports neither AVX-512F nor AVX2+FMA (or --isa excluded them)\n");
    return 1;
  }
  const int all = omp_get_max_threads();
  std::printf("# fma_peak: avx512f=%d avx2+fma=%d threads(all)=%d reps=%d target=%.0f ms/sample\n",
              has512, has2, all, reps, ms);
  std::printf("# %-8s %-4s %-9s %12s %12s %12s\n", "isa", "type", "cores", "median", "min", "max");

  for (const Kernel& k : ks) {
    // Calibrate on one core: iterations for ~ms milliseconds.
    long iters = 1 << 16;
    for (;;) {
      double t = sample(k, iters, 1).wall;
      if (t > 0.02 || iters > (1L << 40)) { iters = long(iters * (ms / 1000.0) / t) + 1; break; }
      iters *= 4;
    }
    for (int threads : {1, all}) {
      sample(k, iters, threads);  // warm-up (clock ramp, thread start)
      std::vector<double> g, gc;
      for (int r = 0; r < reps; ++r) {
        Sample smp = sample(k, iters, threads);
        g.push_back(k.flops_per_iter * double(iters) * threads / smp.wall * 1e-9);
        gc.push_back(k.flops_per_iter * smp.iters_per_cpu_s * 1e-9);
      }
      Stat s = stats(g), sc = stats(gc);
      std::string cores = threads == 1 ? "1core" : "allcores";
      std::printf("  %-8s %-4s %-9s %12.1f %12.1f %12.1f  GFLOP/s (%d thread%s); per CPU-second: %.1f\n",
                  k.isa, k.type, cores.c_str(), s.med, s.lo, s.hi, threads, threads == 1 ? "" : "s",
                  sc.med);
      std::printf("RESULT fma.%s.%s.%s %.2f %.2f %.2f GFLOP/s\n", k.isa, k.type, cores.c_str(),
                  s.med, s.lo, s.hi);
      std::printf("RESULT fma_cpu.%s.%s.%s %.2f %.2f %.2f GFLOP/s\n", k.isa, k.type, cores.c_str(),
                  sc.med, sc.lo, sc.hi);
      std::fflush(stdout);
    }
  }
  return 0;
}
