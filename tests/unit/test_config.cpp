// Unit tests of low-level configurations: panel-packed stages (JSON round
// trip, validation, region sizes) and the default heuristic's matrix-product
// case (packed panels with enough rows, none with few unless B's rows are far
// apart, and enough core parts for a skinny product; a single-row product's
// parts and register tile; more than one dimension cut for a contraction
// whose every dimension is small; core parts that share out evenly over the
// cores); streaming stores: JSON, validation, and
// the default's choice by output size; a streamed stencil's register rows; register tiles
// in vectors and accumulators of the host's vector unit, AVX-512 or AVX2).
#include "TestPrograms.h"
#include "ll/AsmModel.h"
#include "ll/Config.h"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>
#include <cstdlib>
#include <tuple>

using namespace mdh;
using testing_support::matmul;

namespace {

/// The OpenMP model of this host with AVX-512's vector unit: the plans below are AVX-512's
/// wherever they run (the AVX2 case is its own test).
ll::AsmModel avx512Model() {
  ll::AsmModel m = ll::openmpModel();
  m.vectorBytes = 64;
  m.vectorRegisters = 32;
  return m;
}

const ll::StageConfig *stageOf(const ll::Config &c, const std::string &buffer) {
  for (const auto &s : c.stages)
    if (s.buffer == buffer) return &s;
  return nullptr;
}

/// The OpenMP default configuration for 2 threads of `entry` in `file` at `sets`, checked valid.
ll::Config validDefault(const std::string &file, const std::string &entry, const std::string &sets) {
  ll::AsmModel m = avx512Model();
  Compilation comp;
  auto p = testing_support::instantiate(comp, file, entry, sets);
  ll::Config c = ll::defaultConfig(*p, m, 2);
  CHECK(ll::validate(c, *p, m).empty());
  return c;
}

bool mentions(const std::vector<std::string> &errs, const std::string &what) {
  for (const auto &e : errs)
    if (e.find(what) != std::string::npos) return true;
  return false;
}

} // namespace

TEST_CASE("a stage's panel width survives JSON and is omitted when 0") {
  ll::Config c;
  c.stages = {{"B", "L2", {0, 1}, 32}, {"A", "L2", {1, 0}, 0}};
  nlohmann::json j = ll::toJson(c);
  CHECK(j["stages"][0]["panel"] == 32);
  CHECK_FALSE(j["stages"][1].contains("panel"));
  ll::Config back;
  std::string err;
  REQUIRE(ll::fromJson(j, back, err));
  CHECK(back.stages[0].panel == 32);
  CHECK(back.stages[1].panel == 0);
}

TEST_CASE("a panel-packed region rounds its innermost layout dimension up to whole panels") {
  Compilation comp;
  auto p = matmul(comp, "T=f32,I=64,J=40,K=37");
  const hl::Buffer &B = p->inputs[1];
  std::vector<int64_t> tile = {8, 40, 37}; // B's footprint: 37 x 40
  CHECK(ll::stageElements(B, {"B", "L2", {0, 1}, 0}, tile) == 37 * 40);
  CHECK(ll::stageElements(B, {"B", "L2", {0, 1}, 32}, tile) == 37 * 64);
  CHECK(ll::stageElements(B, {"B", "L2", {1, 0}, 16}, tile) == 48 * 40); // panels along k
}

TEST_CASE("validation rejects bad panel widths and panels on GPU stages") {
  Compilation comp;
  auto p = matmul(comp, "T=f32,I=64,J=64,K=64");
  auto m = avx512Model();
  ll::Config c = ll::defaultConfig(*p, m, 2);
  c.stages = {{"B", c.levels[1].layer, {0, 1}, -1}};
  CHECK(mentions(ll::validate(c, *p, m), "panel = -1 is out of range"));
  c.stages[0].panel = 5000;
  CHECK(mentions(ll::validate(c, *p, m), "panel = 5000 is out of range"));
  c.stages[0].panel = 7; // any width in range is valid: lanes that straddle panels are gathered
  CHECK(ll::validate(c, *p, m).empty());

  auto g = ll::openclModel();
  ll::Config gc = ll::defaultConfig(*p, g);
  gc.stages = {{"B", "LM", {0, 1}, 16}};
  CHECK(mentions(ll::validate(gc, *p, g), "panel layouts are an OpenMP option"));
}

