// Unit tests of the result-range analysis behind narrow lane accumulators
// (hl/ResultRange.h): the intervals of bounded results, none for results
// that depend on inputs or on unsupported operations, locals assigned both
// kinds of value, and the lane width and widening period derived from an
// interval.
#include "driver/Compilation.h"
#include "hl/ResultRange.h"

#include <doctest/doctest.h>

#include <limits>
#include <memory>

using namespace mdh;

namespace {

/// `f` as the f of a histogram over u8 values, instantiated (the
/// compilation outlives the program).
struct Histogram {
  Compilation comp;
  std::unique_ptr<hl::Program> p;
  Histogram(const std::string &f, const std::string &type) {
    comp.addSource("test.mdh", f + R"(
mdh h = out_view<)" + type + R"(>( Out: (e, b) -> (b) ) o md_hom<64, 8>( f, (pw(add), ++) )
  o inp_view<u8, u8>( Elems: (e, b) -> (e), Bins: (e, b) -> (b) );
)");
    comp.analyze();
    REQUIRE(comp.diags().all().empty());
    p = comp.sema().instantiate("h", {});
    REQUIRE(p);
  }
};

/// The interval of the result of `f` (see Histogram).
std::optional<hl::IntRange> resultOf(const std::string &f, std::string type = "i32") {
  Histogram h(f, type);
  return hl::ResultRanges(*h.p->f).result();
}

void checkRange(const std::optional<hl::IntRange> &r, int64_t lo, int64_t hi) {
  REQUIRE(r);
  CHECK(r->lo == lo);
  CHECK(r->hi == hi);
}

} // namespace

TEST_CASE("constants, ?:, casts from bool and arithmetic of them are bounded") {
  checkRange(resultOf("fn f(e: u8, b: u8) -> i32 = e == b ? 1 : 0;"), 0, 1);
  checkRange(resultOf("fn f(e: u8, b: u8) -> i32 = e < b ? -4 : -3;"), -4, -3);
  checkRange(resultOf("fn f(e: u8, b: u8) -> i32 = (e < b ? 2 : 1) * 3 - (e == b ? 1 : 0);"), 2, 6);
  checkRange(resultOf("fn f(e: u8, b: u8) -> i32 = -(e < b ? 2 : 1);"), -2, -1);
  checkRange(resultOf("fn f(e: u8, b: u8) -> i32 = (e == b) as i32 + (e < b) as i32;"), 0, 2);
  checkRange(resultOf("fn f(e: u8, b: u8) -> u32 = e == b ? 1 : 0;", "u32"), 0, 1);
  checkRange(resultOf("fn f(e: u8, b: u8) -> i32 { let c: i32 = e <= b ? 3 : 2; return c * 2 - 1; }"), 3, 5);
}

TEST_CASE("results that depend on input values or other operations have no interval") {
  CHECK_FALSE(resultOf("fn f(e: u8, b: u8) -> i32 = e as i32 + b as i32;"));
  CHECK_FALSE(resultOf("fn f(e: u8, b: u8) -> i32 = e == b ? e as i32 : 0;"));
  CHECK_FALSE(resultOf("fn f(e: u8, b: u8) -> i32 = (e == b ? 8 : 4) / 2;"));
  CHECK_FALSE(resultOf("fn f(e: u8, b: u8) -> i32 = (e == b ? 8 : 4) & 3;"));
  // A byte result gains nothing from narrower lanes.
  CHECK_FALSE(resultOf("fn f(e: u8, b: u8) -> u8 = e == b ? 1 : 0;", "u8"));
  // A local assigned a bounded and then an input-dependent value is bounded nowhere.
  CHECK_FALSE(resultOf("fn f(e: u8, b: u8) -> i32 { let mut c: i32 = 1; c = e as i32; return c; }"));
}

/// The lane width for `f` (see Histogram) and `steps` sums.
int laneBytesOf(const std::string &f, int64_t steps) {
  Histogram h(f, "i32");
  return hl::ResultRanges(*h.p->f).laneBytes(steps);
}

