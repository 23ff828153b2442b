/** \file
 * Per-cell evaluation (every cell equals the full evaluation, bit for bit)
 * and the high-precision mode (reference values, Σ|terms|, term counts and
 * error bounds that accept the native result and other summation orders,
 * and reject values outside the bound).
 */
#include "TestSupport.h"

#include "interp/PreciseEvaluation.h"

#include <cmath>
#include <map>

using namespace mdh;
using namespace mdh::test;
using K = Type::Kind;

namespace {

/// Every cell of every output, one at a time, against the full evaluation.
void checkEveryCell(const Instance &inst, const data::BufferSet &in) {
  auto full = interp::evaluate(*inst, in);
  for (const auto &b : inst.prog->outputs) {
    const auto &data = full.outputs.at(b.name);
    std::vector<interp::CellRef> cells;
    for (size_t c = 0; c < data.elementCount(); ++c) {
      std::vector<int64_t> idx(data.shape.size());
      size_t rest = c;
      for (size_t s = data.shape.size(); s-- > 0;) {
        idx[s] = int64_t(rest % size_t(data.shape[s]));
        rest /= size_t(data.shape[s]);
      }
      cells.push_back({b.name, idx});
    }
    auto got = interp::evaluateCells(*inst, in, cells);
    REQUIRE(got.size() == data.elementCount());
    for (size_t c = 0; c < got.size(); ++c) {
      INFO(b.name << " cell " << c);
      CHECK(got[c].defined);
      CHECK(std::memcmp(got[c].bytes.data(), data.element(c), data.elementSize()) == 0);
    }
  }
}

} // namespace

TEST_CASE("per-cell evaluation equals the full evaluation") {
  SUBCASE("matmul f32") {
    auto inst = example("matmul.mdh", "matmul", {{"T", "f32"}, {"I", "3"}, {"J", "4"}, {"K", "7"}});
    checkEveryCell(inst, {{"A", generated<float>(prim(K::F32), {3, 7}, [](size_t i) { return float(pseudo(i, 1)) / 3; })},
                          {"B", generated<float>(prim(K::F32), {7, 4}, [](size_t i) { return float(pseudo(i, 2)) / 7; })}});
  }
  SUBCASE("scan and mbbs (prefix-sum dimensions restricted to the cell)") {
    auto scan = example("scan.mdh", "prefix_sum", {{"T", "f64"}, {"N", "9"}});
    checkEveryCell(scan, {{"A", generated<double>(prim(K::F64), {9}, [](size_t i) { return double(pseudo(i, 3)) / 3; })}});
    auto mbbs = example("mbbs.mdh", "mbbs", {{"T", "f32"}, {"I", "5"}, {"J", "3"}});
    checkEveryCell(mbbs, {{"A", generated<float>(prim(K::F32), {5, 3}, [](size_t i) { return float(pseudo(i, 4)) / 3; })}});
  }
  SUBCASE("histo (reduction first), mcc, reduce2") {
    auto histo = example("histo.mdh", "histo", {{"T", "i32"}, {"E", "13"}, {"B", "4"}});
    checkEveryCell(histo, {{"Elems", generated<int32_t>(prim(K::I32), {13}, [](size_t i) { return int32_t(pseudo(i, 5, 3)); })},
                           {"Bins", generated<int32_t>(prim(K::I32), {4}, [](size_t i) { return int32_t(i) - 2; })}});
    auto mcc = example("mcc.mdh", "mcc",
                       {{"T", "f32"}, {"N", "1"}, {"P", "2"}, {"Q", "2"}, {"K", "3"}, {"R", "2"}, {"S", "3"}, {"C", "2"}});
    checkEveryCell(mcc, {{"I", generated<float>(prim(K::F32), {1, 4, 5, 2}, [](size_t i) { return float(pseudo(i, 6)) / 3; })},
                         {"F", generated<float>(prim(K::F32), {3, 2, 3, 2}, [](size_t i) { return float(pseudo(i, 7)) / 5; })}});
    auto r2 = example("reduce2.mdh", "reduce_add_max", {{"T", "f32"}, {"N", "7"}});
    checkEveryCell(r2, {{"I", generated<float>(prim(K::F32), {7}, [](size_t i) { return float(pseudo(i, 8)) / 3; })}});
  }
  SUBCASE("a single cell costs only its slice") {
    auto inst = example("matmul.mdh", "matmul", {{"T", "f32"}, {"I", "64"}, {"J", "64"}, {"K", "32"}});
    data::BufferSet in{{"A", generated<float>(prim(K::F32), {64, 32}, [](size_t i) { return float(pseudo(i, 9)); })},
                       {"B", generated<float>(prim(K::F32), {32, 64}, [](size_t i) { return float(pseudo(i, 10)); })}};
    auto cells = interp::evaluateCells(*inst, in, {{"C", {5, 7}}, {"C", {63, 0}}});
    CHECK(cells[0].applications == 32);
    CHECK(cells[1].applications == 32);
  }
}

