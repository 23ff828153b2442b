// bench_suite.cpp — the issue-5 benchmark driver: for ONE workload of benchmarks/workloads.json it
// times, interleaved in one process, mdh's default and tuned kernels (mdhc-generated shared
// objects, dlopen'ed through their generic SYM_run entry), a naive OpenMP loop nest, and every
// peer built in (OpenBLAS, oneDNN, Eigen, Halide 14 autoscheduled) that can express the workload.
//
// Invariants:
//  * Every implementation writes its own output buffer; its output is compared with a reference
//    (the loop nest computed in double, or exact integer arithmetic) BEFORE it is timed. An
//    implementation whose output does not match is reported with checked=false and no time.
//  * A workload an implementation cannot express gets a result file with median_s = null and
//    a note starting with "n/a".
//  * Timing: rounds; in each round every implementation runs in a rotated order. Warm: one
//    untimed call, then a timed batch of calls (batch sized to >= ~2 ms). Cold: a buffer of 3x
//    the L3, at least 144 MiB (../limits/cache_size.h), is streamed (single-threaded) and the
//    process sleeps briefly (spinning worker threads of the previous implementation go idle),
//    then ONE call is timed. Medians with min and max. A call of 2 s or more is its own
//    warm-up: the checking and calibrating calls are samples, and three samples suffice
//    (Impl::slow).
//  * Alone (--alone-seconds, default 2): after the rounds, each implementation is also timed by
//    itself, single call after single call with nothing in between (the way run_tvm.py's
//    time_evaluator times TVM in its own process), in four rotated blocks per implementation.
//    An implementation is slower when another library ran just before it (MatVec 4096^2: 2-26%
//    on a 32 MiB-L3 EPYC, 6-73% on a 260 MiB-L3 Xeon; benchmarks/suite/analysis.md), so the
//    report compares TVM only with these figures; the interleaved ones compare the in-process
//    implementations.
//  * Memory-bound workloads (metric GB/s) also time the STREAM triad at their footprint as one
//    more implementation, "stream-triad" (not a peer): the report judges the bandwidth goals
//    against it, measured in the same minutes as mdh, not against benchmarks/limits' figures of
//    another hour.
//  * Results: <out>/<impl>.json (warm), <out>/<impl>.cold.json (cold) and <out>/<impl>.alone.json
//    (alone), schema
//    {"workload","impl","variant","median_s","min_s","max_s","runs","checked","max_rel_err","note",...}.
//
// Built by benchmarks/suite/build.sh (never by the main build): peers are compiled in only when
// the build defines WITH_OPENBLAS / WITH_DNNL / WITH_EIGEN / WITH_HALIDE.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <omp.h>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

#include "../limits/cache_size.h"

#ifdef WITH_OPENBLAS
#include <cblas.h>
#endif
#ifdef WITH_DNNL
#include <oneapi/dnnl/dnnl.hpp>
#endif
#ifdef WITH_EIGEN
#define EIGEN_USE_THREADS
#include <Eigen/Dense>
#include <unsupported/Eigen/CXX11/Tensor>
#endif
#ifdef WITH_HALIDE
#include <Halide.h>
#endif

