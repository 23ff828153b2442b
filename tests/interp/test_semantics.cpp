/** \file
 * The interpreter's semantics beyond the examples: ⊥ cells, non-injective
 * output views, wrap-around and trapped integer overflow, division by zero,
 * conversions, non-commutative operators in point-wise and prefix-sum
 * dimensions (the canonical order), run-time sizes, and input checks.
 */
#include "TestSupport.h"

#include "interp/RuntimeError.h"

#include <climits>
#include <cmath>

using namespace mdh;
using namespace mdh::test;
using K = Type::Kind;

namespace {

const char *kPrograms = R"MDH(
fn id32(x: i32) -> i32 = x;
fn inc(x: i32) -> i32 = x + 1;
fn quot(a: i32, b: i32) -> i32 = a / b;
fn rem(a: i32, b: i32) -> i32 = a % b;
fn both(a: i32, b: i32) -> i32 = a + b;
fn conv(x: f64) -> (i32, u8, i64) = (x as i32, x as u8, x as i64);
fn shifts(x: i32, s: i32) -> (i32, i32, u8) = (x << s, x >> s, (x as u8) >> s);
fn bytes(x: u8) -> u8 = x * 3 + 200;

/// Writes only even cells: the odd ones stay ⊥.
mdh spread<N: size> = out_view<i32>( O: (i) -> (2*i) ) o md_hom<N>( id32, (++) ) o inp_view<i32>( I: (i) -> (i) );
/// Every j writes O[i]: fine when all agree, an error otherwise.
mdh rows<I: size, J: size> =
    out_view<i32>( O: (i, j) -> (i) ) o md_hom<I, J>( both, (++, ++) ) o inp_view<i32, i32>( A: (i, j) -> (i), B: (i, j) -> (j) );
/// Two accesses of one output buffer.
mdh twice<N: size> = out_view<i32>( O: (i) -> (i), (i) -> (i) ) o md_hom<N>( id2, (++) ) o inp_view<i32>( I: (i) -> (i) );
fn id2(x: i32) -> (i32, i32) = (x, x);
fn skew(x: i32) -> (i32, i32) = (x, x + 1);
mdh twiceSkewed<N: size> = out_view<i32>( O: (i) -> (i), (i) -> (i) ) o md_hom<N>( skew, (++) ) o inp_view<i32>( I: (i) -> (i) );

mdh incr<N: size> = out_view<i32>( O: (i) -> (i) ) o md_hom<N>( inc, (++) ) o inp_view<i32>( I: (i) -> (i) );
mdh total<N: size> = out_view<i32>( O: (i) -> () ) o md_hom<N>( id32, (pw(add)) ) o inp_view<i32>( I: (i) -> (i) );
mdh divide<N: size> =
    out_view<i32>( O: (i) -> (i) ) o md_hom<N>( quot, (++) ) o inp_view<i32, i32>( A: (i) -> (i), B: (i) -> (i) );
mdh modulo<N: size> =
    out_view<i32>( O: (i) -> (i) ) o md_hom<N>( rem, (++) ) o inp_view<i32, i32>( A: (i) -> (i), B: (i) -> (i) );
mdh convert<N: size> =
    out_view<i32, u8, i64>( A: (i) -> (i), B: (i) -> (i), C: (i) -> (i) ) o md_hom<N>( conv, (++) ) o inp_view<f64>( X: (i) -> (i) );
mdh shift<N: size> =
    out_view<i32, i32, u8>( L: (i) -> (i), R: (i) -> (i), U: (i) -> (i) ) o md_hom<N>( shifts, (++) )
  o inp_view<i32, i32>( X: (i) -> (i), S: (i) -> (i) );
mdh wrapu8<N: size> = out_view<u8>( O: (i) -> (i) ) o md_hom<N>( bytes, (++) ) o inp_view<u8>( I: (i) -> (i) );

/// 2x2 integer matrices: an associative, non-commutative product.
record M2 { a: i64, b: i64, c: i64, d: i64 }
@assoc
fn mm(x: M2, y: M2) -> M2 =
    M2 { a: x.a * y.a + x.b * y.c, b: x.a * y.b + x.b * y.d, c: x.c * y.a + x.d * y.c, d: x.c * y.b + x.d * y.d };
fn idm(x: M2) -> M2 = x;
mdh chain<N: size> = out_view<M2>( O: (i) -> (i) ) o md_hom<N>( idm, (ps(mm)) ) o inp_view<M2>( A: (i) -> (i) );
mdh product<N: size> = out_view<M2>( O: (i) -> () ) o md_hom<N>( idm, (pw(mm)) ) o inp_view<M2>( A: (i) -> (i) );
/// Prefix products along i of the products along j: Out[i] = Π_{i'<=i} Π_j A[i', j].
mdh blocks<I: size, J: size> =
    out_view<M2>( O: (i, j) -> (i) ) o md_hom<I, J>( idm, (ps(mm), pw(mm)) ) o inp_view<M2>( A: (i, j) -> (i, j) );

/// A derived extent 2*N - 1 from which a run-time N is solved.
mdh evens = out_view<i32>( O: (i) -> (i) ) o md_hom<*>( id32, (++) ) o inp_view<i32>( I: (i) -> (2*i) );
mdh pairs = out_view<i32>( O: (i) -> (i) ) o md_hom<*>( both, (++) ) o inp_view<i32, i32>( A: (i) -> (i), B: (i) -> (i) );
)MDH";