TEST_CASE("precise mode: reference values and error bounds") {
  const int64_t I = 6, J = 5, Kk = 40;
  auto inst = example("matmul.mdh", "matmul", {{"T", "f32"}, {"I", "6"}, {"J", "5"}, {"K", "40"}});
  auto A = generated<float>(prim(K::F32), {I, Kk}, [](size_t i) { return float(pseudo(i, 11, 1000)) / 7.0f; });
  auto B = generated<float>(prim(K::F32), {Kk, J}, [](size_t i) { return float(pseudo(i, 12, 1000)) / 3.0f; });
  auto a = values<float>(A), b = values<float>(B);
  data::BufferSet in{{"A", A}, {"B", B}};
  auto native = values<float>(interp::evaluate(*inst, in).outputs.at("C"));
  auto precise = interp::evaluatePrecise(*inst, in);
  REQUIRE(precise.size() == size_t(I * J));
  for (int64_t i = 0; i < I; ++i)
    for (int64_t j = 0; j < J; ++j) {
      const auto &cell = precise[size_t(i * J + j)];
      REQUIRE(cell.defined);
      REQUIRE(cell.leaves.size() == 1);
      const auto &leaf = cell.leaves[0];
      CHECK(cell.terms == uint64_t(Kk));
      CHECK(leaf.roundings == doctest::Approx(double(Kk))); // K-1 additions after one multiplication
      long double exact = 0, abs = 0;
      float reversed = 0, pairwise[2] = {0, 0};
      for (int64_t k = 0; k < Kk; ++k) {
        long double t = (long double)a[i * Kk + k] * (long double)b[k * J + j]; // exact: 24+24 bits
        exact += t;
        abs += std::fabs(t);
      }
      for (int64_t k = Kk; k-- > 0;) reversed = reversed + a[i * Kk + k] * b[k * J + j];
      for (int64_t k = 0; k < Kk; ++k) pairwise[k % 2] = pairwise[k % 2] + a[i * Kk + k] * b[k * J + j];
      CHECK(double(leaf.value) == doctest::Approx(double(exact)).epsilon(1e-15));
      CHECK(leaf.absSum == doctest::Approx(double(abs)).epsilon(1e-12));
      CHECK(leaf.errorBound > 0);
      CHECK(leaf.accepts(native[size_t(i * J + j)]));          // the canonical order
      CHECK(leaf.accepts(reversed));                           // another order
      CHECK(leaf.accepts(pairwise[0] + pairwise[1]));          // a tree-shaped one
      CHECK_FALSE(leaf.accepts(double(leaf.value) + 2 * leaf.errorBound + 1e-30));
    }
  // Per-cell precise results are the same as the full ones.
  auto one = interp::evaluatePrecise(*inst, in, {{"C", {4, 3}}});
  REQUIRE(one.size() == 1);
  CHECK(one[0].leaves[0].text == precise[4 * J + 3].leaves[0].text);
  CHECK(one[0].leaves[0].errorBound == precise[4 * J + 3].leaves[0].errorBound);
  CHECK(one[0].applications == uint64_t(Kk));
}