namespace {

using Clock = std::chrono::steady_clock;

[[noreturn]] void die(const std::string &m) {
  std::fprintf(stderr, "bench_suite: %s\n", m.c_str());
  std::exit(2);
}

// ---------------------------------------------------------------- buffers

struct Buf {
  void *p = nullptr;
  size_t bytes = 0;
  Buf() = default;
  explicit Buf(size_t b) : bytes(b) {
    p = std::aligned_alloc(64, (b + 63) / 64 * 64);
    if (!p) die("out of memory");
    std::memset(p, 0, (b + 63) / 64 * 64);
  }
  Buf(const Buf &) = delete;
  Buf &operator=(const Buf &) = delete;
  ~Buf() { std::free(p); }
  template <class T> T *as() const { return static_cast<T *>(p); }
};
using BufP = std::shared_ptr<Buf>;
BufP mk(size_t bytes) { return std::make_shared<Buf>(bytes); }

void fill_uniform(float *p, size_t n, float lo, float hi, unsigned seed) {
  std::mt19937 g(seed);
  std::uniform_real_distribution<float> d(lo, hi);
  for (size_t i = 0; i < n; ++i) p[i] = d(g);
}

// ---------------------------------------------------------------- implementations

struct Impl {
  std::string name;
  std::function<void()> run;  // empty: n/a
  std::string note;
  BufP out;                   // this implementation's output
  std::function<void()> prepare;  // optional, untimed (e.g. re-zero an accumulating output)
  // Optional: poisons this implementation's output, runs it once and returns its error, for an
  // implementation whose output is not the workload's (the STREAM triad); replaces w.check.
  std::function<double()> self_check;
  // filled in:
  bool checked = false;
  double err = NAN;
  double check_s = 0;         // the checked call's time
  std::vector<double> warm, cold, alone;
  // A call of kSlowCallS or more is its own warm-up (caches and thread pools cannot matter at
  // that scale): the checked and calibration calls count as samples, rounds time it without an
  // untimed call first, and kSlowSamples suffice (oneDNN's reference convolution takes 50 s per
  // call at batch 16: 5 rounds of two calls each made the driver run 14 minutes).
  static constexpr double kSlowCallS = 2.0;
  static constexpr size_t kSlowSamples = 3;
  bool slow() const { return check_s >= kSlowCallS; }
};

// Comparison of an implementation's output with the reference.
struct Checker {
  std::function<double(const Buf &)> rel_err;  // max |x - ref| / max |ref| (0 for exact match)
  double tol = 1e-3;
};

struct Workload {
  std::string id, kind;
  std::map<std::string, long> d;
  double flops = 0, bytes = 0;
  std::string metric;
  std::vector<BufP> inputs;
  size_t out_bytes = 0;
  Checker check;
  std::vector<Impl> impls;
  bool cold = false;
  long dim(const std::string &k) const {
    auto it = d.find(k);
    if (it == d.end()) die("missing dimension " + k);
    return it->second;
  }
};

Checker float_checker(std::shared_ptr<std::vector<double>> ref, double tol) {
  Checker c;
  c.tol = tol;
  c.rel_err = [ref](const Buf &b) {
    const float *x = b.as<float>();
    double scale = 0, e = 0;
    for (double r : *ref) scale = std::max(scale, std::fabs(r));
    if (scale == 0) scale = 1;
    for (size_t i = 0; i < ref->size(); ++i) {
      double di = std::fabs(double(x[i]) - (*ref)[i]);
      if (!(di <= e)) e = di;  // NaN propagates as a mismatch
    }
    return e / scale;
  };
  return c;
}

template <class T> Checker exact_checker(std::shared_ptr<std::vector<T>> ref) {
  Checker c;
  c.tol = 0;
  c.rel_err = [ref](const Buf &b) {
    return std::memcmp(b.p, ref->data(), ref->size() * sizeof(T)) == 0 ? 0.0 : 1.0;
  };
  return c;
}

// ---------------------------------------------------------------- mdh (dlopen)

using RunFn = int (*)(const int64_t *, void *const *);

void add_mdh(Workload &w, const std::string &impl, const std::string &so, const std::string &why_missing,
             const std::string &extra_note) {
  Impl im;
  im.name = impl;
  im.out = mk(w.out_bytes);
  if (so.empty()) {
    im.note = !why_missing.empty()       ? why_missing
              : impl == "mdh-tuned" ? "n/a: no tuned configuration for this workload yet"
                                    : "n/a: no kernel given";
    w.impls.push_back(im);
    return;
  }
  void *h = dlopen(so.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!h) die(std::string("dlopen: ") + dlerror());
  std::string stem = so.substr(so.find_last_of('/') + 1);
  stem = stem.substr(0, stem.rfind(".so"));
  auto fn = reinterpret_cast<RunFn>(dlsym(h, (stem + "_run").c_str()));
  if (!fn) die("no symbol " + stem + "_run in " + so);
  auto bufs = std::make_shared<std::vector<void *>>();
  for (auto &b : w.inputs) bufs->push_back(b->p);
  bufs->push_back(im.out->p);
  static const int64_t no_sizes[1] = {0};
  im.run = [fn, bufs] {
    if (fn(no_sizes, bufs->data()) != 0) die("mdh kernel returned an error");
  };
  im.note = "mdhc OpenMP kernel " + stem + (extra_note.empty() ? "" : "; " + extra_note);
  w.impls.push_back(im);
}

Impl na(const std::string &name, const std::string &why) {
  Impl im;
  im.name = name;
  im.note = "n/a: " + why;
  return im;
}

// ---------------------------------------------------------------- Halide helper

#ifdef WITH_HALIDE
// Builds the pipeline with each autoscheduler plugin, JIT-compiles it, checks its output and
// keeps the fastest over a few calls. make(): fresh Funcs (a schedule is applied to them).
struct HalideChoice {
  std::function<void()> run;
  std::string note;
};
bool halide_plugins_loaded = false;
std::vector<std::string> halide_schedulers() {
  static std::vector<std::string> names;
  if (!halide_plugins_loaded) {
    halide_plugins_loaded = true;
    const char *dir = std::getenv("HALIDE_PLUGIN_DIR");
    std::string d = dir ? dir : "/usr/lib/x86_64-linux-gnu/halide14";
    for (auto [lib, name] : {std::pair<const char *, const char *>{"libautoschedule_mullapudi2016.so", "Mullapudi2016"},
                             {"libautoschedule_adams2019.so", "Adams2019"},
                             {"libautoschedule_li2018.so", "Li2018"}}) {
      try {
        Halide::load_plugin(d + "/" + lib);
        names.push_back(name);
      } catch (const std::exception &e) {
        std::fprintf(stderr, "halide: cannot load %s: %s\n", lib, e.what());
      }
    }
  }
  return names;
}

Impl halide_impl(Workload &w, const std::function<Halide::Func()> &make,
                 const std::function<Halide::Buffer<>(void *)> &wrap_out) {
  Impl im;
  im.name = "halide";
  im.out = mk(w.out_bytes);
  Halide::Target tgt = Halide::get_jit_target_from_environment();
  Halide::MachineParams mp(omp_get_max_threads(), 48ull << 20, 40);
  double best = 1e30;
  std::string tried;
  for (const auto &s : halide_schedulers()) {
    try {
      Halide::Func f = make();
      auto p = std::make_shared<Halide::Pipeline>(f);
      p->auto_schedule(s, tgt, mp);
      p->compile_jit(tgt);
      auto ob = std::make_shared<Halide::Buffer<>>(wrap_out(im.out->p));
      auto run = [p, ob] { p->realize(Halide::Pipeline::RealizationArg(*ob)); };
      std::memset(im.out->p, 0, w.out_bytes);
      run();
      double e = w.check.rel_err(*im.out);
      if (!(e <= w.check.tol)) {
        tried += s + ": wrong output (rel err " + std::to_string(e) + "); ";
        continue;
      }
      std::vector<double> ts;
      for (int i = 0; i < 3; ++i) {
        auto t0 = Clock::now();
        run();
        ts.push_back(std::chrono::duration<double>(Clock::now() - t0).count());
      }
      std::sort(ts.begin(), ts.end());
      tried += s + " " + std::to_string(ts[1] * 1e3) + " ms; ";
      if (ts[1] < best) {
        best = ts[1];
        im.run = run;
        im.note = "Halide 14 JIT, autoscheduler " + s + " (MachineParams " + mp.to_string() + ")";
      }
    } catch (const std::exception &e) {
      tried += s + ": failed (" + std::string(e.what()).substr(0, 120) + "); ";
    }
  }
  if (!im.run) im.note = "failed: no autoscheduler produced a correct pipeline: " + tried;
  else im.note += "; selection by 3 untimed-in-report calls: " + tried;
  return im;
}
#endif

// ---------------------------------------------------------------- oneDNN helpers

#ifdef WITH_DNNL
dnnl::engine &eng() {
  static dnnl::engine e(dnnl::engine::kind::cpu, 0);
  return e;
}
// C[M,N] = A[M,K] * B[K,N], row-major. prepacked: B reordered once into the primitive's
// preferred layout outside the timed region.
Impl dnnl_matmul(Workload &w, const std::string &name, const float *A, const float *B, long M, long N,
                 long K, bool prepacked) {
  using namespace dnnl;
  using tag = memory::format_tag;
  using dt = memory::data_type;
  Impl im;
  im.name = name;
  im.out = mk(w.out_bytes);
  memory::desc a_md({M, K}, dt::f32, tag::ab), c_md({M, N}, dt::f32, tag::ab);
  memory::desc b_plain({K, N}, dt::f32, tag::ab);
  memory::desc b_md = prepacked ? memory::desc({K, N}, dt::f32, tag::any) : b_plain;
  auto pd = matmul::primitive_desc(matmul::desc(a_md, b_md, c_md), eng());
  auto s = std::make_shared<stream>(eng());
  auto am = memory(a_md, eng(), const_cast<float *>(A));
  auto cm = memory(c_md, eng(), im.out->p);
  auto bsrc = memory(b_plain, eng(), const_cast<float *>(B));
  memory bm = bsrc;
  std::string layout = "plain row-major weights";
  if (pd.weights_desc() != b_plain) {
    bm = memory(pd.weights_desc(), eng());
    reorder(bsrc, bm).execute(*s, bsrc, bm);
    s->wait();
    layout = "weights reordered once (untimed) into the primitive's preferred layout";
  } else if (prepacked) {
    layout = "the primitive's preferred weights layout is plain row-major (same as onednn)";
  }
  auto prim = std::make_shared<matmul>(pd);
  std::unordered_map<int, memory> args{{DNNL_ARG_SRC, am}, {DNNL_ARG_WEIGHTS, bm}, {DNNL_ARG_DST, cm}};
  im.run = [prim, s, args] {
    prim->execute(*s, args);
    s->wait();
  };
  im.note = std::string("oneDNN ") + std::to_string(dnnl_version()->major) + "." +
            std::to_string(dnnl_version()->minor) + "." + std::to_string(dnnl_version()->patch) +
            " matmul primitive, " + layout + ", impl " + pd.impl_info_str();
  return im;
}
#endif

// ---------------------------------------------------------------- STREAM triad

// a[i] = b[i] + s * c[i] over one thread's contiguous range, the loop of
// benchmarks/limits/stream_triad.cpp; noinline so that back-to-back calls are not merged.
__attribute__((noinline)) void triad_range(float *__restrict a, const float *__restrict b, const float *__restrict c,
                                           float s, size_t lo, size_t hi) {
  for (size_t i = lo; i < hi; ++i) a[i] = b[i] + s * c[i];
}

/// The STREAM triad at the workload's footprint (w.bytes, the three arrays together), timed as
/// an implementation (warm, cold and alone, interleaved with the others): the memory-bound goals
/// compare mdh with the bandwidth of the same minutes, which moves on this shared machine (the
/// same triad measured 57, 103 and 56 GB/s three minutes apart). As in stream_triad.cpp, each
/// thread first touches and then owns a range of whole cache lines of each array; each call is
/// one parallel region, as a kernel's call is. Its output is a[], checked by itself.
Impl triad_impl(const Workload &w) {
  Impl im;
  im.name = "stream-triad";
  const size_t line = 64 / sizeof(float);
  const size_t threads = size_t(omp_get_max_threads());
  const size_t n = std::max(size_t(w.bytes) / (3 * sizeof(float)) / line * line, line * threads);
  auto a = mk(n * sizeof(float)), b = mk(n * sizeof(float)), c = mk(n * sizeof(float));
  auto lo = std::make_shared<std::vector<size_t>>(threads + 1);
  for (size_t t = 0; t <= threads; ++t) (*lo)[t] = n / line * t / threads * line;
  float *pa = a->as<float>(), *pb = b->as<float>(), *pc = c->as<float>();
#pragma omp parallel num_threads(int(threads))
  {
    const size_t t = size_t(omp_get_thread_num());
    for (size_t i = (*lo)[t]; i < (*lo)[t + 1]; ++i) pa[i] = 0, pb[i] = 1.0f + float(i % 7), pc[i] = float(i % 5);
  }
  constexpr float s = 3.0f;
  im.out = a;
  im.run = [pa, pb, pc, lo, threads, b, c] {
#pragma omp parallel num_threads(int(threads))
    {
      const size_t t = size_t(omp_get_thread_num());
      triad_range(pa, pb, pc, s, (*lo)[t], (*lo)[t + 1]);
    }
  };
  im.self_check = [pa, n, run = im.run] {
    std::memset(pa, 0xff, n * sizeof(float));
    run();
    double err = 0;
    for (size_t i = 0; i < n; ++i) {
      if (std::isnan(pa[i])) return double(INFINITY);  // the poison: a cell not written
      const double want = 1.0 + double(i % 7) + 3.0 * double(i % 5);
      err = std::max(err, std::fabs(double(pa[i]) - want) / want);
    }
    return err;
  };
  char note[200];
  std::snprintf(note, sizeof note,
                "the machine's limit, not a peer: a[i] = b[i] + s*c[i], 3 x %zu f32 = %zu B (this workload's "
                "footprint), %zu threads; GB/s counts the 3 arrays, as STREAM does",
                n, 3 * n * sizeof(float), threads);
  im.note = note;
  return im;
}

// ---------------------------------------------------------------- workload kinds

void setup_matmul(Workload &w) {
  long M = w.dim("M"), N = w.dim("N"), K = w.dim("K");
  auto A = mk(4 * M * K), B = mk(4 * K * N);
  fill_uniform(A->as<float>(), M * K, -1, 1, 1);
  fill_uniform(B->as<float>(), K * N, -1, 1, 2);
  w.inputs = {A, B};
  w.out_bytes = 4 * M * N;
  auto ref = std::make_shared<std::vector<double>>(M * N, 0.0);
  const float *a = A->as<float>(), *b = B->as<float>();
#pragma omp parallel for
  for (long i = 0; i < M; ++i)
    for (long k = 0; k < K; ++k) {
      double x = a[i * K + k];
      for (long j = 0; j < N; ++j) (*ref)[i * N + j] += x * b[k * N + j];
    }
  w.check = float_checker(ref, 1e-4);
  {
    Impl im;
    im.name = "naive-omp";
    im.out = mk(w.out_bytes);
    float *c = im.out->as<float>();
    im.run = [=] {
#pragma omp parallel for
      for (long i = 0; i < M; ++i)
        for (long j = 0; j < N; ++j) {
          float s = 0;
          for (long k = 0; k < K; ++k) s += a[i * K + k] * b[k * N + j];
          c[i * N + j] = s;
        }
    };
    im.note = "i-j-k loop nest as the formula reads, parallel for over i";
    w.impls.push_back(im);
  }
#ifdef WITH_OPENBLAS
  {
    Impl im;
    im.name = "openblas";
    im.out = mk(w.out_bytes);
    float *c = im.out->as<float>();
    im.run = [=] { cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, M, N, K, 1.f, a, K, b, N, 0.f, c, N); };
    im.note = "cblas_sgemm CblasRowMajor NoTrans/NoTrans";
    w.impls.push_back(im);
  }
  w.impls.push_back(na("openblas-packed", "OpenBLAS 0.3.21 has no packed-GEMM API"));
#endif
#ifdef WITH_DNNL
  w.impls.push_back(dnnl_matmul(w, "onednn", a, b, M, N, K, false));
  w.impls.push_back(dnnl_matmul(w, "onednn-prepacked", a, b, M, N, K, true));
#endif
#ifdef WITH_EIGEN
  {
    Impl im;
    im.name = "eigen";
    im.out = mk(w.out_bytes);
    float *c = im.out->as<float>();
    using RM = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
    im.run = [=] {
      Eigen::Map<const RM> ea(a, M, K), eb(b, K, N);
      Eigen::Map<RM> ec(c, M, N);
      ec.noalias() = ea * eb;
    };
    im.note = "Eigen " + std::to_string(EIGEN_WORLD_VERSION) + "." + std::to_string(EIGEN_MAJOR_VERSION) + "." +
              std::to_string(EIGEN_MINOR_VERSION) + " row-major Map, noalias product (OpenMP-parallel GEMM, " +
              std::to_string(Eigen::nbThreads()) + " threads)";
    w.impls.push_back(im);
  }
#endif
#ifdef WITH_HALIDE
  {
    Halide::Buffer<float> hA(const_cast<float *>(a), {int(K), int(M)}), hB(const_cast<float *>(b), {int(N), int(K)});
    w.impls.push_back(halide_impl(
        w,
        [=] {
          Halide::Var j("j"), i("i");
          Halide::RDom k(0, int(K));
          Halide::Func C("C");
          C(j, i) = 0.f;
          C(j, i) += hA(k, i) * hB(j, k);
          C.set_estimate(j, 0, int(N)).set_estimate(i, 0, int(M));
          return C;
        },
        [=](void *p) { return Halide::Buffer<>(Halide::Buffer<float>(static_cast<float *>(p), {int(N), int(M)})); }));
  }
#endif
}