TEST_CASE("the default packs B into panels for a product with many rows, not for few") {
  auto m = avx512Model();
  {
    Compilation comp;
    auto p = matmul(comp, "T=f32,I=1024,J=1024,K=1024");
    ll::Config c = ll::defaultConfig(*p, m, 2);
    CHECK(ll::validate(c, *p, m).empty());
    const auto *b = stageOf(c, "B");
    REQUIRE(b);
    CHECK(b->layer == "L2");
    CHECK(b->panel == c.levels.back().tile[1]); // as wide as the register tile
    CHECK(c.levels[1].order == std::vector<int>{1, 2, 0}); // panels, reduction, rows
    CHECK(c.levels[1].tile[0] == c.levels[0].tile[0]);     // a block serves all rows of a part
    CHECK((1024 + c.levels[0].tile[0] - 1) / c.levels[0].tile[0] >= 2); // every core has rows
  }
  {
    Compilation comp;
    auto p = matmul(comp, "T=f32,I=16,J=1000,K=2048");
    ll::Config c = ll::defaultConfig(*p, m, 2);
    CHECK(ll::validate(c, *p, m).empty());
    CHECK(stageOf(c, "B") == nullptr);
    // 16 rows are one part; the columns are cut so that both cores work.
    const std::vector<int64_t> n = ll::concreteSizes(*p);
    int64_t parts = 1;
    for (size_t d = 0; d < n.size(); ++d) parts *= (n[d] + c.levels[0].tile[d] - 1) / c.levels[0].tile[d];
    CHECK(parts >= 2);
    CHECK(c.levels[0].tile[1] % 32 == 0);
  }
  {
    // Few rows, but B's rows 16 KiB apart: no copy; blocks walk 16 rows of B along
    // 1024 columns (whole pages), rows, reduction, vector dimension.
    Compilation comp;
    auto p = matmul(comp, "T=f32,I=16,J=4096,K=25088");
    ll::Config c = ll::defaultConfig(*p, m, 2);
    CHECK(ll::validate(c, *p, m).empty());
    CHECK(stageOf(c, "B") == nullptr);
    CHECK(c.levels[1].tile[1] == 1024);
    CHECK(c.levels[1].tile[2] == 16);
    CHECK(c.levels[1].order == std::vector<int>{0, 2, 1});
    // A single row (a vector-matrix product) splits the reduction between the cores
    // instead, each streaming whole rows of B (411 MB: from memory) in blocks 8 rows deep.
    ll::Config c1 = validDefault("examples/matmul.mdh", "matmul", "T=f32,I=1,J=4096,K=25088");
    CHECK(c1.levels[0].tile == std::vector<int64_t>{1, 4096, 6272});
    CHECK(c1.levels[1].tile == std::vector<int64_t>{1, 4096, 8});
    CHECK(c1.levels[1].order == std::vector<int>{0, 2, 1});
  }
}

TEST_CASE("the default gives a single-row product two parts per core and 8-vector register tiles") {
  ll::AsmModel m = avx512Model();
  Compilation comp;
  auto p = matmul(comp, "T=f32,I=1,J=1000,K=2048");
  ll::Config c = ll::defaultConfig(*p, m, 2);
  CHECK(ll::validate(c, *p, m).empty());
  CHECK(c.simdDim == 1);
  // A long reduction: 2048 steps / 4 parts, each part every column (whole rows of B, 8 MB,
  // which stays in the last-level cache: blocks 16 rows deep).
  CHECK(c.levels[0].tile == std::vector<int64_t>{1, 1000, 512});
  REQUIRE(c.levels.size() == 3);
  CHECK(c.levels[1].tile == std::vector<int64_t>{1, 1000, 16});
  CHECK(c.levels[1].order == std::vector<int>{0, 2, 1});
  CHECK(c.levels[2].tile[1] == 128); // 8 vectors of 16 lanes: 8 independent accumulators
  // A short one (64 steps, fewer than 256 per part): the columns are split instead,
  // 1000 / 4 parts = 250, rounded up to whole 32-column tiles.
  Compilation compShort;
  auto s = matmul(compShort, "T=f32,I=1,J=1000,K=64");
  ll::Config cs = ll::defaultConfig(*s, m, 2);
  CHECK(ll::validate(cs, *s, m).empty());
  CHECK(cs.levels[0].tile == std::vector<int64_t>{1, 256, 64});
  // f64: 8 lanes, so 64 columns in the register tile.
  Compilation comp64;
  auto q = matmul(comp64, "T=f64,I=1,J=1000,K=2048");
  ll::Config d = ll::defaultConfig(*q, m, 2);
  CHECK(ll::validate(d, *q, m).empty());
  CHECK(d.levels[2].tile[1] == 64);
}