TEST_CASE("precise mode: integers are exact, math functions get their allowance") {
  auto dot = example("dot.mdh", "dot", {{"T", "i64"}, {"K", "9"}});
  auto A = generated<int64_t>(prim(K::I64), {9}, [](size_t i) { return pseudo(i, 13, 100); });
  auto B = generated<int64_t>(prim(K::I64), {9}, [](size_t i) { return pseudo(i, 14, 100); });
  auto cells = interp::evaluatePrecise(*dot, {{"A", A}, {"B", B}});
  REQUIRE(cells.size() == 1);
  int64_t s = 0;
  for (int k = 0; k < 9; ++k) s += values<int64_t>(A)[k] * values<int64_t>(B)[k];
  CHECK(cells[0].cell.index.empty());
  CHECK_FALSE(cells[0].leaves[0].isFloat);
  CHECK(int64_t(cells[0].leaves[0].intBits) == s);
  CHECK(cells[0].leaves[0].accepts(double(s)));
  CHECK_FALSE(cells[0].leaves[0].accepts(double(s + 1)));

  auto sig = example("map.mdh", "map_sigmoid", {{"N", "5"}});
  auto X = generated<float>(prim(K::F32), {5}, [](size_t i) { return float(pseudo(i, 15)) / 3; });
  auto native = values<double>(interp::evaluate(*sig, {{"I", X}}).outputs.at("O1"));
  auto ref = interp::evaluatePrecise(*sig, {{"I", X}});
  for (size_t i = 0; i < 5; ++i) {
    CHECK(ref[i].leaves[0].accepts(native[i]));
    CHECK(ref[i].leaves[0].errorBound < 1e-13);
  }

  // Records: one leaf per field; a record reduction counts its terms.
  auto gh = example("genhisto.mdh", "genhisto", {{"E", "6"}, {"B", "2"}});
  struct Sample {
    int32_t key;
    float value;
  };
  std::vector<Sample> smp = {{0, 0.1f}, {1, 0.2f}, {0, 0.3f}, {0, 0.7f}, {1, 1.5f}, {2, 4.0f}};
  auto r = interp::evaluatePrecise(*gh, {{"Elems", buffer<Sample>(gh.input("Elems").elem, {6}, smp)},
                                         {"Bins", buffer<int32_t>(prim(K::I32), {2}, {0, 1})}});
  REQUIRE(r.size() == 2);
  REQUIRE(r[0].leaves.size() == 3);
  CHECK(r[0].leaves[0].path == ".count");
  CHECK(r[0].leaves[0].intBits == 3);
  CHECK(r[0].leaves[1].path == ".sum");
  CHECK(r[0].leaves[1].accepts(double(0.1f) + double(0.3f) + double(0.7f)));
  CHECK(r[0].terms == 6);
}

TEST_CASE("precise mode: a logarithm whose result is 0 gets a finite bound") {
  // log(x + 1) at x = 0 is exactly 0; its bound was infinite (relative
  // condition number 1/|ln 1|), so every value passed the check.
  auto lg = source("fn lg(x: f64) -> f64 = log(x + 1.0);\n"
                   "mdh m = out_view<f64>( O: (i) -> (i) ) o md_hom<3>( lg, (++) ) o inp_view<f64>( X: (i) -> (i) );\n",
                   "m");
  auto X = buffer<double>(prim(K::F64), {3}, {0.0, 1e-3, 5.0});
  auto native = values<double>(interp::evaluate(*lg, {{"X", X}}).outputs.at("O"));
  auto ref = interp::evaluatePrecise(*lg, {{"X", X}});
  REQUIRE(ref.size() == 3);
  for (size_t i = 0; i < 3; ++i) {
    INFO("cell " << i);
    CHECK(std::isfinite(ref[i].leaves[0].errorBound));
    CHECK(ref[i].leaves[0].accepts(native[i]));
  }
  CHECK(ref[0].leaves[0].errorBound < 1e-15);
  CHECK_FALSE(ref[0].leaves[0].accepts(1e-10));
  CHECK(ref[2].leaves[0].errorBound < 1e-14); // away from x = 1 as tight as before: about (u + 3 ulps)·|log 6|

  auto lg2 = source("fn lg2(x: f32) -> f32 = log2(x + 1.0);\n"
                    "mdh m2 = out_view<f32>( O: (i) -> (i) ) o md_hom<2>( lg2, (++) ) o inp_view<f32>( X: (i) -> (i) );\n",
                    "m2");
  auto Y = buffer<float>(prim(K::F32), {2}, {0.0f, 3.0f});
  auto native2 = values<float>(interp::evaluate(*lg2, {{"X", Y}}).outputs.at("O"));
  auto ref2 = interp::evaluatePrecise(*lg2, {{"X", Y}});
  REQUIRE(ref2.size() == 2);
  CHECK(std::isfinite(ref2[0].leaves[0].errorBound));
  CHECK(ref2[0].leaves[0].accepts(native2[0]));
  CHECK(ref2[1].leaves[0].accepts(native2[1]));
  CHECK_FALSE(ref2[0].leaves[0].accepts(1e-3));
}