Instance program(const std::string &entry, const MetaSettings &s = {}) { return source(kPrograms, entry, s); }

/// Runs `fn` and returns the RuntimeError it throws (fails when it does not throw).
template <class Fn> interp::RuntimeError errorOf(Fn fn) {
  try {
    fn();
  } catch (const interp::RuntimeError &e) {
    return e;
  }
  FAIL("expected a RuntimeError");
  return interp::RuntimeError("", "");
}

struct M2 {
  int64_t a, b, c, d;
  bool operator==(const M2 &o) const { return a == o.a && b == o.b && c == o.c && d == o.d; }
};
M2 mul(const M2 &x, const M2 &y) {
  return {x.a * y.a + x.b * y.c, x.a * y.b + x.b * y.d, x.c * y.a + x.d * y.c, x.c * y.b + x.d * y.d};
}
M2 m2(size_t i, uint64_t salt) { return {pseudo(i, salt, 3), pseudo(i, salt + 1, 3), pseudo(i, salt + 2, 3), pseudo(i, salt + 3, 3)}; }

} // namespace

TEST_CASE("⊥ cells: an error unless allowed, then reported in the mask") {
  auto inst = program("spread", {{"N", "4"}});
  auto I = buffer<int32_t>(prim(K::I32), {4}, {10, 11, 12, 13});
  auto e = errorOf([&] { interp::evaluate(*inst, {{"I", I}}); });
  CHECK(e.code == interp::codes::kUndefinedOutput);
  CHECK(std::string(e.what()).find("`O[1]`") != std::string::npos);
  CHECK(std::string(e.what()).find("3 undefined") != std::string::npos);
  interp::EvalOptions opts;
  opts.allowUndefined = true;
  auto r = interp::evaluate(*inst, {{"I", I}}, opts);
  CHECK(r.undefinedCells == 3);
  CHECK(r.outputs.at("O").shape == std::vector<int64_t>{7});
  CHECK(values<int32_t>(r.outputs.at("O")) == std::vector<int32_t>{10, 0, 11, 0, 12, 0, 13});
  CHECK(r.defined.at("O") == std::vector<uint8_t>{1, 0, 1, 0, 1, 0, 1});
  auto cells = interp::evaluateCells(*inst, {{"I", I}}, {{"O", {3}}, {"O", {4}}});
  CHECK_FALSE(cells[0].defined);
  CHECK(cells[0].text == "⊥");
  CHECK(cells[1].defined);
  CHECK(cells[1].text == "12");
}