TEST_CASE("the default's register tile along a concatenated vector dimension is whole vectors") {
  ll::AsmModel m = avx512Model();
  // 31 columns: one tile of 31 ran in scalar loops; 16 leaves a remainder of 15 (masked lanes).
  for (const auto &[sizes, lanes, want] : std::vector<std::tuple<std::string, int64_t, int64_t>>{
           {"T=f32,I=1009,J=31,K=997", 16, 16},
           {"T=f32,I=1009,J=47,K=997", 16, 32},
           {"T=f32,I=1009,J=32,K=997", 16, 32}}) {
    CAPTURE(sizes);
    Compilation comp;
    auto p = matmul(comp, sizes);
    ll::Config c = ll::defaultConfig(*p, m, 2);
    CHECK(ll::validate(c, *p, m).empty());
    REQUIRE(c.simdDim == 1);
    CHECK(c.levels.back().tile[1] == want);
    CHECK(c.levels.back().tile[1] % lanes == 0);
  }
}

TEST_CASE("the default's register rows go along the dimension broadcast operands store consecutively") {
  // C[a,b,c,i,j,k] = sum_m A[.,.,.,.] * B[.,.,.,.], vectorised along k (16: one vector).
  // ikmb-mjac: B[m,j,a,c] is broadcast, consecutive along c (rows along a: 2.6x slower);
  // ijma-mkbc: A[i,j,m,a] is, along a. One vector per row leaves 8 accumulators, so a
  // second dimension that no vector operand reads gets 2 rows: j, the output's closest.
  for (const auto &[entry, want] : std::vector<std::pair<std::string, std::vector<int64_t>>>{
           {"ccsdt_ikmb_mjac", {1, 1, 8, 1, 2, 16, 4}}, {"ccsdt_ijma_mkbc", {8, 1, 1, 1, 2, 16, 4}}}) {
    CAPTURE(entry);
    ll::Config c = validDefault("benchmarks/workloads/ccsdt_tccg.mdh", entry, "T=f32,NA=16,NB=16,NC=16,NI=16,NJ=16,NK=16,NM=24");
    REQUIRE(c.simdDim == 5);
    CHECK(c.levels.back().tile == want);
  }
  // A convolution's image is read through a window (2*q + s): neighbouring rows share its
  // lines over the reduction, so p keeps the rows (MCC ResNet-50 first layer, batch 16;
  // rows along q measured level with them).
  ll::Config c = validDefault("examples/mcc.mdh", "mcc", "T=f32,N=16,P=112,Q=112,K=64,R=7,S=7,C=3");
  REQUIRE(c.simdDim == 3);
  CHECK(c.levels.back().tile[1] == 8);
  CHECK(c.levels.back().tile[2] == 1);
}

TEST_CASE("the default's rows across a reduced vector dimension that both operands read form a 4 x 4 block") {
  // C = Aᵀ·Bᵀ vectorised along k: A[k,i] is staged along k, B[j,k] read along it, so a row
  // along i or j loads its own vector; 4 x 4 rows of one vector: 8 loads per 16 FMAs.
  ll::Config c = validDefault("examples/matmul_t.mdh", "matmul_t", "T=f32,I=16,J=3001,K=4099");
  REQUIRE(c.simdDim == 2);
  CHECK(c.levels.back().tile == std::vector<int64_t>{4, 4, 16});
  // A block that 4 rows do not divide keeps the rows along one dimension.
  ll::Config c7 = validDefault("examples/matmul_t.mdh", "matmul_t", "T=f32,I=10,J=3001,K=4099");
  REQUIRE(c7.simdDim == 2);
  CHECK((c7.levels.back().tile[0] == 1 || c7.levels.back().tile[1] == 1));
}

TEST_CASE("the default keeps a padded vector tile where rows have no remainder, rounds it down where they do") {
  // 18 along k, the output's last dimension: one tile of 18 (a padded second vector) instead
  // of 16 and a remainder tile of 2 that repeats the whole reduction for 2 lanes.
  ll::Config c = validDefault("benchmarks/workloads/ccsdt_tccg.mdh", "ccsdt_ikmb_mjac",
                              "T=f32,NA=16,NB=16,NC=16,NI=16,NJ=16,NK=18,NM=24");
  REQUIRE(c.simdDim == 5);
  CHECK(c.levels.back().tile[5] == 18);
  // B packed in panels (a matrix product of many rows) reads no lanes of a padded tile: whole vectors.
  ll::Config cm = validDefault("examples/matmul.mdh", "matmul", "T=f32,I=1009,J=31,K=997");
  REQUIRE(cm.simdDim == 1);
  CHECK(cm.levels.back().tile[1] == 16);
}