namespace {
/// The precise cells of one-output, one-input-per-name f32 program `text` (entry `m`, N = cells).
std::vector<interp::PreciseCell> preciseF32(const std::string &text, const std::map<std::string, std::vector<float>> &ins,
                                            std::vector<float> *native) {
  auto inst = source(text, "m");
  data::BufferSet in;
  for (const auto &[name, v] : ins) in[name] = buffer<float>(prim(K::F32), {int64_t(v.size())}, v);
  if (native) *native = values<float>(interp::evaluate(*inst, in).outputs.at("O"));
  return interp::evaluatePrecise(*inst, in);
}
} // namespace

TEST_CASE("precise mode: min/max carry the other operand's error, and order -0 < +0") {
  // max(s, 0) of a sum s that cancels: the reference is 0 (s = -0.5 exactly), f32 computes
  // s = +0.5 (16777216 + 3 rounds to 16777220); the bound of the literal 0 rejected it.
  std::vector<float> native;
  auto r = preciseF32("fn relu4(a: f32, b: f32, c: f32, d: f32) -> f32 = max(((a + b) + c) + d, 0.0);\n"
                      "mdh m = out_view<f32>( O: (i) -> (i) ) o md_hom<1>( relu4, (++) ) o "
                      "inp_view<f32, f32, f32, f32>( A: (i) -> (i), B: (i) -> (i), C: (i) -> (i), D: (i) -> (i) );\n",
                      {{"A", {16777216.f}}, {"B", {3.f}}, {"C", {-16777216.f}}, {"D", {-3.5f}}}, &native);
  REQUIRE(r.size() == 1);
  CHECK(native[0] == 0.5f);
  CHECK(double(r[0].leaves[0].value) == 0.0);
  CHECK(r[0].leaves[0].accepts(native[0]));
  CHECK_FALSE(r[0].leaves[0].accepts(100.0));
  auto z = preciseF32("fn mn(x: f32, y: f32) -> f32 = 1.0 / min(x, y);\n"
                      "mdh m = out_view<f32>( O: (i) -> (i) ) o md_hom<2>( mn, (++) ) o inp_view<f32, f32>( X: (i) -> (i), Y: (i) -> (i) );\n",
                      {{"X", {0.f, -0.f}}, {"Y", {-0.f, 0.f}}}, &native);
  REQUIRE(z.size() == 2);
  for (size_t i = 0; i < 2; ++i) {
    INFO("cell " << i);
    CHECK(std::isinf(native[i]));
    CHECK(native[i] < 0); // min(+0, -0) = min(-0, +0) = -0
    CHECK(double(z[i].leaves[0].value) == -INFINITY);
  }
}

