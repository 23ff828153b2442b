// Unit tests of the vector-dimension rule (ll/VectorDimension.h) and of the
// run-time dispatch built on it (ll/RunTimeVariants.h,
// codegen::emitOpenMPDispatch): the rule's choices at known sizes (a
// convolution's filters over the channels it reduces unless the filter is
// large and little reused, a transposed product's columns, a matrix-vector
// product's and a histogram's reduction), the variants of a program with
// run-time sizes, and the emitted choice, compiled and called, against the
// rule evaluated here for the same sizes.
#include "TestPrograms.h"
#include "codegen/OpenMPEmitter.h"
#include "ll/AsmModel.h"
#include "ll/Config.h"
#include "ll/Lowering.h"
#include "ll/RunTimeVariants.h"
#include "ll/VectorDimension.h"
#include "runtime/NativeLibrary.h"

#include <doctest/doctest.h>

#include <fmt/format.h>
#include <memory>
#include <random>
#include <set>

using namespace mdh;
using testing_support::instantiate;

namespace {

/// The rule's choice for an instance, by dimension name.
std::string chosen(const std::string &path, const std::string &entry, const std::string &sizes) {
  Compilation comp;
  auto p = instantiate(comp, path, entry, sizes);
  const int d = ll::vectorDimension(*p, 1024);
  return d < 0 ? "none" : p->dimNames[size_t(d)];
}

/// The default's run-time dispatch for `p`, built and loaded; `name` gets the entry symbol.
std::unique_ptr<runtime::NativeLibrary> buildDispatch(const hl::Program &p, const ll::RunTimeVariants &v, std::string &name) {
  std::vector<ll::Lowered> lowered;
  for (const auto &c : v.configs) lowered.push_back(ll::lower(p, c));
  codegen::EmittedKernel k = codegen::emitOpenMPDispatch(lowered, v.rule, v.streaming);
  name = k.name;
  std::string err;
  auto lib = runtime::NativeLibrary::build(k.source, k.flags, err);
  REQUIRE_MESSAGE(lib, err);
  return lib;
}

} // namespace

TEST_CASE("the vector dimension: filters over reduced channels unless the filter is large and little reused") {
  // Measured (2 cores): 1x56x56x64x3x3x32 1.34 ms along c, 0.42 along k.
  CHECK(chosen("examples/mcc.mdh", "mcc", "T=f32,N=1,P=56,Q=56,K=64,R=3,S=3,C=32") == "k");
  CHECK(chosen("examples/mcc.mdh", "mcc", "T=f32,N=1,P=112,Q=112,K=64,R=7,S=7,C=3") == "k");
  // 1x7x7x512x3x3x512: the 9 MiB filter serves 49 positions (1.8 ms along c, 6.3 along k).
  CHECK(chosen("examples/mcc.mdh", "mcc", "T=f32,N=1,P=7,Q=7,K=512,R=3,S=3,C=512") == "c");
  CHECK(chosen("examples/mcc.mdh", "mcc", "T=f32,N=8,P=7,Q=7,K=512,R=3,S=3,C=512") == "k");
}

TEST_CASE("the vector dimension: a reduction stays where nothing is reused across the alternative") {
  CHECK(chosen("examples/matvec.mdh", "matvec", "T=f32,I=1024,K=1024") == "k");
  {
    // 8 columns: compiled in, the register tiles fit them (0.70 ms); with run-time sizes they
    // are planned for 1024 and a kernel that starts with 8 takes the rows (4.9 -> 1.45 ms).
    Compilation comp;
    auto p = instantiate(comp, "examples/matvec.mdh", "matvec", "T=f32,I=1000003,K=8");
    CHECK(p->dimNames[size_t(ll::vectorDimension(*p, 1024))] == "k");
    CHECK(p->dimNames[size_t(ll::vectorDimension(*p, 1024, /*runTime=*/true))] == "i");
    auto q = instantiate(comp, "examples/matvec.mdh", "matvec", "T=f32,I=1000003,K=16");
    CHECK(q->dimNames[size_t(ll::vectorDimension(*q, 1024, /*runTime=*/true))] == "k");
  }
  CHECK(chosen("examples/histo.mdh", "histo", "T=i32,E=65536,B=1000") == "e");
  // u8 counts run in 8-bit lanes along e: kept, though the bins weigh enough (0.0114 / 0.0149 ms).
  CHECK(chosen("examples/histo.mdh", "histo", "T=u8,E=4096,B=256") == "e");
  CHECK(chosen("examples/matmul.mdh", "matmul", "T=f32,I=1024,J=1024,K=1024") == "j");
  // C[j,i] = sum_k A[k,i] * B[j,k] with I = 10: the reduction k weighs most (B), but i, along
  // which C and A are contiguous, weighs 0.19 of it (0.026 / 0.022 ms).
  CHECK(chosen("examples/matmul_t.mdh", "matmul_t", "T=f64,I=10,J=64,K=500") == "i");
}