void setup_matvec(Workload &w) {
  long M = w.dim("M"), K = w.dim("K");
  auto A = mk(4 * M * K), X = mk(4 * K);
  fill_uniform(A->as<float>(), M * K, -1, 1, 1);
  fill_uniform(X->as<float>(), K, -1, 1, 2);
  w.inputs = {A, X};
  w.out_bytes = 4 * M;
  const float *a = A->as<float>(), *x = X->as<float>();
  auto ref = std::make_shared<std::vector<double>>(M, 0.0);
#pragma omp parallel for
  for (long i = 0; i < M; ++i) {
    double s = 0;
    for (long k = 0; k < K; ++k) s += double(a[i * K + k]) * x[k];
    (*ref)[i] = s;
  }
  w.check = float_checker(ref, 1e-4);
  {
    Impl im;
    im.name = "naive-omp";
    im.out = mk(w.out_bytes);
    float *y = im.out->as<float>();
    im.run = [=] {
#pragma omp parallel for
      for (long i = 0; i < M; ++i) {
        float s = 0;
        for (long k = 0; k < K; ++k) s += a[i * K + k] * x[k];
        y[i] = s;
      }
    };
    im.note = "i-k loop nest, parallel for over i";
    w.impls.push_back(im);
  }
#ifdef WITH_OPENBLAS
  {
    Impl im;
    im.name = "openblas";
    im.out = mk(w.out_bytes);
    float *y = im.out->as<float>();
    im.run = [=] { cblas_sgemv(CblasRowMajor, CblasNoTrans, M, K, 1.f, a, K, x, 1, 0.f, y, 1); };
    im.note = "cblas_sgemv CblasRowMajor NoTrans";
    w.impls.push_back(im);
  }
  w.impls.push_back(na("openblas-packed", "no packed GEMV API"));
#endif
#ifdef WITH_DNNL
  w.impls.push_back(dnnl_matmul(w, "onednn", a, x, M, 1, K, false));
  w.impls.push_back(na("onednn-prepacked", "the weights are the vector x; nothing to prepack"));
#endif
#ifdef WITH_EIGEN
  {
    Impl im;
    im.name = "eigen";
    im.out = mk(w.out_bytes);
    float *y = im.out->as<float>();
    using RM = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
    im.run = [=] {
      Eigen::Map<const RM> ea(a, M, K);
      Eigen::Map<const Eigen::VectorXf> ex(x, K);
      Eigen::Map<Eigen::VectorXf> ey(y, M);
      ey.noalias() = ea * ex;
    };
    im.note = "Eigen row-major Map * vector (Eigen's GEMV is single-threaded)";
    w.impls.push_back(im);
  }
#endif
#ifdef WITH_HALIDE
  {
    Halide::Buffer<float> hA(const_cast<float *>(a), {int(K), int(M)}), hx(const_cast<float *>(x), {int(K)});
    w.impls.push_back(halide_impl(
        w,
        [=] {
          Halide::Var i("i");
          Halide::RDom k(0, int(K));
          Halide::Func y("y");
          y(i) = 0.f;
          y(i) += hA(k, i) * hx(k);
          y.set_estimate(i, 0, int(M));
          return y;
        },
        [=](void *p) { return Halide::Buffer<>(Halide::Buffer<float>(static_cast<float *>(p), {int(M)})); }));
  }
#endif
}

