// stream_triad.cpp — memory bandwidth limit: the STREAM triad a[i] = b[i] + s * c[i], f32 and
// f64, OpenMP on all cores, at several footprints and at any footprint given with --bytes (so a
// kernel's own footprint can be measured against the triad at that footprint).
//
// How: the footprint is the total of the three arrays (n = bytes / (3 * sizeof(T)) elements
// each). Each thread owns one contiguous, cache-line-aligned chunk of every array, touches it
// first (so its pages are local) and is the only one to read or write it, so no barrier is
// needed between passes. The loop is plain C++ compiled with -O3 -march=native (GCC
// vectorises it the way it vectorises generated kernels); the kernel is noinline so repeated
// passes cannot be merged.
//   warm: after one untimed pass, a sample is K back-to-back passes (K calibrated so a sample
//         takes about --ms milliseconds, and at least 256 MiB of traffic); the data stays in
//         whatever cache level it fits.
//   cold: before each sample every thread reads and writes its share of a separate buffer of
//         3x the L3 and at least 256 MiB (cache_size.h; evicting L1, L2 and the L3), then one
//         pass is timed. Footprints of a few KiB then take microseconds, so barrier overhead
//         (~1 us) shows in the cold small figures.
//         The pass leaves a[] dirty in cache: where the footprint fits the L3, its write-back
//         happens after the timer stops, so cold figures below the L3 size are DRAM reads plus
//         cached writes, not a DRAM round trip (compare cold 512 MiB for that).
// A sample starts after an OpenMP barrier and ends after the barrier behind the slowest thread.
// Rates: GB/s (1e9 bytes/s) counting 3 arrays (2 loads + 1 store per element, STREAM's
// convention), and counting 4 (the store's write-allocate read of a[] that the hardware does
// unless it uses streaming stores). Reported: median over --reps samples (default 9, at least 7)
// with min and max.
//
// Build: g++ -O3 -march=native -fopenmp -std=c++17 stream_triad.cpp -o stream_triad
// Usage: stream_triad [--bytes N]... [--type f32|f64|both] [--mode warm|cold|both]
//                     [--reps N] [--ms T] [--flush-bytes N] [--thp]
//   N takes suffixes K, M, G (KiB, MiB, GiB). Without --bytes: 48K 1M 16M 64M 512M.
//   Arrays are 4 KiB-aligned ordinary pages, like a kernel's malloc'd buffers; --thp aligns
//   them to 2 MiB and asks for transparent huge pages (madvise), for comparison.
// Output: a readable table, plus for scripts
//   RESULT triad.<type>.<warm|cold>.<footprint> <median> <min> <max> GB/s      (3 arrays)
//   RESULT triad_wa.<type>.<warm|cold>.<footprint> <median> <min> <max> GB/s   (4 arrays)
// where <footprint> is the requested footprint, e.g. 16MiB, 48KiB, or <bytes>B when not a whole
// KiB/MiB/GiB; the bytes actually used (rounded down to whole cache lines per array, so within
// 192 B of the request) are in the table, and the rates use them.
// Standalone: needs nothing from the rest of the mdh project.

#include <omp.h>
#include <sys/mman.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "cache_size.h"