TEST_CASE("run-time sizes get one default configuration per vector dimension the rule can choose") {
  Compilation comp;
  auto conv = instantiate(comp, "examples/mcc.mdh", "mcc", "T=f32,N=*,P=*,Q=*,K=*,R=*,S=*,C=*");
  const ll::AsmModel m = ll::openmpModel();
  const ll::Config planned = ll::defaultConfig(*conv, m, 2);
  ll::RunTimeVariants v = ll::runTimeVariants(*conv, m, planned);
  REQUIRE(v.configs.size() == 2);
  CHECK(ll::toJson(v.configs[0]) == ll::toJson(planned));
  CHECK(conv->dimNames[size_t(v.configs[0].simdDim)] == "k");
  CHECK(conv->dimNames[size_t(v.configs[1].simdDim)] == "c");
  CHECK(ll::validate(v.configs[1], *conv, m).empty());
  // Nothing left to run time, or a GPU: one configuration.
  Compilation comp2, comp3;
  auto fixed = instantiate(comp2, "examples/mcc.mdh", "mcc", "T=f32,N=1,P=56,Q=56,K=64,R=3,S=3,C=32");
  CHECK(ll::runTimeVariants(*fixed, m, ll::defaultConfig(*fixed, m, 2)).configs.size() == 1);
  CHECK(ll::runTimeVariants(*conv, ll::cudaModel(80), ll::defaultConfig(*conv, ll::cudaModel(80))).configs.size() == 1);
  // A dimension whose size is known to be 1 cannot be chosen.
  auto rowOfOne = instantiate(comp3, "examples/matmul.mdh", "matmul", "T=f32,I=*,J=1,K=*");
  CHECK(ll::runTimeVariants(*rowOfOne, m, ll::defaultConfig(*rowOfOne, m, 2)).configs.size() == 1);
}

TEST_CASE("the emitted dispatch chooses as the rule does for the sizes of the call") {
  Compilation comp;
  auto conv = instantiate(comp, "examples/mcc.mdh", "mcc", "T=f32,N=*,P=*,Q=*,K=*,R=*,S=*,C=*");
  const ll::AsmModel m = ll::openmpModel();
  ll::RunTimeVariants v = ll::runTimeVariants(*conv, m, ll::defaultConfig(*conv, m, 2));
  std::string name, err;
  auto lib = buildDispatch(*conv, v, name);
  using Choice = int (*)(const int64_t *);
  auto choose = reinterpret_cast<Choice>(lib->symbol("mdh_vector_dimension_" + name));
  REQUIRE(bool(choose));
  std::mt19937_64 rng(7);
  std::set<int> seen;
  for (int i = 0; i < 200; ++i) {
    std::string set = "T=f32";
    std::vector<int64_t> args;
    for (const auto &name : conv->dynamicSizes) {
      const int64_t hi = name == "C" || name == "K" ? 600 : name == "R" || name == "S" ? 8 : 80;
      args.push_back(1 + int64_t(rng() % uint64_t(hi)));
      set += fmt::format(",{}={}", name, args.back());
    }
    MetaSettings settings;
    REQUIRE(parseMetaSettings({set}, settings, err));
    auto fixed = comp.sema().instantiate("mcc", settings);
    REQUIRE(fixed);
    const int expected = ll::vectorDimension(*fixed, 1024, /*runTime=*/true);
    CHECK_MESSAGE(choose(args.data()) == expected, "sizes N,P,Q,K,R,S,C = ", fmt::format("{}", fmt::join(args, ",")));
    seen.insert(expected);
  }
  CHECK(seen.count(3)); // k
  CHECK(seen.count(6)); // c
}

TEST_CASE("the emitted dispatch streams its stores as the default does for the sizes of the call") {
  Compilation comp;
  auto stencil = instantiate(comp, "examples/jacobi2d.mdh", "jacobi2d", "T=f32,N1=*,N2=*");
  const ll::AsmModel m = ll::openmpModel();
  ll::RunTimeVariants v = ll::runTimeVariants(*stencil, m, ll::defaultConfig(*stencil, m, 2));
  REQUIRE(v.configs.size() == 2); // one vector dimension, plain and streamed
  CHECK_FALSE(v.configs[0].streamStores);
  CHECK(v.configs[1].streamStores);
  std::string name, err;
  auto lib = buildDispatch(*stencil, v, name);
  using Streams = bool (*)(const int64_t *, int);
  auto streams = reinterpret_cast<Streams>(lib->symbol("mdh_streams_" + name));
  REQUIRE(bool(streams));
  std::mt19937_64 rng(11);
  int streamed = 0, plain = 0;
  for (int i = 0; i < 100; ++i) {
    // Around the 64 MiB of two cores: 2 x 4 x N1 x N2 bytes; rows of 16 elements start on cache lines.
    const int64_t n1 = 1 + int64_t(rng() % 6000), n2 = i % 3 == 0 ? 16 * (1 + int64_t(rng() % 300)) : 1 + int64_t(rng() % 6000);
    MetaSettings settings;
    REQUIRE(parseMetaSettings({fmt::format("T=f32,N1={},N2={}", n1, n2)}, settings, err));
    auto fixed = comp.sema().instantiate("jacobi2d", settings);
    REQUIRE(fixed);
    const ll::Config planned = ll::defaultConfig(*fixed, m, 2);
    const int64_t sizes[] = {n1, n2};
    CHECK_MESSAGE(streams(sizes, planned.simdDim) == planned.streamStores, "N1 = ", n1, ", N2 = ", n2);
    ++(planned.streamStores ? streamed : plain);
  }
  CHECK(streamed > 10);
  CHECK(plain > 10);
}