void setup_dot(Workload &w) {
  long K = w.dim("K");
  auto A = mk(4 * K), B = mk(4 * K);
  fill_uniform(A->as<float>(), K, -1, 1, 1);
  fill_uniform(B->as<float>(), K, -1, 1, 2);
  w.inputs = {A, B};
  w.out_bytes = 4;
  const float *a = A->as<float>(), *b = B->as<float>();
  double s = 0;
  for (long k = 0; k < K; ++k) s += double(a[k]) * b[k];
  // The sum of 2^24 products of magnitude ~1/3 with random signs is ~ +-1000 while the
  // partial sums' rounding is relative to their own size: compare against sum |a b|.
  double abs_sum = 0;
  for (long k = 0; k < K; ++k) abs_sum += std::fabs(double(a[k]) * b[k]);
  Checker c;
  c.tol = 1e-5;
  c.rel_err = [s, abs_sum](const Buf &bf) { return std::fabs(double(*bf.as<float>()) - s) / abs_sum; };
  w.check = c;
  {
    Impl im;
    im.name = "naive-omp";
    im.out = mk(4);
    float *y = im.out->as<float>();
    im.run = [=] {
      float acc = 0;
#pragma omp parallel for reduction(+ : acc)
      for (long k = 0; k < K; ++k) acc += a[k] * b[k];
      *y = acc;
    };
    im.note = "parallel for reduction(+) over k";
    w.impls.push_back(im);
  }
#ifdef WITH_OPENBLAS
  {
    Impl im;
    im.name = "openblas";
    im.out = mk(4);
    float *y = im.out->as<float>();
    im.run = [=] { *y = cblas_sdot(K, a, 1, b, 1); };
    im.note = "cblas_sdot";
    w.impls.push_back(im);
  }
  w.impls.push_back(na("openblas-packed", "no packed variant of a dot product"));
#endif
#ifdef WITH_DNNL
  w.impls.push_back(dnnl_matmul(w, "onednn", a, b, 1, 1, K, false));
  w.impls.push_back(na("onednn-prepacked", "nothing to prepack for a dot product"));
#endif
#ifdef WITH_EIGEN
  {
    Impl im;
    im.name = "eigen";
    im.out = mk(4);
    float *y = im.out->as<float>();
    im.run = [=] {
      Eigen::Map<const Eigen::VectorXf> ea(a, K), eb(b, K);
      *y = ea.dot(eb);
    };
    im.note = "Eigen VectorXf::dot (single-threaded)";
    w.impls.push_back(im);
  }
#endif
#ifdef WITH_HALIDE
  w.impls.push_back(na("halide", "not attempted for a scalar reduction"));
#endif
}

void setup_jacobi(Workload &w, int nd) {
  long N1, N2 = 1, N3 = 1;
  if (nd == 1) N1 = w.dim("N");
  else {
    N1 = w.dim("N1");
    N2 = w.dim("N2");
    if (nd == 3) N3 = w.dim("N3");
  }
  // Input (N1+2) x (N2+2) x (N3+2) (missing dimensions of extent 1 have no halo).
  long E1 = N1 + 2, E2 = nd >= 2 ? N2 + 2 : 1, E3 = nd == 3 ? N3 + 2 : 1;
  auto I = mk(4 * E1 * E2 * E3);
  fill_uniform(I->as<float>(), E1 * E2 * E3, 0, 1, 1);
  w.inputs = {I};
  w.out_bytes = 4 * N1 * N2 * N3;
  const float *in = I->as<float>();
  auto ref = std::make_shared<std::vector<double>>(N1 * N2 * N3);
  auto at = [=](long i, long j, long k) { return in[(i * E2 + j) * E3 + k]; };
  // The reference uses the same float coefficients as the MDH programs.
  const float c1 = 0.33333333f, c2 = 0.2f, c3 = 0.14285714f;
#pragma omp parallel for
  for (long i = 0; i < N1; ++i)
    for (long j = 0; j < N2; ++j)
      for (long k = 0; k < N3; ++k) {
        double v;
        if (nd == 1) v = double(c1) * (double(at(i, 0, 0)) + at(i + 1, 0, 0) + at(i + 2, 0, 0));
        else if (nd == 2)
          v = double(c2) * (double(at(i, j + 1, 0)) + at(i + 1, j, 0) + at(i + 1, j + 1, 0) + at(i + 1, j + 2, 0) +
                            at(i + 2, j + 1, 0));
        else
          v = double(c3) * (double(at(i, j + 1, k + 1)) + at(i + 1, j, k + 1) + at(i + 1, j + 1, k) +
                            at(i + 1, j + 1, k + 1) + at(i + 1, j + 1, k + 2) + at(i + 1, j + 2, k + 1) +
                            at(i + 2, j + 1, k + 1));
        (*ref)[(i * N2 + j) * N3 + k] = v;
      }
  w.check = float_checker(ref, 1e-5);
  {
    Impl im;
    im.name = "naive-omp";
    im.out = mk(w.out_bytes);
    float *o = im.out->as<float>();
    im.run = [=] {
      if (nd == 1) {
#pragma omp parallel for
        for (long i = 0; i < N1; ++i) o[i] = c1 * (in[i] + in[i + 1] + in[i + 2]);
      } else if (nd == 2) {
#pragma omp parallel for
        for (long i = 0; i < N1; ++i)
          for (long j = 0; j < N2; ++j)
            o[i * N2 + j] = c2 * (in[i * E2 + j + 1] + in[(i + 1) * E2 + j] + in[(i + 1) * E2 + j + 1] +
                                  in[(i + 1) * E2 + j + 2] + in[(i + 2) * E2 + j + 1]);
      } else {
#pragma omp parallel for
        for (long i = 0; i < N1; ++i)
          for (long j = 0; j < N2; ++j)
            for (long k = 0; k < N3; ++k)
              o[(i * N2 + j) * N3 + k] =
                  c3 * (in[(i * E2 + j + 1) * E3 + k + 1] + in[((i + 1) * E2 + j) * E3 + k + 1] +
                        in[((i + 1) * E2 + j + 1) * E3 + k] + in[((i + 1) * E2 + j + 1) * E3 + k + 1] +
                        in[((i + 1) * E2 + j + 1) * E3 + k + 2] + in[((i + 1) * E2 + j + 2) * E3 + k + 1] +
                        in[((i + 2) * E2 + j + 1) * E3 + k + 1]);
      }
    };
    im.note = "loop nest, parallel for over the outermost dimension";
    w.impls.push_back(im);
  }
#ifdef WITH_OPENBLAS
  w.impls.push_back(na("openblas", "BLAS has no stencils"));
#endif
#ifdef WITH_DNNL
  w.impls.push_back(na("onednn", "not expressed (a stencil as a fixed-weight depthwise convolution was not attempted)"));
#endif
#ifdef WITH_EIGEN
  w.impls.push_back(na("eigen", "not attempted for stencils"));
#endif
#ifdef WITH_HALIDE
  {
    float *inp = const_cast<float *>(in);
    Halide::Buffer<float> hI = nd == 1   ? Halide::Buffer<float>(inp, {int(E1)})
                               : nd == 2 ? Halide::Buffer<float>(inp, {int(E2), int(E1)})
                                         : Halide::Buffer<float>(inp, {int(E3), int(E2), int(E1)});
    w.impls.push_back(halide_impl(
        w,
        [=] {
          Halide::Var x("x"), y("y"), z("z");
          Halide::Func O("O");
          if (nd == 1) {
            O(x) = c1 * (hI(x) + hI(x + 1) + hI(x + 2));
            O.set_estimate(x, 0, int(N1));
          } else if (nd == 2) {  // x = j (innermost), y = i
            O(x, y) = c2 * (hI(x + 1, y) + hI(x, y + 1) + hI(x + 1, y + 1) + hI(x + 2, y + 1) + hI(x + 1, y + 2));
            O.set_estimate(x, 0, int(N2)).set_estimate(y, 0, int(N1));
          } else {  // x = k, y = j, z = i
            O(x, y, z) = c3 * (hI(x + 1, y + 1, z) + hI(x + 1, y, z + 1) + hI(x, y + 1, z + 1) +
                               hI(x + 1, y + 1, z + 1) + hI(x + 2, y + 1, z + 1) + hI(x + 1, y + 2, z + 1) +
                               hI(x + 1, y + 1, z + 2));
            O.set_estimate(x, 0, int(N3)).set_estimate(y, 0, int(N2)).set_estimate(z, 0, int(N1));
          }
          return O;
        },
        [=](void *p) {
          float *o = static_cast<float *>(p);
          return Halide::Buffer<>(nd == 1   ? Halide::Buffer<float>(o, {int(N1)})
                                  : nd == 2 ? Halide::Buffer<float>(o, {int(N2), int(N1)})
                                            : Halide::Buffer<float>(o, {int(N3), int(N2), int(N1)}));
        }));
  }
#endif
}

