// benchmarks/gpu/driver.cu — times mdh's CUDA kernels against cuBLAS (MatMul,
// MatVec) and cuDNN (MCC convolution, NHWC) on one NVIDIA GPU, checks that
// mdh's results agree with the vendor libraries' (relative tolerance), and
// prints one markdown row per workload.
//
// The mdh kernels come from `mdhc compile --backend cuda --name bench_<kind>`
// (see run.sh) and are called through their device entries
// `bench_<kind>_cuda(stream, inputs..., outputs...)`.  Invariants: every timing
// is the median of repeated runs after a warm-up, with events on one stream;
// inputs are deterministic pseudo-random values in [-1, 1].
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cudnn.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

extern "C" int bench_matmul_cuda(cudaStream_t, const float *A, const float *B, float *C);
extern "C" int bench_matvec_cuda(cudaStream_t, const float *M, const float *v, float *w);
extern "C" int bench_mcc_cuda(cudaStream_t, const float *I, const float *F, float *O);

#define CHECK(x)                                                                                   \
  do {                                                                                             \
    auto s_ = (x);                                                                                 \
    if (s_ != 0) {                                                                                 \
      std::fprintf(stderr, "%s:%d: %s failed with status %d\n", __FILE__, __LINE__, #x, int(s_)); \
      std::exit(1);                                                                                \
    }                                                                                              \
  } while (0)

static float *deviceRandom(size_t n, unsigned seed) {
  std::vector<float> h(n);
  unsigned x = seed * 2654435761u + 1;
  for (auto &v : h) {
    x = x * 1664525u + 1013904223u;
    v = float(x >> 8) / float(1 << 24) * 2.0f - 1.0f;
  }
  float *d = nullptr;
  CHECK(cudaMalloc(&d, n * sizeof(float)));
  CHECK(cudaMemcpy(d, h.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  return d;
}

static double medianMs(cudaStream_t s, const std::function<void()> &f, int reps = 20) {
  f();
  CHECK(cudaStreamSynchronize(s));
  cudaEvent_t a, b;
  CHECK(cudaEventCreate(&a));
  CHECK(cudaEventCreate(&b));
  std::vector<double> t;
  for (int i = 0; i < reps; ++i) {
    CHECK(cudaEventRecord(a, s));
    f();
    CHECK(cudaEventRecord(b, s));
    CHECK(cudaEventSynchronize(b));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, a, b));
    t.push_back(ms);
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

static bool agree(const float *dMdh, const float *dRef, size_t n, double tol, double &maxRel) {
  std::vector<float> a(n), b(n);
  CHECK(cudaMemcpy(a.data(), dMdh, n * sizeof(float), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(b.data(), dRef, n * sizeof(float), cudaMemcpyDeviceToHost));
  maxRel = 0;
  for (size_t i = 0; i < n; ++i) maxRel = std::max(maxRel, std::fabs(double(a[i]) - b[i]) / std::max(1.0, std::fabs(double(b[i]))));
  return maxRel <= tol;
}

// MDH_VARIANT (run.sh: "mdh default", "mdh tuned 120 s") names which mdh kernel the row times.
static void row(const char *name, double flops, double mdhMs, double refMs, const char *ref, bool ok, double rel) {
  const char *variant = std::getenv("MDH_VARIANT");
  std::printf("| %s%s%s | %.3f | %.1f | %.3f | %.1f | %s | %.2f | %s (max rel. diff %.1e) |\n", name, variant ? ", " : "", variant ? variant : "", mdhMs, flops / mdhMs / 1e6, refMs,
              flops / refMs / 1e6, ref, refMs / mdhMs, ok ? "agree" : "DIFFER", rel);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: driver matmul I J K | matvec I K | mcc N P Q K R S C\n");
    return 2;
  }
  std::string kind = argv[1];
  std::vector<long> a;
  for (int i = 2; i < argc; ++i) a.push_back(std::atol(argv[i]));
  cudaStream_t s;
  CHECK(cudaStreamCreate(&s));
  cublasHandle_t blas;
  CHECK(cublasCreate(&blas));
  CHECK(cublasSetStream(blas, s));
  bool ok = true;
  double rel = 0;
  if (kind == "matmul" && a.size() == 3) {
    long I = a[0], J = a[1], K = a[2];
    float *A = deviceRandom(I * K, 1), *B = deviceRandom(K * J, 2), *C = deviceRandom(I * J, 3), *R = deviceRandom(I * J, 4);
    const float one = 1, zero = 0;
    // Row-major C = A B is column-major C^T = B^T A^T.
    auto ref = [&] { CHECK(cublasSgemm(blas, CUBLAS_OP_N, CUBLAS_OP_N, int(J), int(I), int(K), &one, B, int(J), A, int(K), &zero, R, int(J))); };
    auto mdh = [&] { CHECK(bench_matmul_cuda(s, A, B, C)); };
    double tm = medianMs(s, mdh), tr = medianMs(s, ref);
    ok = agree(C, R, size_t(I * J), 1e-3, rel);
    char name[96];
    std::snprintf(name, sizeof name, "MatMul %ldx%ldx%ld", I, J, K);
    row(name, 2.0 * I * J * K, tm, tr, "cuBLAS sgemm", ok, rel);
  } else if (kind == "matvec" && a.size() == 2) {
    long I = a[0], K = a[1];
    float *M = deviceRandom(I * K, 1), *v = deviceRandom(K, 2), *w = deviceRandom(I, 3), *R = deviceRandom(I, 4);
    const float one = 1, zero = 0;
    auto ref = [&] { CHECK(cublasSgemv(blas, CUBLAS_OP_T, int(K), int(I), &one, M, int(K), v, 1, &zero, R, 1)); };
    auto mdh = [&] { CHECK(bench_matvec_cuda(s, M, v, w)); };
    double tm = medianMs(s, mdh), tr = medianMs(s, ref);
    ok = agree(w, R, size_t(I), 1e-3, rel);
    char name[96];
    std::snprintf(name, sizeof name, "MatVec %ldx%ld", I, K);
    row(name, 2.0 * I * K, tm, tr, "cuBLAS sgemv", ok, rel);
  } else if (kind == "mcc" && a.size() == 7) {
    long N = a[0], P = a[1], Q = a[2], K = a[3], R = a[4], S = a[5], C = a[6];
    long H = 2 * (P - 1) + R, W = 2 * (Q - 1) + S; // stride 2, no padding (examples/mcc.mdh)
    float *In = deviceRandom(N * H * W * C, 1), *F = deviceRandom(K * R * S * C, 2), *O = deviceRandom(N * P * Q * K, 3),
          *Ref = deviceRandom(N * P * Q * K, 4);
    cudnnHandle_t dnn;
    CHECK(cudnnCreate(&dnn));
    CHECK(cudnnSetStream(dnn, s));
    cudnnTensorDescriptor_t xd, yd;
    cudnnFilterDescriptor_t fd;
    cudnnConvolutionDescriptor_t cd;
    CHECK(cudnnCreateTensorDescriptor(&xd));
    CHECK(cudnnCreateTensorDescriptor(&yd));
    CHECK(cudnnCreateFilterDescriptor(&fd));
    CHECK(cudnnCreateConvolutionDescriptor(&cd));
    CHECK(cudnnSetTensor4dDescriptor(xd, CUDNN_TENSOR_NHWC, CUDNN_DATA_FLOAT, int(N), int(C), int(H), int(W)));
    CHECK(cudnnSetTensor4dDescriptor(yd, CUDNN_TENSOR_NHWC, CUDNN_DATA_FLOAT, int(N), int(K), int(P), int(Q)));
    CHECK(cudnnSetFilter4dDescriptor(fd, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NHWC, int(K), int(C), int(R), int(S)));
    CHECK(cudnnSetConvolution2dDescriptor(cd, 0, 0, 2, 2, 1, 1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
    // Plain FP32 like mdh's kernel: cuDNN's default math may round inputs to TF32 on tensor cores.
    CHECK(cudnnSetConvolutionMathType(cd, CUDNN_FMA_MATH));
    cudnnConvolutionFwdAlgoPerf_t perf[8];
    int got = 0;
    CHECK(cudnnFindConvolutionForwardAlgorithm(dnn, xd, fd, cd, yd, 8, &got, perf));
    size_t wsBytes = perf[0].memory;
    void *ws = nullptr;
    if (wsBytes) CHECK(cudaMalloc(&ws, wsBytes));
    const float one = 1, zero = 0;
    auto ref = [&] { CHECK(cudnnConvolutionForward(dnn, &one, xd, In, fd, F, cd, perf[0].algo, ws, wsBytes, &zero, yd, Ref)); };
    auto mdh = [&] { CHECK(bench_mcc_cuda(s, In, F, O)); };
    double tm = medianMs(s, mdh), tr = medianMs(s, ref);
    ok = agree(O, Ref, size_t(N * P * Q * K), 1e-3, rel);
    char name[128];
    std::snprintf(name, sizeof name, "MCC NHWC %ldx%ldx%ldx%ld, %ldx%ld, C=%ld, stride 2", N, P, Q, K, R, S, C);
    row(name, 2.0 * N * P * Q * K * R * S * C, tm, tr, "cuDNN (fastest FP32 algo)", ok, rel);
  } else {
    std::fprintf(stderr, "unknown workload `%s` or wrong number of sizes\n", kind.c_str());
    return 2;
  }
  return ok ? 0 : 1;
}