TEST_CASE("the default shares out a contraction whose dimensions are all small over every core") {
  ll::AsmModel m = avx512Model();
  Compilation comp;
  auto p = testing_support::instantiate(comp, "benchmarks/workloads/ccsdt_tccg.mdh", "ccsdt_ijma_mkbc",
                                        "T=f32,NA=16,NB=16,NC=16,NI=16,NJ=16,NK=16,NM=24");
  ll::Config c = ll::defaultConfig(*p, m, 2);
  CHECK(ll::validate(c, *p, m).empty());
  const std::vector<int64_t> n = ll::concreteSizes(*p);
  int64_t parts = 1, cutDims = 0;
  for (size_t d = 0; d < n.size(); ++d) {
    parts *= (n[d] + c.levels[0].tile[d] - 1) / c.levels[0].tile[d];
    cutDims += c.levels[0].tile[d] < n[d];
  }
  CHECK(parts >= 4); // two per core (it was one part: one core did everything)
  CHECK(cutDims == 1);
  CHECK(c.levels[0].tile[size_t(c.simdDim)] == n[size_t(c.simdDim)]); // the vector dimension stays whole
}

TEST_CASE("the default cuts core parts that share out evenly over the cores") {
  ll::AsmModel m = avx512Model();
  auto partsOf = [](const ll::Config &c, const std::vector<int64_t> &n) {
    int64_t parts = 1;
    for (size_t d = 0; d < n.size(); ++d) parts *= (n[d] + c.levels[0].tile[d] - 1) / c.levels[0].tile[d];
    return parts;
  };
  // ResNet-50's first layer: 112 rows in 16-row parts were 7 parts, 4 of them
  // on one of two cores.
  Compilation comp;
  auto p = testing_support::instantiate(comp, "examples/mcc.mdh", "mcc", "T=f32,N=1,P=112,Q=112,K=64,R=7,S=7,C=3");
  const std::vector<int64_t> n = ll::concreteSizes(*p);
  ll::Config two = ll::defaultConfig(*p, m, 2);
  CHECK(ll::validate(two, *p, m).empty());
  CHECK(two.levels[0].tile[1] == 8); // 14 parts: 7 per core, whole 8-row register tiles
  CHECK(partsOf(two, n) % 2 == 0);
  // Three cores: 16-row parts (7) give one core 3 of them, 48 rows where 37.3 are its share;
  // 8-row ones (14) give it 5, 40 rows.
  ll::Config three = ll::defaultConfig(*p, m, 3);
  CHECK(three.levels[0].tile[1] == 8);
  // One core: nothing to balance.
  CHECK(ll::defaultConfig(*p, m, 1).levels[0].tile[1] == 16);
  // A dimension that already shares out evenly keeps its 16-row parts (VGG-16: 224 = 14 x 16).
  Compilation comp2;
  auto q = testing_support::instantiate(comp2, "examples/mcc.mdh", "mcc_s1", "T=f32,N=1,P=224,Q=224,K=64,R=3,S=3,C=3");
  CHECK(ll::defaultConfig(*q, m, 2).levels[0].tile[1] == 16);
}

TEST_CASE("streaming stores: JSON field absent when off, rejected for reductions and GPU models, default by output size") {
  ll::Config c;
  CHECK_FALSE(ll::toJson(c).contains("stream_stores"));
  c.streamStores = true;
  nlohmann::json j = ll::toJson(c);
  CHECK(j["stream_stores"] == true);
  ll::Config back;
  std::string err;
  REQUIRE(ll::fromJson(j, back, err));
  CHECK(back.streamStores);

  auto m = avx512Model();
  Compilation comp;
  auto mm = matmul(comp, "T=f32,I=64,J=64,K=64"); // k is point-wise
  ll::Config r = ll::defaultConfig(*mm, m, 2);
  CHECK_FALSE(r.streamStores);
  // k split by a level outside the accumulation scope: later flushes read the output back.
  r.levels = {{"COR", {32, 64, 64}, {0, 1, 2}}, {"L2", {32, 64, 16}, {2, 0, 1}}, {"RM", {4, 32, 4}, {0, 1, 2}}};
  r.stages.clear();
  r.streamStores = true;
  CHECK_FALSE(ll::streamsWholeReductions(r, *mm));
  CHECK(mentions(ll::validate(r, *mm, m), "stream_stores with point-wise dimensions needs each reduction whole in one tile"));
  // k whole in the core tile and walked only inside the accumulation scope: each cell is stored once.
  r.levels[1] = {"L2", {32, 64, 64}, {2, 0, 1}};
  CHECK(ll::streamsWholeReductions(r, *mm));
  CHECK(ll::validate(r, *mm, m).empty());
  r.levels[2].tile[2] = 1; // the register tile's k steps are inside the scope: any extent
  CHECK(ll::streamsWholeReductions(r, *mm));
  r.levels[1].order = {0, 1, 2}; // L2's k loop last in its level, but the RM loops over i and j follow it
  r.levels[1].tile[2] = 16;
  CHECK_FALSE(ll::streamsWholeReductions(r, *mm));
  r.levels[1].tile[2] = 64;
  r.levels[0].tile[2] = 32; // the core tile splits k among the parts
  CHECK_FALSE(ll::streamsWholeReductions(r, *mm));
  auto g = ll::openclModel();
  ll::Config gc = ll::defaultConfig(*mm, g);
  gc.streamStores = true;
  CHECK(mentions(ll::validate(gc, *mm, g), "stream_stores applies to the openmp model only"));

  Compilation comp2, comp3;
  auto big = testing_support::instantiate(comp2, "examples/jacobi1d.mdh", "jacobi1d", "T=f32,N=268435456");
  auto small = testing_support::instantiate(comp3, "examples/jacobi1d.mdh", "jacobi1d", "T=f32,N=1000");
  CHECK(ll::defaultConfig(*big, m, 2).streamStores); // 1 GiB of output: more than any last-level cache
  CHECK_FALSE(ll::defaultConfig(*small, m, 2).streamStores);
  CHECK(ll::validate(ll::defaultConfig(*big, m, 2), *big, m).empty());
}