void setup_mcc(Workload &w) {
  long N = w.dim("N"), C = w.dim("C"), K = w.dim("K"), R = w.dim("R"), S = w.dim("S"), st = w.dim("stride"),
       P = w.dim("P"), Q = w.dim("Q");
  // VALID padding reads rows 0 .. st(P-1)+R-1 only: the input every implementation gets has
  // exactly that extent (see benchmarks/workloads/programs.json, mcc_rn50_*).
  long H = st * (P - 1) + R, W = st * (Q - 1) + S;
  auto I = mk(4 * N * H * W * C), F = mk(4 * K * R * S * C);
  fill_uniform(I->as<float>(), N * H * W * C, -1, 1, 1);
  fill_uniform(F->as<float>(), K * R * S * C, -1, 1, 2);
  w.inputs = {I, F};
  w.out_bytes = 4 * N * P * Q * K;
  const float *in = I->as<float>(), *f = F->as<float>();
  auto ref = std::make_shared<std::vector<double>>(N * P * Q * K);
#pragma omp parallel for collapse(2)
  for (long n = 0; n < N; ++n)
    for (long p = 0; p < P; ++p)
      for (long q = 0; q < Q; ++q)
        for (long k = 0; k < K; ++k) {
          double s = 0;
          for (long r = 0; r < R; ++r)
            for (long t = 0; t < S; ++t)
              for (long c = 0; c < C; ++c)
                s += double(in[((n * H + st * p + r) * W + st * q + t) * C + c]) * f[((k * R + r) * S + t) * C + c];
          (*ref)[((n * P + p) * Q + q) * K + k] = s;
        }
  w.check = float_checker(ref, 1e-4);
  {
    Impl im;
    im.name = "naive-omp";
    im.out = mk(w.out_bytes);
    float *o = im.out->as<float>();
    im.run = [=] {
#pragma omp parallel for collapse(2)
      for (long n = 0; n < N; ++n)
        for (long p = 0; p < P; ++p)
          for (long q = 0; q < Q; ++q)
            for (long k = 0; k < K; ++k) {
              float s = 0;
              for (long r = 0; r < R; ++r)
                for (long t = 0; t < S; ++t)
                  for (long c = 0; c < C; ++c)
                    s += in[((n * H + st * p + r) * W + st * q + t) * C + c] * f[((k * R + r) * S + t) * C + c];
              o[((n * P + p) * Q + q) * K + k] = s;
            }
    };
    im.note = "n-p-q-k-r-s-c loop nest, parallel for over (n,p) collapsed (n is 1 at batch 1)";
    w.impls.push_back(im);
  }
#ifdef WITH_OPENBLAS
  w.impls.push_back(na("openblas", "BLAS has no convolution (im2col + sgemm not attempted)"));
#endif
#ifdef WITH_DNNL
  for (bool prepacked : {false, true}) {
    using namespace dnnl;
    using tag = memory::format_tag;
    using dt = memory::data_type;
    Impl im;
    im.name = prepacked ? "onednn-prepacked" : "onednn";
    im.out = mk(w.out_bytes);
    memory::desc src_md({N, C, H, W}, dt::f32, tag::nhwc), dst_md({N, K, P, Q}, dt::f32, tag::nhwc);
    memory::desc wei_plain({K, C, R, S}, dt::f32, tag::ohwi);
    memory::desc wei_md = prepacked ? memory::desc({K, C, R, S}, dt::f32, tag::any) : wei_plain;
    convolution_forward::desc cd(prop_kind::forward_inference, algorithm::convolution_direct, src_md, wei_md, dst_md,
                                 {st, st}, {0, 0}, {0, 0});
    convolution_forward::primitive_desc pd(cd, eng());
    auto s = std::make_shared<stream>(eng());
    auto sm = memory(src_md, eng(), const_cast<float *>(in));
    auto dm = memory(dst_md, eng(), im.out->p);
    auto wsrc = memory(wei_plain, eng(), const_cast<float *>(f));
    memory wm = wsrc;
    std::string layout = "NHWC src/dst, OHWI (=KRSC) weights as given";
    if (pd.weights_desc() != wei_plain) {
      if (!prepacked) die("oneDNN convolution rejected plain OHWI weights");
      wm = memory(pd.weights_desc(), eng());
      reorder(wsrc, wm).execute(*s, wsrc, wm);
      s->wait();
      layout = "NHWC src/dst, weights reordered once (untimed) into the primitive's preferred layout";
    } else if (prepacked) {
      layout = "NHWC src/dst; preferred weights layout is OHWI itself";
    }
    auto prim = std::make_shared<convolution_forward>(pd);
    std::unordered_map<int, memory> args{{DNNL_ARG_SRC, sm}, {DNNL_ARG_WEIGHTS, wm}, {DNNL_ARG_DST, dm}};
    im.run = [prim, s, args] {
      prim->execute(*s, args);
      s->wait();
    };
    im.note = "oneDNN convolution_forward (direct, inference), " + layout + ", impl " + pd.impl_info_str();
    w.impls.push_back(im);
  }
#endif
#ifdef WITH_EIGEN
  w.impls.push_back(na("eigen", "no strided multi-channel convolution in Eigen's documented API"));
#endif
#ifdef WITH_HALIDE
  {
    // Halide dimension order is innermost first: input (c, w, h, n), filter (c, s, r, k),
    // output (k, q, p, n).
    Halide::Buffer<float> hI(const_cast<float *>(in), {int(C), int(W), int(H), int(N)});
    Halide::Buffer<float> hF(const_cast<float *>(f), {int(C), int(S), int(R), int(K)});
    w.impls.push_back(halide_impl(
        w,
        [=] {
          Halide::Var k("k"), q("q"), p("p"), n("n");
          Halide::RDom rd(0, int(C), 0, int(S), 0, int(R));
          Halide::Func O("O");
          O(k, q, p, n) = 0.f;
          O(k, q, p, n) += hI(rd.x, int(st) * q + rd.y, int(st) * p + rd.z, n) * hF(rd.x, rd.y, rd.z, k);
          O.set_estimate(k, 0, int(K)).set_estimate(q, 0, int(Q)).set_estimate(p, 0, int(P)).set_estimate(n, 0, int(N));
          return O;
        },
        [=](void *pp) {
          return Halide::Buffer<>(Halide::Buffer<float>(static_cast<float *>(pp), {int(K), int(Q), int(P), int(N)}));
        }));
  }
#endif
}