namespace {

double now_s() {
  using C = std::chrono::steady_clock;
  return std::chrono::duration<double>(C::now().time_since_epoch()).count();
}

template <class T>
__attribute__((noinline)) void triad(T* __restrict a, const T* __restrict b,
                                     const T* __restrict c, T s, size_t lo, size_t hi) {
  for (size_t i = lo; i < hi; ++i) a[i] = b[i] + s * c[i];
}

struct Stat { double med, lo, hi; };
Stat stats(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  double med = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
  return {med, v.front(), v.back()};
}

size_t parse_bytes(const char* s) {
  char* end = nullptr;
  double v = std::strtod(s, &end);
  std::string suf = end ? end : "";
  double m = 1;
  if (suf == "" || suf == "B" || suf == "b") m = 1;
  else if (suf == "K" || suf == "k" || suf == "KiB" || suf == "KB") m = 1024.0;
  else if (suf == "M" || suf == "m" || suf == "MiB" || suf == "MB") m = 1024.0 * 1024;
  else if (suf == "G" || suf == "g" || suf == "GiB" || suf == "GB") m = 1024.0 * 1024 * 1024;
  else { std::fprintf(stderr, "stream_triad: bad size '%s'\n", s); std::exit(2); }
  if (!(v > 0)) { std::fprintf(stderr, "stream_triad: size must be positive: '%s'\n", s); std::exit(2); }
  return size_t(v * m);
}

std::string label(size_t bytes) {
  char buf[64];
  if (bytes % (1ull << 30) == 0) std::snprintf(buf, sizeof buf, "%zuGiB", bytes >> 30);
  else if (bytes % (1ull << 20) == 0) std::snprintf(buf, sizeof buf, "%zuMiB", bytes >> 20);
  else if (bytes % (1ull << 10) == 0) std::snprintf(buf, sizeof buf, "%zuKiB", bytes >> 10);
  else std::snprintf(buf, sizeof buf, "%zuB", bytes);
  return buf;
}

bool g_thp = false;  // --thp: ask for transparent huge pages (madvise) on the arrays

void* alloc(size_t bytes) {
  size_t al = g_thp ? (size_t(2) << 20) : 4096, sz = (bytes + al - 1) / al * al;
  void* p = std::aligned_alloc(al, sz ? sz : al);
  if (!p) { std::fprintf(stderr, "stream_triad: cannot allocate %zu bytes\n", bytes); std::exit(1); }
  if (g_thp) madvise(p, sz, MADV_HUGEPAGE);  // advisory; ignored where THP is off
  return p;
}

// Evicts caches: every thread reads and writes its share of `buf` (which it first touched).
volatile double g_sink;
void flush(double* buf, size_t n) {
  double s = 0;
#pragma omp parallel for schedule(static) reduction(+ : s)
  for (size_t i = 0; i < n; i += 8) { s += buf[i]; buf[i] = s * 1e-30; }
  g_sink = s;
}

struct Opts { int reps = 9; double ms = 40; bool cold = true, warm = true; };

template <class T>
void run(size_t req_bytes, const Opts& o, double* fbuf, size_t fn, const char* tname) {
  const int P = omp_get_max_threads();
  const size_t line = 64 / sizeof(T);              // elements per cache line
  size_t n = req_bytes / (3 * sizeof(T));
  n = std::max(n / line * line, line * P);         // whole lines, at least one per thread
  const size_t bytes = 3 * n * sizeof(T);
  // Per-thread ranges in whole cache lines.
  std::vector<size_t> lo(P + 1);
  const size_t lines = n / line;
  for (int t = 0; t <= P; ++t) lo[t] = lines * t / P * line;

  T* a = static_cast<T*>(alloc(n * sizeof(T)));
  T* b = static_cast<T*>(alloc(n * sizeof(T)));
  T* c = static_cast<T*>(alloc(n * sizeof(T)));
#pragma omp parallel
  {
    const int t = omp_get_thread_num();
    for (size_t i = lo[t]; i < lo[t + 1]; ++i) a[i] = 0, b[i] = T(1) + T(i % 7), c[i] = T(i % 5);
  }
  const T s = T(3);

  auto sample = [&](long passes) {
    double t0 = 0, t1 = 0;
#pragma omp parallel
    {
      const int t = omp_get_thread_num();
#pragma omp barrier
#pragma omp master
      t0 = now_s();
      for (long p = 0; p < passes; ++p) triad(a, b, c, s, lo[t], lo[t + 1]);
#pragma omp barrier
#pragma omp master
      t1 = now_s();
    }
    return t1 - t0;
  };

  for (int mode = 0; mode < 2; ++mode) {
    const bool cold = mode == 1;
    if ((cold && !o.cold) || (!cold && !o.warm)) continue;
    long passes = 1;
    if (!cold) {
      sample(1);  // warm-up
      for (;;) {  // calibrate: ~o.ms per sample; best of 5 so a preempted sample does not skew K
        double t = 1e30;
        for (int k = 0; k < 5; ++k) t = std::min(t, sample(passes));
        if (t > 0.005 || passes > (1L << 30)) {
          passes = std::max(1L, long(double(passes) * (o.ms / 1000.0) / t));
          break;
        }
        passes *= 4;
      }
      // Floor: at least 256 MiB of traffic per sample, whatever a preempted calibration said.
      passes = std::max(passes, long(((size_t(256) << 20) + bytes - 1) / bytes));
    }
    std::vector<double> g;
    for (int r = 0; r < o.reps; ++r) {
      if (cold) flush(fbuf, fn);
      double t = sample(passes);
      g.push_back(double(bytes) * double(passes) / t * 1e-9);
    }
    Stat st = stats(g);
    const std::string key = std::string(tname) + "." + (cold ? "cold" : "warm") + "." + label(req_bytes);
    std::printf("  %-4s %-5s %12s %10zu %9ld %10.2f %10.2f %10.2f   (4 arrays: %.2f)\n", tname,
                cold ? "cold" : "warm", label(req_bytes).c_str(), bytes, passes, st.med, st.lo, st.hi,
                st.med * 4 / 3);
    std::printf("RESULT triad.%s %.3f %.3f %.3f GB/s\n", key.c_str(), st.med, st.lo, st.hi);
    std::printf("RESULT triad_wa.%s %.3f %.3f %.3f GB/s\n", key.c_str(), st.med * 4 / 3,
                st.lo * 4 / 3, st.hi * 4 / 3);
    std::fflush(stdout);
  }
  // Checksum a few elements (the triad is idempotent: a = b + s*c).
  for (size_t i : {size_t(0), n / 2, n - 1}) {
    T want = T(1) + T(i % 7) + s * T(i % 5);
    if (a[i] != want) { std::fprintf(stderr, "stream_triad: wrong result at %zu\n", i); std::exit(1); }
  }
  std::free(a), std::free(b), std::free(c);
}

}  // namespace