TEST_CASE("a streamed stencil's default register tile has rows along its outermost stencil dimension") {
  auto m = avx512Model();
  Compilation c1, c2, c3, c4, c5, c6;
  // Which dimension: shifted accesses of one input along a dimension other than the vector one.
  auto j2 = testing_support::instantiate(c1, "examples/jacobi2d.mdh", "jacobi2d", "T=f32,N1=64,N2=64");
  auto j3 = testing_support::instantiate(c2, "examples/jacobi3d.mdh", "jacobi3d", "T=f32,N1=30,N2=30,N3=30");
  auto j1 = testing_support::instantiate(c3, "examples/jacobi1d.mdh", "jacobi1d", "T=f32,N=1000");
  auto conv = testing_support::instantiate(c4, "examples/conv2d.mdh", "conv2d", "T=f32,P=64,Q=64,R=3,S=3");
  auto mm = matmul(c5, "T=f32,I=64,J=64,K=64");
  CHECK(ll::stencilRowDimension(*j2, 1) == 0);
  CHECK(ll::stencilRowDimension(*j2, 0) == 1); // with i the vector dimension, rows go along j
  CHECK(ll::stencilRowDimension(*j3, 2) == 0); // planes above and below: the outermost
  CHECK(ll::stencilRowDimension(*j1, 0) == -1); // its only stencil dimension is the vector one
  CHECK(ll::stencilRowDimension(*conv, 1) == -1); // one window access, shifted by a reduction
  CHECK(ll::stencilRowDimension(*mm, 1) == -1);

  // 1 GiB per buffer: streamed on any machine; 4 rows by 512 bytes, whatever the rows' alignment.
  ll::Config big = validDefault("examples/jacobi2d.mdh", "jacobi2d", "T=f32,N1=16382,N2=16382");
  REQUIRE(big.levels.size() == 2);
  CHECK(big.streamStores);
  CHECK(big.levels[1].tile == std::vector<int64_t>{4, 128});
  ll::Config big64 = validDefault("examples/jacobi3d.mdh", "jacobi3d", "T=f64,N1=510,N2=510,N3=510");
  CHECK(big64.streamStores);
  CHECK(big64.levels.back().tile == std::vector<int64_t>{4, 1, 64});
  // In the cache: plain stores through the register tile, one row of vectors.
  auto small = testing_support::instantiate(c6, "examples/jacobi2d.mdh", "jacobi2d", "T=f32,N1=62,N2=254");
  ll::Config s = ll::defaultConfig(*small, m, 2);
  CHECK_FALSE(s.streamStores);
  CHECK(s.levels.back().tile[0] == 1);
}