TEST_CASE("precise mode: a divisor that cancels, results of 0 from math functions, f32 overflow") {
  std::vector<float> native;
  // 1 / (((x + y) - x) - y + 1.5): f32 computes 1/0.5 = 2 for x = 1e8, y = 1; the reference
  // is 1/1.5. The divisor's errors may bring it to 0, so the bound is infinite, not 2e-7.
  auto d = preciseF32("fn dv(x: f32, y: f32) -> f32 = 1.0 / (((x + y) - x) - y + 1.5);\n"
                      "mdh m = out_view<f32>( O: (i) -> (i) ) o md_hom<2>( dv, (++) ) o inp_view<f32, f32>( X: (i) -> (i), Y: (i) -> (i) );\n",
                      {{"X", {1e8f, 0.7f}}, {"Y", {1.f, 0.7f}}}, &native);
  REQUIRE(d.size() == 2);
  CHECK(native[0] == 2.0f);
  CHECK(d[0].leaves[0].accepts(native[0]));
  CHECK(d[1].leaves[0].accepts(native[1]));
  CHECK(d[1].leaves[0].errorBound < 1e-5); // without cancellation the bound stays tight
  CHECK_FALSE(d[1].leaves[0].accepts(0.7));
  // exp(x - m) at x = m (a softmax term), tanh(0), sin(0): results of 0 or 1 whose bound was
  // NaN, hence infinite, so any value passed.
  auto e = preciseF32("fn sm(x: f32, y: f32) -> f32 = exp(x - y) + tanh(x - y) + sin(x - y);\n"
                      "mdh m = out_view<f32>( O: (i) -> (i) ) o md_hom<3>( sm, (++) ) o inp_view<f32, f32>( X: (i) -> (i), Y: (i) -> (i) );\n",
                      {{"X", {2.5f, 0.7f, 3.f}}, {"Y", {2.5f, 0.7f, 3.f}}}, &native);
  REQUIRE(e.size() == 3);
  for (size_t i = 0; i < 3; ++i) {
    INFO("cell " << i);
    CHECK(std::isfinite(e[i].leaves[0].errorBound));
    CHECK(e[i].leaves[0].errorBound < 1e-5);
    CHECK(e[i].leaves[0].accepts(native[i]));
    CHECK_FALSE(e[i].leaves[0].accepts(1.5));
  }
  // floor(x - y) at x = y: x - y may round to either side of 0 as far as the bound knows, so
  // floor may move by 1; the bound says 1 (it was NaN, hence infinite).
  auto f = preciseF32("fn fl(x: f32, y: f32) -> f32 = floor(x - y);\n"
                      "mdh m = out_view<f32>( O: (i) -> (i) ) o md_hom<1>( fl, (++) ) o inp_view<f32, f32>( X: (i) -> (i), Y: (i) -> (i) );\n",
                      {{"X", {2.5f}}, {"Y", {2.5f}}}, &native);
  REQUIRE(f.size() == 1);
  CHECK(f[0].leaves[0].accepts(native[0]));
  CHECK(f[0].leaves[0].errorBound <= 1.0 + 1e-6);
  CHECK_FALSE(f[0].leaves[0].accepts(3.0));
  // (x as f32) as f64 overflows and underflows at f32's range.
  auto c = source("fn cdd(x: f64) -> f64 = (x as f32) as f64;\n"
                  "mdh m = out_view<f64>( O: (i) -> (i) ) o md_hom<3>( cdd, (++) ) o inp_view<f64>( X: (i) -> (i) );\n",
                  "m");
  auto X = buffer<double>(prim(K::F64), {3}, {1e40, 1e-46, 1.1});
  auto nat = values<double>(interp::evaluate(*c, {{"X", X}}).outputs.at("O"));
  auto p = interp::evaluatePrecise(*c, {{"X", X}});
  REQUIRE(p.size() == 3);
  CHECK(std::isinf(nat[0]));
  for (size_t i = 0; i < 3; ++i) {
    INFO("cell " << i);
    CHECK(p[i].leaves[0].accepts(nat[i]));
  }
  CHECK_FALSE(p[0].leaves[0].accepts(1e40));
  CHECK_FALSE(p[2].leaves[0].accepts(1.2));
}