void setup_ccsdt(Workload &w) {
  long A_ = w.dim("a"), B_ = w.dim("b"), C_ = w.dim("c"), I_ = w.dim("i"), J_ = w.dim("j"), K_ = w.dim("k"),
       M_ = w.dim("m");
  bool first = w.id == "ccsdt_ijma_mkbc";
  if (!first && w.id != "ccsdt_ikmb_mjac") die("unknown contraction " + w.id);
  // first:  C[a,b,c,i,j,k] = sum_m A[i,j,m,a] * B[m,k,b,c]
  // second: C[a,b,c,i,j,k] = sum_m A[i,k,m,b] * B[m,j,a,c]
  long nA = first ? I_ * J_ * M_ * A_ : I_ * K_ * M_ * B_, nB = first ? M_ * K_ * B_ * C_ : M_ * J_ * A_ * C_;
  auto Ab = mk(4 * nA), Bb = mk(4 * nB);
  fill_uniform(Ab->as<float>(), nA, -1, 1, 1);
  fill_uniform(Bb->as<float>(), nB, -1, 1, 2);
  w.inputs = {Ab, Bb};
  long nC = A_ * B_ * C_ * I_ * J_ * K_;
  w.out_bytes = 4 * nC;
  const float *a = Ab->as<float>(), *b = Bb->as<float>();
  auto ia = [=](long aa, long bb, long i, long j, long k, long m) {
    return first ? ((i * J_ + j) * M_ + m) * A_ + aa : ((i * K_ + k) * M_ + m) * B_ + bb;
  };
  auto ib = [=](long aa, long bb, long cc, long j, long k, long m) {
    return first ? ((m * K_ + k) * B_ + bb) * C_ + cc : ((m * J_ + j) * A_ + aa) * C_ + cc;
  };
  auto ref = std::make_shared<std::vector<double>>(nC);
#pragma omp parallel for collapse(2)
  for (long aa = 0; aa < A_; ++aa)
    for (long bb = 0; bb < B_; ++bb)
      for (long cc = 0; cc < C_; ++cc)
        for (long i = 0; i < I_; ++i)
          for (long j = 0; j < J_; ++j)
            for (long k = 0; k < K_; ++k) {
              double s = 0;
              for (long m = 0; m < M_; ++m) s += double(a[ia(aa, bb, i, j, k, m)]) * b[ib(aa, bb, cc, j, k, m)];
              (*ref)[((((aa * B_ + bb) * C_ + cc) * I_ + i) * J_ + j) * K_ + k] = s;
            }
  w.check = float_checker(ref, 1e-5);
  {
    Impl im;
    im.name = "naive-omp";
    im.out = mk(w.out_bytes);
    float *o = im.out->as<float>();
    im.run = [=] {
#pragma omp parallel for
      for (long aa = 0; aa < A_; ++aa)
        for (long bb = 0; bb < B_; ++bb)
          for (long cc = 0; cc < C_; ++cc)
            for (long i = 0; i < I_; ++i)
              for (long j = 0; j < J_; ++j)
                for (long k = 0; k < K_; ++k) {
                  float s = 0;
                  for (long m = 0; m < M_; ++m) s += a[ia(aa, bb, i, j, k, m)] * b[ib(aa, bb, cc, j, k, m)];
                  o[((((aa * B_ + bb) * C_ + cc) * I_ + i) * J_ + j) * K_ + k] = s;
                }
    };
    im.note = "a-b-c-i-j-k-m loop nest, parallel for over a";
    w.impls.push_back(im);
  }
#ifdef WITH_OPENBLAS
  w.impls.push_back(na("openblas", "a transpose-transpose-GEMM-transpose (TTGT) pipeline around sgemm was not attempted"));
#endif
#ifdef WITH_DNNL
  w.impls.push_back(na("onednn", "no tensor-contraction primitive"));
#endif
#ifdef WITH_EIGEN
  {
    Impl im;
    im.name = "eigen";
    im.out = mk(w.out_bytes);
    float *o = im.out->as<float>();
    auto pool = std::make_shared<Eigen::ThreadPool>(omp_get_max_threads());
    auto dev = std::make_shared<Eigen::ThreadPoolDevice>(pool.get(), omp_get_max_threads());
    using T4 = Eigen::TensorMap<Eigen::Tensor<const float, 4, Eigen::RowMajor>>;
    using T6 = Eigen::TensorMap<Eigen::Tensor<float, 6, Eigen::RowMajor>>;
    im.run = [=, pool = pool] {  // the pool must outlive the device: captured explicitly
      (void)pool;
      T6 tc(o, A_, B_, C_, I_, J_, K_);
      Eigen::array<Eigen::IndexPair<int>, 1> dims{Eigen::IndexPair<int>(2, 0)};
      if (first) {
        T4 ta(a, I_, J_, M_, A_), tb(b, M_, K_, B_, C_);
        // contraction result dims: (i, j, a, k, b, c) -> shuffle to (a, b, c, i, j, k)
        Eigen::array<int, 6> perm{2, 4, 5, 0, 1, 3};
        tc.device(*dev) = ta.contract(tb, dims).shuffle(perm);
      } else {
        T4 ta(a, I_, K_, M_, B_), tb(b, M_, J_, A_, C_);
        // contraction result dims: (i, k, b, j, a, c) -> (a, b, c, i, j, k)
        Eigen::array<int, 6> perm{4, 2, 5, 0, 3, 1};
        tc.device(*dev) = ta.contract(tb, dims).shuffle(perm);
      }
    };
    im.note = "Eigen Tensor contract + shuffle on a ThreadPoolDevice (" + std::to_string(omp_get_max_threads()) +
              " threads)";
    w.impls.push_back(im);
  }
#endif
#ifdef WITH_HALIDE
  w.impls.push_back(na("halide", "not attempted for tensor contractions"));
#endif
}

void setup_histo(Workload &w) {
  long E = w.dim("E"), B = w.dim("B");
  if (B != 256) die("histo: the driver supports 256 byte bins");
  auto El = mk(E), Bi = mk(B);
  std::mt19937 g(1);
  for (long e = 0; e < E; ++e) El->as<uint8_t>()[e] = uint8_t(g());
  for (long b = 0; b < B; ++b) Bi->as<uint8_t>()[b] = uint8_t(b);
  w.inputs = {El, Bi};
  w.out_bytes = 4 * B;
  const uint8_t *el = El->as<uint8_t>();
  auto ref = std::make_shared<std::vector<int32_t>>(B, 0);
  for (long e = 0; e < E; ++e) (*ref)[el[e]]++;
  w.check = exact_checker(ref);
  Impl im;
  im.name = "naive-omp";
  im.out = mk(w.out_bytes);
  int32_t *o = im.out->as<int32_t>();
  im.run = [=] {
    int32_t h[256] = {0};
#pragma omp parallel for reduction(+ : h[:256])
    for (long e = 0; e < E; ++e) h[el[e]]++;
    std::memcpy(o, h, sizeof h);
  };
  im.note = "parallel for over the elements with an OpenMP array reduction (bins are 0..255)";
  w.impls.push_back(im);
  w.impls.push_back(na("openblas", "not a BLAS operation"));
  w.impls.push_back(na("onednn", "no histogram primitive"));
  w.impls.push_back(na("eigen", "no histogram"));
  w.impls.push_back(na("halide", "not attempted (a histogram needs an RDom update with atomics)"));
}

void setup_scan(Workload &w) {
  long N = w.dim("N");
  auto A = mk(4 * N);
  std::mt19937 g(1);
  for (long i = 0; i < N; ++i) A->as<int32_t>()[i] = int32_t(g() % 2001) - 1000;
  w.inputs = {A};
  w.out_bytes = 4 * N;
  const int32_t *a = A->as<int32_t>();
  auto ref = std::make_shared<std::vector<int32_t>>(N);
  uint32_t s = 0;
  for (long i = 0; i < N; ++i) (*ref)[i] = int32_t(s += uint32_t(a[i]));
  w.check = exact_checker(ref);
  Impl im;
  im.name = "naive-omp";
  im.out = mk(w.out_bytes);
  int32_t *o = im.out->as<int32_t>();
  im.run = [=] {
    uint32_t acc = 0;
    for (long i = 0; i < N; ++i) o[i] = int32_t(acc += uint32_t(a[i]));
  };
  im.note = "sequential loop (a prefix sum carries a dependence: no naive parallel for)";
  w.impls.push_back(im);
  w.impls.push_back(na("openblas", "not a BLAS operation"));
  w.impls.push_back(na("onednn", "no scan primitive"));
  w.impls.push_back(na("eigen", "no scan in Eigen's documented API"));
  w.impls.push_back(na("halide", "not attempted (a scan is a serial RDom in Halide)"));
}

// PRL: the records of examples/prl.mdh (C layout, natural alignment).
struct Person {
  int64_t id, first_name, last_name;
  int32_t birth_year;
  uint8_t sex;
  int32_t zip, block;
};
struct Match {
  int64_t a_id, b_id;
  double w;
  int8_t link;
};
static_assert(sizeof(Person) == 40 && sizeof(Match) == 32, "record layout");
double qid_weight(bool agree, double m, double u) {
  const double to_db = 4.3429448190325;
  return agree ? to_db * std::log(m / u) : to_db * std::log((1.0 - m) / (1.0 - u));
}
Match wght(const Person &a, const Person &b) {
  if (a.block != b.block) return Match{a.id, b.id, 0.0, 0};
  double w = 0;
  w += qid_weight(a.first_name == b.first_name, 0.95, 0.005);
  w += qid_weight(a.last_name == b.last_name, 0.95, 0.002);
  w += qid_weight(a.birth_year == b.birth_year, 0.90, 0.02);
  w += qid_weight(a.sex == b.sex, 0.98, 0.5);
  w += qid_weight(a.zip == b.zip, 0.90, 0.01);
  int8_t link = w >= 45.0 ? 2 : w >= 15.0 ? 1 : 0;
  return Match{a.id, b.id, w, link};
}
Match prl_max(const Match &x, const Match &y) {
  if (x.w > y.w) return x;
  if (y.w > x.w) return y;
  return x.b_id <= y.b_id ? x : y;
}