int main(int argc, char** argv) {
  Opts o;
  std::vector<size_t> sizes;
  std::string type = "both";
  size_t flush_bytes = evictionBytes(size_t(256) << 20);  // 3x the L3, at least 256 MiB
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> const char* {
      if (i + 1 >= argc) { std::fprintf(stderr, "stream_triad: %s needs a value\n", a.c_str()); std::exit(2); }
      return argv[++i];
    };
    if (a == "--bytes") sizes.push_back(parse_bytes(next()));
    else if (a == "--type") type = next();
    else if (a == "--mode") {
      std::string m = next();
      o.warm = m == "warm" || m == "both";
      o.cold = m == "cold" || m == "both";
      if (!o.warm && !o.cold) { std::fprintf(stderr, "stream_triad: --mode warm|cold|both\n"); return 2; }
    } else if (a == "--reps") o.reps = std::atoi(next());
    else if (a == "--ms") o.ms = std::atof(next());
    else if (a == "--flush-bytes") flush_bytes = parse_bytes(next());
    else if (a == "--thp") g_thp = true;
    else if (a == "-h" || a == "--help") {
      std::printf("usage: stream_triad [--bytes N]... [--type f32|f64|both] [--mode warm|cold|both]\n"
                  "                    [--reps N>=7] [--ms T] [--flush-bytes N] [--thp]\n");
      return 0;
    } else { std::fprintf(stderr, "stream_triad: unknown argument %s\n", a.c_str()); return 2; }
  }
  if (o.reps < 7) { std::fprintf(stderr, "stream_triad: --reps must be >= 7\n"); return 2; }
  if (type != "f32" && type != "f64" && type != "both") {
    std::fprintf(stderr, "stream_triad: --type f32|f64|both\n");
    return 2;
  }
  if (sizes.empty()) sizes = {48u << 10, 1u << 20, 16u << 20, 64u << 20, size_t(512) << 20};

  const size_t fn = flush_bytes / sizeof(double);
  double* fbuf = nullptr;
  if (o.cold) {
    fbuf = static_cast<double*>(alloc(fn * sizeof(double)));
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < fn; ++i) fbuf[i] = 1.0;
  }
  std::printf("# stream_triad: threads=%d reps=%d warm-sample=%.0f ms cold-flush=%zu MiB; GB/s = 1e9 B/s\n",
              omp_get_max_threads(), o.reps, o.ms, flush_bytes >> 20);
  std::printf("# %-4s %-5s %12s %10s %9s %10s %10s %10s\n", "type", "cache", "footprint", "bytes",
              "passes", "median", "min", "max");
  for (size_t b : sizes) {
    if (type != "f64") run<float>(b, o, fbuf, fn, "f32");
    if (type != "f32") run<double>(b, o, fbuf, fn, "f64");
  }
  std::free(fbuf);
  return 0;
}