TEST_CASE("the lanes hold the counts and every bounded value on the way") {
  CHECK(laneBytesOf("fn f(e: u8, b: u8) -> i32 = e == b ? 1 : 0;", 8) == 1);
  CHECK(laneBytesOf("fn f(e: u8, b: u8) -> i32 = e == b ? 1 : 0;", 200) == 2);
  // The result is 0 or 1, but c (199 or 200) does not fit a byte.
  CHECK(laneBytesOf("fn f(e: u8, b: u8) -> i32 { let c: i32 = e < b ? 200 : 199; return c > 199 ? 1 : 0; }", 8) == 2);
  CHECK(laneBytesOf("fn f(e: u8, b: u8) -> i32 = e < b ? 40000 : 0;", 8) == 0);
  CHECK(laneBytesOf("fn f(e: u8, b: u8) -> i32 = e as i32;", 8) == 0);
}

TEST_CASE("lane width and widening period from an interval") {
  CHECK(hl::narrowAccumulatorSteps({0, 1}, 1) == 127);
  CHECK(hl::narrowAccumulatorSteps({-1, 0}, 1) == 128);
  CHECK(hl::narrowAccumulatorSteps({-3, 5}, 1) == 25);
  CHECK(hl::narrowAccumulatorSteps({900, 1000}, 2) == 32);
  CHECK(hl::narrowAccumulatorSteps({0, 0}, 1) == std::numeric_limits<int64_t>::max());
  CHECK(laneBytesOf("fn f(e: u8, b: u8) -> i32 = e == b ? 1 : 0;", 128) == 2); // 127 steps in a byte, 32767 in 16 bits
  CHECK(laneBytesOf("fn f(e: u8, b: u8) -> i32 = e < b ? 100 : 0;", 8) == 2);
  CHECK(laneBytesOf("fn f(e: u8, b: u8) -> i32 = e < b ? 5000 : 0;", 8) == 0);
}

TEST_CASE("narrow counting: the reduced dimension's add, the lane width and the widening period") {
  Histogram h("fn f(e: u8, b: u8) -> i32 = e == b ? 1 : 0;", "i32");
  const hl::NarrowCounting one = hl::narrowCounting(*h.p, 0, 1, 8);
  CHECK(one.bytes == 1);
  CHECK(one.passes == 127);
  const hl::NarrowCounting four = hl::narrowCounting(*h.p, 0, 4, 8); // 4 sums per pass
  CHECK(four.bytes == 1);
  CHECK(four.passes == 31);
  CHECK(hl::narrowCounting(*h.p, 0, 32, 8).bytes == 2); // 256 sums do not fit a byte
  CHECK(hl::narrowCounting(*h.p, 1, 1, 8).bytes == 0);  // b is concatenated, not summed
}

TEST_CASE("narrow counting: lanes no narrower than f's inputs") {
  auto countsOf = [](const std::string &elem) {
    Compilation comp;
    comp.addSource("test.mdh", "fn f(e: " + elem + ", b: " + elem + R"() -> i32 = e == b ? 1 : 0;
mdh h = out_view<i32>( Out: (e, b) -> (b) ) o md_hom<64, 8>( f, (pw(add), ++) )
  o inp_view<)" + elem + ", " + elem + R"(>( Elems: (e, b) -> (e), Bins: (e, b) -> (b) );
)");
    comp.analyze();
    REQUIRE(comp.diags().all().empty());
    auto p = comp.sema().instantiate("h", {});
    REQUIRE(p);
    return hl::narrowCounting(*p, 0, 1, 8);
  };
  CHECK(countsOf("u8").bytes == 1);
  const hl::NarrowCounting i16 = countsOf("i16"); // 1 byte would hold the counts; the compare needs 2
  CHECK(i16.bytes == 2);
  CHECK(i16.passes == 32767);
  CHECK(countsOf("i32").bytes == 0); // as wide as the i32 result: no narrowing
}