TEST_CASE("non-injective output views: equal writes are fine, different ones an error") {
  auto inst = program("rows", {{"I", "3"}, {"J", "4"}});
  auto A = buffer<int32_t>(prim(K::I32), {3}, {1, 2, 3});
  auto same = buffer<int32_t>(prim(K::I32), {4}, {5, 5, 5, 5});
  auto r = interp::evaluate(*inst, {{"A", A}, {"B", same}});
  CHECK(values<int32_t>(r.outputs.at("O")) == std::vector<int32_t>{6, 7, 8});
  auto differ = buffer<int32_t>(prim(K::I32), {4}, {5, 5, 9, 5});
  auto e = errorOf([&] { interp::evaluate(*inst, {{"A", A}, {"B", differ}}); });
  CHECK(e.code == interp::codes::kConflictingWrites);
  std::string msg = e.what();
  CHECK(msg.find("`O[0]`") != std::string::npos);
  CHECK(msg.find("6 from MDA index (i=0, j=0)") != std::string::npos);
  CHECK(msg.find("10 from MDA index (i=0, j=2)") != std::string::npos);
  // Per-cell evaluation finds the same conflict, and agrees where there is none.
  auto e2 = errorOf([&] { interp::evaluateCells(*inst, {{"A", A}, {"B", differ}}, {{"O", {1}}}); });
  CHECK(e2.code == interp::codes::kConflictingWrites);
  CHECK(interp::evaluateCells(*inst, {{"A", A}, {"B", same}}, {{"O", {2}}})[0].text == "8");

  auto two = program("twice", {{"N", "3"}});
  auto I = buffer<int32_t>(prim(K::I32), {3}, {4, 5, 6});
  CHECK(values<int32_t>(interp::evaluate(*two, {{"I", I}}).outputs.at("O")) == std::vector<int32_t>{4, 5, 6});
  auto skewed = program("twiceSkewed", {{"N", "3"}});
  CHECK(errorOf([&] { interp::evaluate(*skewed, {{"I", I}}); }).code == interp::codes::kConflictingWrites);
}

TEST_CASE("integers wrap modulo 2^n; --trap-overflow reports the first overflow with its indices") {
  auto inst = program("incr", {{"N", "4"}});
  auto I = buffer<int32_t>(prim(K::I32), {4}, {1, -1, INT_MAX, INT_MAX});
  auto r = interp::evaluate(*inst, {{"I", I}});
  CHECK(values<int32_t>(r.outputs.at("O")) == std::vector<int32_t>{2, 0, INT_MIN, INT_MIN});
  interp::EvalOptions trap;
  trap.trapOverflow = true;
  auto e = errorOf([&] { interp::evaluate(*inst, {{"I", I}}, trap); });
  CHECK(e.code == interp::codes::kIntegerOverflow);
  CHECK(std::string(e.what()).find("2147483647 + 1") != std::string::npos);
  CHECK(std::string(e.what()).find("(i=2)") != std::string::npos); // the first one
  CHECK(e.range.valid());

  auto sum = program("total", {{"N", "3"}});
  auto big = buffer<int32_t>(prim(K::I32), {3}, {INT_MAX, 1, 5});
  CHECK(values<int32_t>(interp::evaluate(*sum, {{"I", big}}).outputs.at("O"))[0] == INT_MIN + 5);
  auto e2 = errorOf([&] { interp::evaluate(*sum, {{"I", big}}, trap); });
  CHECK(std::string(e2.what()).find("combine operator") != std::string::npos);

  auto u8 = program("wrapu8", {{"N", "3"}});
  auto b = buffer<uint8_t>(prim(K::U8), {3}, {0, 10, 255});
  CHECK(values<uint8_t>(interp::evaluate(*u8, {{"I", b}}).outputs.at("O")) ==
        std::vector<uint8_t>{200, uint8_t(230), uint8_t((255 * 3 + 200) & 0xff)});
}

TEST_CASE("integer division: C semantics, INT_MIN / -1 wraps, division by zero is an error at its index") {
  auto div = program("divide", {{"N", "4"}});
  auto mod = program("modulo", {{"N", "4"}});
  auto A = buffer<int32_t>(prim(K::I32), {4}, {7, -7, INT_MIN, INT_MIN});
  auto B = buffer<int32_t>(prim(K::I32), {4}, {2, 2, -1, 3});
  CHECK(values<int32_t>(interp::evaluate(*div, {{"A", A}, {"B", B}}).outputs.at("O")) ==
        std::vector<int32_t>{3, -3, INT_MIN, INT_MIN / 3});
  CHECK(values<int32_t>(interp::evaluate(*mod, {{"A", A}, {"B", B}}).outputs.at("O")) ==
        std::vector<int32_t>{1, -1, 0, INT_MIN % 3});
  auto Z = buffer<int32_t>(prim(K::I32), {4}, {1, 2, 3, 0});
  auto e = errorOf([&] { interp::evaluate(*div, {{"A", A}, {"B", Z}}); });
  CHECK(e.code == interp::codes::kDivisionByZero);
  CHECK(std::string(e.what()).find("at MDA index (i=3)") != std::string::npos);
  CHECK(std::string(e.what()).find("`quot`") != std::string::npos);
}