TEST_CASE("prefetch steps: JSON field absent when 0, range-checked, OpenMP only, further where an input exceeds the cache") {
  ll::Config c;
  CHECK_FALSE(ll::toJson(c).contains("prefetch_steps"));
  c.prefetchSteps = 24;
  nlohmann::json j = ll::toJson(c);
  CHECK(j["prefetch_steps"] == 24);
  ll::Config back;
  std::string err;
  REQUIRE(ll::fromJson(j, back, err));
  CHECK(back.prefetchSteps == 24);
  CHECK_FALSE(ll::fromJson(nlohmann::json::parse(R"({"prefetch_steps": "far"})"), back, err));
  CHECK(err.find("prefetch_steps") != std::string::npos);

  auto m = avx512Model();
  Compilation comp, comp2, comp3;
  auto vgg = matmul(comp, "T=f32,I=16,J=4096,K=25088"); // B: 411 MB, more than any last-level cache
  auto small = matmul(comp2, "T=f32,I=16,J=1000,K=2048");
  auto stencil = testing_support::instantiate(comp3, "examples/jacobi1d.mdh", "jacobi1d", "T=f32,N=268435456");
  ll::Config d = ll::defaultConfig(*vgg, m, 2);
  CHECK(d.prefetchSteps == 16);
  CHECK(ll::validate(d, *vgg, m).empty());
  CHECK(ll::defaultConfig(*small, m, 2).prefetchSteps == 0);
  CHECK(ll::defaultConfig(*stencil, m, 2).prefetchSteps == 0); // no reduction rows to prefetch
  d.prefetchSteps = -1;
  CHECK(mentions(ll::validate(d, *vgg, m), "prefetch_steps = -1 is out of range"));
  d.prefetchSteps = ll::Config::kMaxPrefetchSteps + 1;
  CHECK(mentions(ll::validate(d, *vgg, m), "is out of range"));
  auto g = ll::openclModel();
  ll::Config gc = ll::defaultConfig(*small, g);
  CHECK(gc.prefetchSteps == 0);
  gc.prefetchSteps = 16;
  CHECK(mentions(ll::validate(gc, *small, g), "prefetch_steps applies to the openmp model only"));
}

TEST_CASE("GPU chunks: JSON field absent when empty; CUDA only, reduced dimensions only, a thread folds a whole chunk") {
  ll::Config c;
  CHECK_FALSE(ll::toJson(c).contains("chunk"));
  Compilation comp;
  auto mm = matmul(comp, "T=f32,I=100,J=67,K=61");
  auto cuda = ll::cudaModel(90);
  ll::Config g = ll::defaultConfig(*mm, cuda);
  g.levels[0].tile = {32, 32, 61};
  g.levels[1].tile = {4, 4, 16};
  g.chunk = {32, 32, 16};
  CHECK(ll::validate(g, *mm, cuda).empty());
  nlohmann::json j = ll::toJson(g);
  CHECK(j["chunk"] == nlohmann::json({32, 32, 16}));
  ll::Config back;
  std::string err;
  REQUIRE(ll::fromJson(j, back, err));
  CHECK(back.chunk == g.chunk);
  // Work-items partition a chunk, not the whole tile: 8 x 8 threads, not 8 x 8 x 4.
  ll::Config wide = g;
  wide.levels[1].tile = {1, 1, 16};
  CHECK(ll::validate(wide, *mm, cuda).empty());
  wide.chunk = {};
  CHECK(mentions(ll::validate(wide, *mm, cuda), "work-items per work-group"));

  ll::Config bad = g;
  bad.chunk = {16, 32, 16};
  CHECK(mentions(ll::validate(bad, *mm, cuda), "only point-wise reduced dimensions are walked in chunks"));
  bad = g;
  bad.levels[1].tile = {4, 4, 8};
  CHECK(mentions(ll::validate(bad, *mm, cuda), "a work-item folds a whole chunk"));
  bad = g;
  bad.chunk = {32, 32, 0};
  CHECK(mentions(ll::validate(bad, *mm, cuda), "must be between 1 and the work-group tile's extent 61"));
  bad = g;
  bad.chunk = {32, 32};
  CHECK(mentions(ll::validate(bad, *mm, cuda), "`chunk` has 2 entries"));

  auto opencl = ll::openclModel();
  ll::Config cl = ll::defaultConfig(*mm, opencl);
  cl.levels[0].tile = {32, 32, 61};
  cl.levels[1].tile = {4, 4, 16};
  cl.chunk = {32, 32, 16};
  CHECK(mentions(ll::validate(cl, *mm, opencl), "chunk applies to the cuda model only"));
  ll::Config cpu = ll::defaultConfig(*mm, avx512Model(), 2);
  cpu.chunk = {1, 1, 1};
  CHECK(mentions(ll::validate(cpu, *mm, avx512Model()), "chunk applies to the cuda model only; remove it from the openmp"));
}