void setup_prl(Workload &w) {
  long I = w.dim("I"), J = w.dim("J");
  auto Nb = mk(sizeof(Person) * I), Eb = mk(sizeof(Person) * J);
  std::mt19937 g(1);
  auto gen = [&](Person &p, int64_t id) {
    p.id = id;
    p.first_name = g() % 200;
    p.last_name = g() % 500;
    p.birth_year = 1930 + int32_t(g() % 80);
    p.sex = uint8_t(g() % 2);
    p.zip = int32_t(g() % 100);
    p.block = int32_t(g() % 64);
  };
  for (long i = 0; i < I; ++i) gen(Nb->as<Person>()[i], i);
  for (long j = 0; j < J; ++j) gen(Eb->as<Person>()[j], 1000000 + j);
  w.inputs = {Nb, Eb};
  w.out_bytes = sizeof(Match) * I;
  const Person *np = Nb->as<Person>(), *ep = Eb->as<Person>();
  // Reference: sequential left fold; prl_max is a total order's maximum, so any order agrees.
  auto ref = std::make_shared<std::vector<Match>>(I);
  for (long i = 0; i < I; ++i) {
    Match m = wght(np[i], ep[0]);
    for (long j = 1; j < J; ++j) m = prl_max(m, wght(np[i], ep[j]));
    (*ref)[i] = m;
  }
  Checker c;
  c.tol = 1e-12;
  c.rel_err = [ref](const Buf &b) {
    const Match *m = b.as<Match>();
    double e = 0;
    for (size_t i = 0; i < ref->size(); ++i) {
      const Match &r = (*ref)[i];
      if (m[i].a_id != r.a_id || m[i].b_id != r.b_id || m[i].link != r.link) return 1.0;
      e = std::max(e, std::fabs(m[i].w - r.w) / std::max(1.0, std::fabs(r.w)));
    }
    return e;
  };
  w.check = c;
  Impl im;
  im.name = "naive-omp";
  im.out = mk(w.out_bytes);
  Match *o = im.out->as<Match>();
  im.run = [=] {
#pragma omp parallel for
    for (long i = 0; i < I; ++i) {
      Match m = wght(np[i], ep[0]);
      for (long j = 1; j < J; ++j) m = prl_max(m, wght(np[i], ep[j]));
      o[i] = m;
    }
  };
  im.note = "i-j loop nest with the same wght/prl_max in C++, parallel for over i";
  w.impls.push_back(im);
  w.impls.push_back(na("openblas", "not a BLAS operation"));
  w.impls.push_back(na("onednn", "no record-linkage primitive"));
  w.impls.push_back(na("eigen", "user record types and reductions are outside Eigen's scope"));
  w.impls.push_back(na("halide", "records and a user max-reduction with tie-breaking are not attempted"));
}

// ---------------------------------------------------------------- timing

std::vector<char> evict_buf;
void evict() {
  // Streams (reads and writes) a buffer of 3x the L3 size on one thread: no OpenMP worker
  // threads are left spinning afterwards.
  volatile char *p = evict_buf.data();
  for (size_t i = 0; i < evict_buf.size(); i += 64) p[i] = char(p[i] + 1);
}

double now_s() { return std::chrono::duration<double>(Clock::now().time_since_epoch()).count(); }

struct Opts {
  std::string id, kind, dims, out = ".", mdh_default, mdh_tuned, only, coretype, default_note, tuned_note;
  double seconds = 20, alone_seconds = 2;
  int min_rounds = 5, max_rounds = 40;
  bool cold = false, smoke = false;
};

/// The CPU's identity, recorded with every result: the report names the
/// machine per workload, since a re-run of some workloads may land on another
/// machine than the rest. run_all.sh passes benchmarks/cpu_id.sh's identity
/// (model name, family, model, L3) in MDH_BENCH_CPU; run by hand, the model
/// name (/proc/cpuinfo).
std::string cpuModel() {
  if (const char *id = std::getenv("MDH_BENCH_CPU"); id && *id) return id;
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);)
    if (line.rfind("model name", 0) == 0) {
      const size_t c = line.find(':');
      const size_t v = c == std::string::npos ? std::string::npos : line.find_first_not_of(" \t", c + 1);
      return v == std::string::npos ? "" : line.substr(v);
    }
  return "";
}

std::string jstr(const std::string &s) {
  std::string r = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') r += '\\', r += c;
    else if (c == '\n') r += "\\n";
    else if (static_cast<unsigned char>(c) < 0x20) r += ' ';
    else r += c;
  }
  return r + "\"";
}
std::string jnum(double x) {
  if (!std::isfinite(x)) return "null";
  char b[64];
  std::snprintf(b, sizeof b, "%.6g", x);
  return b;
}

void write_result(const Opts &o, const Workload &w, const Impl &im, const std::string &variant,
                  const std::vector<double> &ts, const std::string &note) {
  std::vector<double> s = ts;
  std::sort(s.begin(), s.end());
  double med = NAN, lo = NAN, hi = NAN;
  if (!s.empty()) {
    med = s.size() % 2 ? s[s.size() / 2] : 0.5 * (s[s.size() / 2 - 1] + s[s.size() / 2]);
    lo = s.front();
    hi = s.back();
  }
  double rate = NAN;
  if (std::isfinite(med) && med > 0) {
    if (w.metric == "GB/s") rate = w.bytes / med / 1e9;
    else rate = w.flops / med / 1e9;
  }
  double load[3] = {0, 0, 0};
  if (FILE *f = std::fopen("/proc/loadavg", "r")) {
    if (std::fscanf(f, "%lf %lf %lf", &load[0], &load[1], &load[2]) != 3) load[0] = -1;
    std::fclose(f);
  }
  std::string path = o.out + "/" + im.name + (variant == "warm" ? "" : "." + variant) + ".json";
  std::ofstream f(path + ".tmp");
  f << "{\"workload\": " << jstr(w.id) << ", \"impl\": " << jstr(im.name) << ", \"variant\": " << jstr(variant)
    << ", \"median_s\": " << jnum(med) << ", \"min_s\": " << jnum(lo) << ", \"max_s\": " << jnum(hi)
    << ", \"runs\": " << s.size() << ", \"checked\": " << (im.checked ? "true" : "false")
    << ", \"max_rel_err\": " << jnum(im.err) << ", \"note\": " << jstr(note) << ", \"metric\": " << jstr(w.metric)
    << ", \"rate\": " << jnum(rate) << ", \"threads\": " << omp_get_max_threads()
    << ", \"coretype\": " << (o.coretype.empty() || im.name.rfind("openblas", 0) != 0 ? "null" : jstr(o.coretype))
    << ", \"loadavg_end\": [" << load[0] << ", " << load[1] << ", " << load[2] << "]"
    << ", \"cpu\": " << jstr(cpuModel())
    << ", \"smoke\": " << (o.smoke ? "true" : "false") << "}\n";
  f.close();
  std::rename((path + ".tmp").c_str(), path.c_str());
}

}  // namespace