TEST_CASE("conversions and shifts") {
  auto conv = program("convert", {{"N", "6"}});
  auto X = buffer<double>(prim(K::F64), {6}, {2.9, -2.9, 1e10, -1e10, NAN, 300.5});
  auto r = interp::evaluate(*conv, {{"X", X}}).outputs;
  CHECK(values<int32_t>(r.at("A")) == std::vector<int32_t>{2, -2, INT_MAX, INT_MIN, 0, 300});
  CHECK(values<uint8_t>(r.at("B")) == std::vector<uint8_t>{2, 0, 255, 0, 0, 255});
  CHECK(values<int64_t>(r.at("C")) == std::vector<int64_t>{2, -2, 10000000000, -10000000000, 0, 300});
  auto sh = program("shift", {{"N", "4"}});
  auto x = buffer<int32_t>(prim(K::I32), {4}, {1, -16, -16, 3});
  auto s = buffer<int32_t>(prim(K::I32), {4}, {33, 2, 34, -1});
  auto o = interp::evaluate(*sh, {{"X", x}, {"S", s}}).outputs;
  // shift counts are taken modulo the width: 33 -> 1, 34 -> 2, -1 -> 31 (i32) / 7 (u8)
  CHECK(values<int32_t>(o.at("L")) == std::vector<int32_t>{2, -64, -64, int32_t(uint32_t(3) << 31)});
  CHECK(values<int32_t>(o.at("R")) == std::vector<int32_t>{0, -4, -4, 0});
  CHECK(values<uint8_t>(o.at("U")) == std::vector<uint8_t>{0, uint8_t(240 >> 2), uint8_t(240 >> 2), 0});
}

TEST_CASE("non-commutative operators keep the canonical order (point-wise and prefix-sum, B.9)") {
  const int64_t n = 6;
  std::vector<M2> a;
  for (int64_t i = 0; i < n; ++i) a.push_back(m2(size_t(i), 40));
  auto chain = program("chain", {{"N", "6"}});
  const Type m2t = chain.input("A").elem;
  auto A = buffer<M2>(m2t, {n}, a);
  auto out = values<M2>(interp::evaluate(*chain, {{"A", A}}).outputs.at("O"));
  M2 acc = a[0];
  for (int64_t i = 0; i < n; ++i) {
    if (i) acc = mul(acc, a[i]);
    CHECK(out[i] == acc);
  }
  auto prod = program("product", {{"N", "6"}});
  CHECK(values<M2>(interp::evaluate(*prod, {{"A", A}}).outputs.at("O"))[0] == acc);

  // 2-D: prefix-sum over i of the point-wise products over j, per cell as well.
  const int64_t I = 4, J = 3;
  std::vector<M2> g;
  for (int64_t i = 0; i < I * J; ++i) g.push_back(m2(size_t(i), 50));
  auto blocks = program("blocks", {{"I", "4"}, {"J", "3"}});
  auto G = buffer<M2>(m2t, {I, J}, g);
  auto o = values<M2>(interp::evaluate(*blocks, {{"A", G}}).outputs.at("O"));
  M2 run{};
  for (int64_t i = 0; i < I; ++i) {
    M2 row = g[size_t(i * J)];
    for (int64_t j = 1; j < J; ++j) row = mul(row, g[size_t(i * J + j)]);
    run = i == 0 ? row : mul(run, row);
    CHECK(o[i] == run);
    auto cell = interp::evaluateCells(*blocks, {{"A", G}}, {{"O", {i}}});
    M2 v;
    std::memcpy(&v, cell[0].bytes.data(), sizeof v);
    CHECK(v == run);
  }
}