TEST_CASE("an OpenCL CPU device gets work-items with long contiguous rows by default, a GPU one work-item per cell") {
  Compilation comp, comp2, comp3;
  auto mm = matmul(comp, "T=f32,I=1024,J=1024,K=1024");
  auto cpu = ll::openclModel(64 * 1024, 4096, true), gpu = ll::openclModel(64 * 1024, 4096, false);
  ll::Config c = ll::defaultConfig(*mm, cpu);
  CHECK(c.levels[1].tile == std::vector<int64_t>{4, 64, 1024});
  CHECK(c.levels[1].order == std::vector<int>{0, 2, 1}); // j, contiguous in B and C, innermost
  CHECK(c.levels[0].tile == std::vector<int64_t>{64, 64, 1024});
  CHECK(ll::validate(c, *mm, cpu).empty());
  ll::Config g = ll::defaultConfig(*mm, gpu);
  CHECK(g.levels[1].tile[1] == 1); // consecutive work-items along j
  // MatVec: k is contiguous in the matrix, so it is the innermost loop, folded whole.
  auto mv = testing_support::instantiate(comp2, "examples/matvec.mdh", "matvec", "T=f32,I=4096,K=4096");
  ll::Config v = ll::defaultConfig(*mv, cpu);
  CHECK(v.levels[1].tile == std::vector<int64_t>{4, 4096});
  CHECK(v.levels[1].order.back() == 1);
  // A small output keeps the GPU shape on a CPU device too.
  auto small = matmul(comp3, "T=f32,I=19,J=33,K=17");
  CHECK(ll::toJson(ll::defaultConfig(*small, cpu)) == ll::toJson(ll::defaultConfig(*small, gpu)));
}

