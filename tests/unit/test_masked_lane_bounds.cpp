// Unit test of the partial-vector helpers' bounds (codegen/MaskedLanesC.h): kernels whose
// remainder tiles run on masked lanes, called with every buffer ending on the last byte
// before an inaccessible page, so that a lane read or written past a buffer's end faults
// (the test process dies) instead of passing unnoticed. Each kernel is built as mdhc builds
// it and, on x86-64, also with -mno-avx512f (AVX2's vmaskmov paths on an AVX-512 host) and
// -mno-avx2 (the per-lane fallback); results are checked against a double-precision loop.
#include "TestPrograms.h"
#include "codegen/OpenMPEmitter.h"
#include "ll/AsmModel.h"
#include "ll/Config.h"
#include "ll/Lowering.h"
#include "runtime/NativeLibrary.h"

#include <doctest/doctest.h>

#include <sys/mman.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

using namespace mdh;
using testing_support::instantiate;

namespace {

/// n floats whose last one ends where an inaccessible page begins.
class FencedFloats {
public:
  explicit FencedFloats(size_t n) : n_(n) {
    const size_t page = size_t(sysconf(_SC_PAGESIZE));
    const size_t bytes = (n * sizeof(float) + page - 1) / page * page;
    total_ = bytes + page;
    void *m = mmap(nullptr, total_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    REQUIRE(m != MAP_FAILED);
    base_ = static_cast<char *>(m);
    REQUIRE(mprotect(base_ + bytes, page, PROT_NONE) == 0);
    data_ = reinterpret_cast<float *>(base_ + bytes - n * sizeof(float));
  }
  ~FencedFloats() { munmap(base_, total_); }
  FencedFloats(const FencedFloats &) = delete;
  FencedFloats &operator=(const FencedFloats &) = delete;
  float *data() { return data_; }
  float &operator[](size_t i) { return data_[i]; }
  size_t size() const { return n_; }

private:
  size_t n_, total_ = 0;
  char *base_ = nullptr;
  float *data_ = nullptr;
};

/// Flag sets to build each kernel with: mdhc's own, and on x86-64 the AVX2 and fallback paths.
std::vector<std::string> unitFlags(const std::string &flags) {
  std::vector<std::string> all = {flags};
#if defined(__x86_64__)
  all.push_back(flags + " -mno-avx512f");
  all.push_back(flags + " -mno-avx2");
#endif
  return all;
}

/// The default configuration's kernel for `p` (host model, 2 threads), with the helpers it must use.
codegen::EmittedKernel defaultKernel(const hl::Program &p, const std::vector<std::string> &helpers) {
  const ll::Config c = ll::defaultConfig(p, ll::openmpModel(), 2);
  codegen::EmittedKernel k = codegen::emitOpenMP(ll::lower(p, c));
  for (const auto &h : helpers) CHECK_MESSAGE(k.source.find(h + "(") != std::string::npos, "the kernel does not use " << h);
  return k;
}

/// Builds `k` with each of unitFlags(), and for each: reset(), a call on `buffers`, check().
template <class Reset, class Check>
void runOnEachUnit(const codegen::EmittedKernel &k, std::vector<void *> buffers, Reset reset, Check check) {
  for (const auto &flags : unitFlags(k.flags)) {
    CAPTURE(flags);
    std::string err;
    auto lib = runtime::NativeLibrary::build(k.source, flags, err);
    REQUIRE_MESSAGE(lib, err);
    auto run = lib->entry(k.name);
    REQUIRE(bool(run));
    reset();
    const int64_t noSizes[1] = {0};
    REQUIRE(run(noSizes, buffers.data()) == 0);
    check();
  }
}

void fill(FencedFloats &b, unsigned seed) {
  for (size_t i = 0; i < b.size(); ++i) b[i] = float(int((i * 7919u + seed) % 17u) - 8) / 8.0f;
}

} // namespace

TEST_CASE("masked lanes read nothing past an input's end: a GEMV of 13 columns, every tile masked") {
  Compilation comp;
  auto p = instantiate(comp, "tests/difftest/regressions/masked_reduction_remainders.mdh", "gemv13", "");
  const codegen::EmittedKernel k = defaultKernel(*p, {"mdh_vload_first", "mdh_vkeep_first"});
  const size_t I = 29, K = 13;
  FencedFloats M(I * K), x(K), y(I);
  fill(M, 1);
  fill(x, 2);
  runOnEachUnit(
      k, {M.data(), x.data(), y.data()},
      [&] {
        for (size_t i = 0; i < I; ++i) y[i] = -1;
      },
      [&] {
        for (size_t i = 0; i < I; ++i) {
          double want = 0;
          for (size_t kk = 0; kk < K; ++kk) want += double(M[i * K + kk]) * double(x[kk]);
          CHECK(std::fabs(y[i] - want) <= 1e-5 * (1 + std::fabs(want)));
        }
      });
}

TEST_CASE("masked lanes read and write nothing past a buffer's end: a product of 21 columns") {
  Compilation comp;
  auto p = instantiate(comp, "examples/matmul.mdh", "matmul", "T=f32,I=7,J=21,K=37");
  // 21 columns: a remainder of 5 after 16, narrower than a vector of either unit.
  const codegen::EmittedKernel k = defaultKernel(*p, {"mdh_vload_first", "mdh_vstore_first"});
  const size_t I = 7, J = 21, K = 37;
  FencedFloats A(I * K), B(K * J), C(I * J);
  fill(A, 3);
  fill(B, 4);
  runOnEachUnit(
      k, {A.data(), B.data(), C.data()},
      [&] {
        for (size_t i = 0; i < I * J; ++i) C[i] = -1;
      },
      [&] {
        for (size_t i = 0; i < I; ++i)
          for (size_t j = 0; j < J; ++j) {
            double want = 0;
            for (size_t kk = 0; kk < K; ++kk) want += double(A[i * K + kk]) * double(B[kk * J + j]);
            CHECK(std::fabs(C[i * J + j] - want) <= 1e-5 * (1 + std::fabs(want)));
          }
      });
}