TEST_CASE("run-time sizes are solved from the input shapes") {
  auto evens = program("evens");
  REQUIRE(evens.prog->dynamicSizes.size() == 1);
  auto I = buffer<int32_t>(prim(K::I32), {9}, {0, 1, 2, 3, 4, 5, 6, 7, 8});
  auto r = interp::evaluate(*evens, {{"I", I}});
  CHECK(r.shapes.sizes == std::vector<int64_t>{5});
  CHECK(values<int32_t>(r.outputs.at("O")) == std::vector<int32_t>{0, 2, 4, 6, 8});
  auto bad = buffer<int32_t>(prim(K::I32), {8}, {0, 1, 2, 3, 4, 5, 6, 7});
  auto e = errorOf([&] { interp::evaluate(*evens, {{"I", bad}}); });
  CHECK(e.code == interp::codes::kShapeMismatch);
  CHECK(std::string(e.what()).find("`I`") != std::string::npos);

  auto pairs = program("pairs");
  auto A = buffer<int32_t>(prim(K::I32), {3}, {1, 2, 3});
  auto B2 = buffer<int32_t>(prim(K::I32), {2}, {1, 2});
  auto e2 = errorOf([&] { interp::evaluate(*pairs, {{"A", A}, {"B", B2}}); });
  CHECK(e2.code == interp::codes::kShapeMismatch);
  std::string msg = e2.what();
  CHECK(msg.find("`B`") != std::string::npos);
  CHECK(msg.find("expected [3]") != std::string::npos);
  CHECK(msg.find("got [2]") != std::string::npos);
  auto empty = buffer<int32_t>(prim(K::I32), {0}, std::vector<int32_t>{});
  CHECK(errorOf([&] { interp::evaluate(*pairs, {{"A", empty}, {"B", empty}}); }).code == interp::codes::kShapeMismatch);
  // An explicit value must agree with the data.
  interp::EvalOptions opts;
  opts.runtimeSizes["N1"] = 2;
  CHECK(errorOf([&] { interp::evaluate(*pairs, {{"A", A}, {"B", A}}, opts); }).code == interp::codes::kShapeMismatch);
  opts.runtimeSizes["N1"] = 3;
  CHECK(values<int32_t>(interp::evaluate(*pairs, {{"A", A}, {"B", A}}, opts).outputs.at("O")) == std::vector<int32_t>{2, 4, 6});
  opts.runtimeSizes = {{"Q", 3}};
  CHECK(errorOf([&] { interp::evaluate(*pairs, {{"A", A}, {"B", A}}, opts); }).code == interp::codes::kRuntimeSize);
}

TEST_CASE("input checks: missing, unknown, wrong type, wrong shape") {
  auto inst = program("pairs");
  auto A = buffer<int32_t>(prim(K::I32), {3}, {1, 2, 3});
  CHECK(errorOf([&] { interp::evaluate(*inst, {}); }).code == interp::codes::kRuntimeSize);
  CHECK(errorOf([&] { interp::evaluate(*inst, {{"A", A}}); }).code == interp::codes::kMissingData);
  auto fixed = program("divide", {{"N", "3"}});
  CHECK(errorOf([&] { interp::evaluate(*fixed, {{"A", A}}); }).code == interp::codes::kMissingData);
  CHECK(errorOf([&] { interp::evaluate(*fixed, {{"A", A}, {"B", A}, {"C", A}}); }).code == interp::codes::kMissingData);
  auto F = buffer<float>(prim(K::F32), {3}, {1, 2, 3});
  CHECK(errorOf([&] { interp::evaluate(*fixed, {{"A", A}, {"B", F}}); }).code == interp::codes::kShapeMismatch);
  auto A4 = buffer<int32_t>(prim(K::I32), {2, 2}, {1, 2, 3, 4});
  auto e = errorOf([&] { interp::evaluate(*fixed, {{"A", A}, {"B", A4}}); });
  CHECK(std::string(e.what()).find("expected [3]") != std::string::npos);
  CHECK(std::string(e.what()).find("got [2, 2]") != std::string::npos);
}