TEST_CASE("the default sizes register tiles in vectors and accumulators of the host's vector unit") {
  ll::AsmModel avx2 = ll::openmpModel();
  avx2.vectorBytes = 32;
  avx2.vectorRegisters = 16;
  // MatMul: rows of two vectors; AVX-512's 8 x 32 f32 would be 32 AVX2 accumulators, twice
  // the register file. AVX2: rows of 2 x 8 lanes, panels 16 wide; a float product's tiles
  // run as asm loops (12 accumulators): 6 rows for the 256-row blocks, 42 x 6 + 4; integer
  // products keep GCC's allocation, 5 rows, 10 accumulators.
  Compilation comp;
  auto p = matmul(comp, "T=f32,I=1024,J=1024,K=1024");
  ll::Config c = ll::defaultConfig(*p, avx2, 2);
  CHECK(ll::validate(c, *p, avx2).empty());
  REQUIRE(c.levels.size() == 3);
  CHECK(c.levels[2].tile == std::vector<int64_t>{6, 16, 4});
  REQUIRE(stageOf(c, "B"));
  CHECK(stageOf(c, "B")->panel == 16);
  Compilation compInt;
  auto pi = matmul(compInt, "T=i32,I=1024,J=1024,K=1024");
  CHECK(ll::defaultConfig(*pi, avx2, 2).levels[2].tile == std::vector<int64_t>{5, 16, 4});
  // Blocks of 16 rows: 6 + 6 + 4, not 5 + 5 + 5 + 1 (a lone row runs 2 accumulators at a
  // quarter of the FMA rate); 8: 4 + 4.
  Compilation comp16;
  auto p16 = matmul(comp16, "T=f32,I=16,J=1000,K=2048");
  CHECK(ll::defaultConfig(*p16, avx2, 2).levels[2].tile[0] == 6);
  // 31 columns: the remainder tile of 15 keeps the C++ loops, where 6 rows spilled: 5.
  Compilation comp31;
  auto p31 = matmul(comp31, "T=f32,I=1009,J=31,K=997");
  CHECK(ll::defaultConfig(*p31, avx2, 2).levels[2].tile[0] == 5);
  // ResNet-50's first layer: 8 output rows per part, 4 + 4; the filter staged with k
  // innermost in panels as wide as the tile (the block holds 4 along k).
  Compilation compConv;
  auto conv = testing_support::instantiate(compConv, "examples/mcc.mdh", "mcc", "T=f32,N=1,P=112,Q=112,K=64,R=7,S=7,C=3");
  ll::Config cc = ll::defaultConfig(*conv, avx2, 2);
  CHECK(ll::validate(cc, *conv, avx2).empty());
  CHECK(cc.levels[1].tile[1] == 8);
  CHECK(cc.levels[2].tile == std::vector<int64_t>{1, 4, 1, 16, 1, 1, 3});
  REQUIRE(stageOf(cc, "F"));
  CHECK(stageOf(cc, "F")->layout == std::vector<int>{1, 2, 3, 0});
  CHECK(stageOf(cc, "F")->panel == 16);
  // A reduction whose tiles hold it whole streams its output (205 MB) only with 64-byte
  // vectors: two 32-byte streaming stores a line were slower on the Zen 3 (0.68x plain).
  Compilation compVgg;
  auto vgg = testing_support::instantiate(compVgg, "examples/mcc.mdh", "mcc_s1", "T=f32,N=16,P=224,Q=224,K=64,R=3,S=3,C=3");
  CHECK_FALSE(ll::defaultConfig(*vgg, avx2, 2).streamStores);
  CHECK(ll::defaultConfig(*vgg, avx512Model(), 2).streamStores);
  // A map's rows that do not start on cache lines stream with 32-byte vectors only from 4 KiB
  // on: Jacobi3D's 1016-byte rows no (1.73x the plain time on the Zen 3), Jacobi2D's 16376 yes.
  Compilation compJ3, compJ2;
  auto j3 = testing_support::instantiate(compJ3, "examples/jacobi3d.mdh", "jacobi3d", "T=f32,N1=254,N2=254,N3=254");
  CHECK_FALSE(ll::defaultConfig(*j3, avx2, 2).streamStores);
  CHECK(ll::defaultConfig(*j3, avx512Model(), 2).streamStores);
  auto j2 = testing_support::instantiate(compJ2, "examples/jacobi2d.mdh", "jacobi2d", "T=f32,N1=4094,N2=4094");
  CHECK(ll::defaultConfig(*j2, avx2, 2).streamStores);
  ll::Config wide = ll::defaultConfig(*p, avx512Model(), 2);
  CHECK(wide.levels[2].tile == std::vector<int64_t>{8, 32, 4});
  // A single-row product: 8 vectors of 8 f32 lanes (of 4 f64 lanes), 8 accumulators.
  Compilation comp1;
  auto q = matmul(comp1, "T=f32,I=1,J=1000,K=2048");
  ll::Config d = ll::defaultConfig(*q, avx2, 2);
  CHECK(ll::validate(d, *q, avx2).empty());
  REQUIRE(d.levels.size() == 3);
  CHECK(d.levels[2].tile[1] == 64);
  Compilation comp64;
  auto r = matmul(comp64, "T=f64,I=1,J=1000,K=2048");
  CHECK(ll::defaultConfig(*r, avx2, 2).levels[2].tile[1] == 32);
  // Rows across a reduced vector dimension that both operands read (C = Aᵀ·Bᵀ along k):
  // 4 x 2 rows of one vector of 8 lanes (AVX-512: 4 x 4 of 16; 16 accumulators would be
  // AVX2's whole register file).
  Compilation compT;
  auto t = testing_support::instantiate(compT, "examples/matmul_t.mdh", "matmul_t", "T=f32,I=16,J=3001,K=4099");
  ll::Config u = ll::defaultConfig(*t, avx2, 2);
  CHECK(ll::validate(u, *t, avx2).empty());
  CHECK(u.levels.back().tile == std::vector<int64_t>{4, 2, 8});
  // A, staged with k innermost, is not cut into panels along the reduced k (1.38x the time).
  REQUIRE(stageOf(u, "A"));
  CHECK(stageOf(u, "A")->panel == 0);
  // Narrow byte counts keep 64 lanes (two AVX2 vectors): 32 took 4x the time.
  ll::Config h = validDefault("examples/histo.mdh", "histo", "T=u8,E=1048576,B=256");
  Compilation compH;
  auto hp = testing_support::instantiate(compH, "examples/histo.mdh", "histo", "T=u8,E=1048576,B=256");
  ll::Config hc = ll::defaultConfig(*hp, avx2, 2);
  REQUIRE(hc.simdDim == 0);
  CHECK(hc.levels.back().tile[0] == 64);
  CHECK(h.levels.back().tile[0] == 64);
}

TEST_CASE("MDH_VECTOR_BYTES plans for another vector unit, and other values leave the host's") {
  const char *saved = std::getenv("MDH_VECTOR_BYTES");
  const std::string before = saved ? saved : "";
  ::unsetenv("MDH_VECTOR_BYTES");
  const auto host = ll::hostVectorUnit();
  CHECK((host.first == 64 || host.first == 32 || host.first == 16));
  for (const auto &[value, want] : std::vector<std::pair<std::string, std::pair<int, int>>>{
           {"64", {64, 32}}, {"32", {32, 16}}, {"16", {16, 16}}, {"48", host}, {"", host}}) {
    CAPTURE(value);
    ::setenv("MDH_VECTOR_BYTES", value.c_str(), 1);
    const ll::AsmModel m = ll::openmpModel();
    CHECK(std::make_pair(m.vectorBytes, m.vectorRegisters) == want);
  }
  if (saved) ::setenv("MDH_VECTOR_BYTES", before.c_str(), 1);
  else ::unsetenv("MDH_VECTOR_BYTES");
}