int main(int argc, char **argv) {
  Opts o;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto val = [&]() -> std::string {
      if (i + 1 >= argc) die("missing value for " + a);
      return argv[++i];
    };
    if (a == "--id") o.id = val();
    else if (a == "--kind") o.kind = val();
    else if (a == "--dims") o.dims = val();
    else if (a == "--out") o.out = val();
    else if (a == "--mdh-default") o.mdh_default = val();
    else if (a == "--mdh-tuned") o.mdh_tuned = val();
    else if (a == "--mdh-default-note") o.default_note = val();
    else if (a == "--mdh-tuned-note") o.tuned_note = val();
    else if (a == "--only") o.only = "," + val() + ",";
    else if (a == "--coretype") o.coretype = val();
    else if (a == "--seconds") o.seconds = std::stod(val());
    else if (a == "--alone-seconds") o.alone_seconds = std::stod(val());
    else if (a == "--min-rounds") o.min_rounds = std::stoi(val());
    else if (a == "--max-rounds") o.max_rounds = std::stoi(val());
    else if (a == "--cold") o.cold = true;
    else if (a == "--smoke") o.smoke = true;
    else die("unknown argument " + a);
  }
  if (o.id.empty() || o.kind.empty()) die("usage: bench_suite --id ID --kind KIND --dims K=V,... [--out DIR] [--mdh-default SO] [--mdh-tuned SO] [--only impl,...] [--cold] [--smoke] [--seconds S] [--alone-seconds S]");
  Workload w;
  w.id = o.id;
  w.kind = o.kind;
  {
    std::stringstream ss(o.dims);
    std::string kv;
    while (std::getline(ss, kv, ',')) {
      auto eq = kv.find('=');
      if (eq == std::string::npos) die("bad --dims entry " + kv);
      std::string k = kv.substr(0, eq), v = kv.substr(eq + 1);
      if (k == "flops") w.flops = std::stod(v);
      else if (k == "bytes") w.bytes = std::stod(v);
      else if (k == "metric") w.metric = v;
      else w.d[k] = std::stol(v);
    }
  }
  if (w.metric.empty()) w.metric = "GFLOP/s";
  if (w.metric == "Gcmp/s") { // comparisons: every element against every other (PRL: I x J, Histo: E x B)
    w.flops = 1;
    for (const auto &[k, v] : w.d) w.flops *= double(v);
  }
  w.cold = o.cold;
  auto t_setup = now_s();
  const std::string &k = w.kind;
  if (k == "matmul") setup_matmul(w);
  else if (k == "matvec") setup_matvec(w);
  else if (k == "dot") setup_dot(w);
  else if (k == "jacobi1d") setup_jacobi(w, 1);
  else if (k == "jacobi2d") setup_jacobi(w, 2);
  else if (k == "jacobi3d") setup_jacobi(w, 3);
  else if (k == "mcc") setup_mcc(w);
  else if (k == "contraction") setup_ccsdt(w);
  else if (k == "histo") setup_histo(w);
  else if (k == "scan") setup_scan(w);
  else if (k == "prl") setup_prl(w);
  else die("unknown kind " + k);
  if (w.metric == "GB/s" && w.bytes > 0) w.impls.push_back(triad_impl(w));
  // mdh first in the list (they are the subject); then the loop nest and the peers.
  {
    std::vector<Impl> rest;
    rest.swap(w.impls);
    add_mdh(w, "mdh-default", o.mdh_default, o.mdh_default.empty() ? o.default_note : "",
            o.mdh_default.empty() ? "" : o.default_note);
    add_mdh(w, "mdh-tuned", o.mdh_tuned, o.mdh_tuned.empty() ? o.tuned_note : "", o.mdh_tuned.empty() ? "" : o.tuned_note);
    for (auto &im : rest) w.impls.push_back(im);
  }
  if (!o.only.empty()) {
    std::vector<Impl> keep;
    for (auto &im : w.impls)
      if (o.only.find("," + im.name + ",") != std::string::npos) keep.push_back(im);
    w.impls.swap(keep);
  }
  std::fprintf(stderr, "%s: setup (inputs, reference, JIT) %.1f s\n", w.id.c_str(), now_s() - t_setup);

  // One checked call: the implementation's error against the reference, or by its own check;
  // call_s gets the call's time.
  auto checkedCall = [&w](Impl &im, double &call_s) {
    const double t0 = now_s();
    if (im.self_check) {
      const double e = im.self_check();
      call_s = now_s() - t0;
      return e;
    }
    std::memset(im.out->p, 0xff, w.out_bytes);  // NaN / -1 pattern: unwritten cells fail the check
    const double t_run = now_s();
    im.run();
    call_s = now_s() - t_run;
    return w.check.rel_err(*im.out);
  };
  // Check every implementation (one call; outputs start as NaN-free zeros).
  std::vector<Impl *> live;
  for (auto &im : w.impls) {
    if (!im.run) {
      std::fprintf(stderr, "  %-17s %s\n", im.name.c_str(), im.note.c_str());
      continue;
    }
    im.err = checkedCall(im, im.check_s);
    im.checked = im.err <= w.check.tol;
    std::fprintf(stderr, "  %-17s check: max rel err %.3g (tol %.3g) %s\n", im.name.c_str(), im.err, w.check.tol,
                 im.checked ? "ok" : "MISMATCH");
    if (im.checked) live.push_back(&im);
  }
  // Calibrate warm batches so a timed sample lasts >= 2 ms.
  std::map<Impl *, int> reps;
  for (Impl *im : live) {
    auto t0 = now_s();
    im->run();
    double t = now_s() - t0;
    reps[im] = o.smoke ? 1 : std::max(1, std::min(1000, int(std::ceil(2e-3 / std::max(t, 1e-7)))));
    if (im->slow() && !o.smoke) im->warm = {im->check_s, t};
  }
  if (o.cold) evict_buf.assign(evictionBytes(size_t(144) << 20), 1);
  int min_rounds = o.smoke ? 1 : o.min_rounds, max_rounds = o.smoke ? 1 : o.max_rounds;
  double t_start = now_s();
  // Each round runs the implementations in a fresh random order (a fixed seed: the same
  // orders run after run), after a pause. A rotated order kept the same predecessor for each
  // (mdh-tuned always ran right after mdh-default), and whatever ran before an
  // implementation mattered: another runtime's worker threads still spinning on the 2 cores
  // made two identical kernels 13-16% apart by their slot alone.
  std::mt19937 order_rng(20261127);
  std::vector<Impl *> order = live;
  for (int r = 0; r < max_rounds && !live.empty(); ++r) {
    if (r >= min_rounds && now_s() - t_start > o.seconds) break;
    std::shuffle(order.begin(), order.end(), order_rng);
    for (Impl *im : order) {
      if (im->slow() && im->warm.size() >= Impl::kSlowSamples && (!o.cold || im->cold.size() >= Impl::kSlowSamples)) continue;
      if (!o.smoke) std::this_thread::sleep_for(std::chrono::milliseconds(20)); // the last one's threads go idle
      if (!im->slow()) im->run();              // untimed: warms caches, wakes thread pools
      int n = reps[im];
      auto t0 = now_s();
      for (int i = 0; i < n; ++i) im->run();
      im->warm.push_back((now_s() - t0) / n);
      if (o.cold) {
        evict();
        std::this_thread::sleep_for(std::chrono::milliseconds(o.smoke ? 1 : 120));
        auto t1 = now_s();
        im->run();
        im->cold.push_back(now_s() - t1);
      }
    }
  }
  // Alone: each implementation by itself, after a pause that lets the previous one's spinning
  // worker threads go idle, in single calls as run_tvm.py's time_evaluator(number=1) times TVM:
  // one warm-up call, then calls back to back. The --alone-seconds (at least 10 and at most 500
  // calls) are spread over kAloneBlocks rotated blocks, so a slow spell of this shared machine
  // (seconds long, measured: MatMul 1024^3 at 7 or 10 ms by the minute) does not fall on one
  // implementation only. Slow implementations are left out (a call of seconds is alone already).
  constexpr size_t kAloneBlocks = 4;
  if (o.alone_seconds > 0)
    for (size_t block = 0; block < (o.smoke ? 1 : kAloneBlocks); ++block)
      for (size_t q = 0; q < live.size(); ++q) {
        Impl *im = live[(q + block) % live.size()];
        if (im->slow()) continue;
        std::this_thread::sleep_for(std::chrono::milliseconds(o.smoke ? 1 : 200));
        im->run();
        const size_t min_calls = o.smoke ? 1 : 10 / kAloneBlocks + 1, max_calls = o.smoke ? 1 : 500 / kAloneBlocks;
        const double t_block = now_s();
        for (size_t c = 0; c < max_calls; ++c) {
          if (c >= min_calls && now_s() - t_block > o.alone_seconds / kAloneBlocks) break;
          const double t0 = now_s();
          im->run();
          im->alone.push_back(now_s() - t0);
        }
      }
  // A final re-check after timing (a kernel that corrupts its output on later calls is caught).
  for (Impl *im : live) {
    double call_s = 0;
    const double e = checkedCall(*im, call_s);
    if (!(e <= w.check.tol)) {
      im->checked = false;
      im->note += "; MISMATCH on re-check after timing (rel err " + std::to_string(e) + ")";
      im->warm.clear();
      im->cold.clear();
      im->alone.clear();
    }
  }
  std::string extra = o.smoke ? " [smoke: tiny sizes, one round, no timing claim]" : "";
  for (auto &im : w.impls) {
    std::string note = im.note + extra;
    if (im.slow() && !o.smoke)
      note += "; " + jnum(im.check_s) + " s per call: its own warm-up, " + std::to_string(im.warm.size()) + " samples";
    if (im.run && !im.checked && im.note.find("MISMATCH") == std::string::npos)
      note += "; output MISMATCH (max rel err " + jnum(im.err) + "): time not reported";
    write_result(o, w, im, "warm", im.warm, note);
    if (o.cold) write_result(o, w, im, "cold", im.cold, note);
    if (o.alone_seconds > 0 && im.run && !im.slow())
      write_result(o, w, im, "alone", im.alone, note + "; timed alone: single calls back to back, like TVM");
    if (!im.warm.empty()) {
      std::vector<double> s = im.warm;
      std::sort(s.begin(), s.end());
      double med = s[s.size() / 2];
      double rate = (w.metric == "GB/s" ? w.bytes : w.flops) / med / 1e9;
      std::printf("%-18s %-17s warm median %10.4f ms (%.4f..%.4f) %9.2f %s  runs %zu\n", w.id.c_str(), im.name.c_str(),
                  med * 1e3, s.front() * 1e3, s.back() * 1e3, rate, w.metric.c_str(), s.size());
    }
  }
  bool all_ok = true;
  for (auto &im : w.impls)
    if (im.run && !im.checked) all_ok = false;
  return all_ok ? 0 : 1;
}
