// The injectivity proof of output accesses (hl/Injectivity.h): what it
// proves, what it must not claim, and matrices whose integer elimination
// overflowed 128 bits (it answered "injective" for them).
#include "hl/Injectivity.h"

#include <doctest/doctest.h>

#include <vector>

using namespace mdh;
using namespace mdh::hl;

namespace {

std::vector<SizePoly> constants(const std::vector<int64_t> &values) {
  std::vector<SizePoly> out;
  for (int64_t v : values) out.push_back(SizePoly::constant(v));
  return out;
}

/// An output buffer of the given extents and its one access, rows of coefficients per component.
struct Case {
  Buffer buffer;
  Access access;
  Case(const std::vector<std::vector<int64_t>> &rows, const std::vector<int64_t> &extents) {
    for (const auto &row : rows) access.dims.push_back({constants(row), SizePoly::constant(0)});
    buffer.shape = constants(extents);
  }
  bool injective(const std::vector<int64_t> &sizes) const {
    return provablyInjective(buffer, access, constants(sizes));
  }
};

} // namespace

TEST_CASE("the identity and permutations are injective; dropping a dimension is not") {
  CHECK(Case({{1, 0}, {0, 1}}, {4, 5}).injective({4, 5}));
  CHECK(Case({{0, 1}, {1, 0}}, {5, 4}).injective({4, 5}));
  CHECK_FALSE(Case({{1, 0}}, {4}).injective({4, 5}));
  // ... unless the dropped dimension has one index only.
  CHECK(Case({{1, 0}}, {4}).injective({4, 1}));
}

TEST_CASE("a flattened row-major output is a mixed radix") {
  CHECK(Case({{5, 1}}, {15}).injective({3, 5}));
  CHECK_FALSE(Case({{4, 1}}, {15}).injective({3, 5})); // 4*1 + 0 == 4*0 + 4
  CHECK_FALSE(Case({{2, 3}}, {20}).injective({4, 4}));  // 2*3 + 3*0 == 2*0 + 3*2
}

TEST_CASE("coefficient growth never turns into a claim of injectivity") {
  // Five components over six dimensions of size 2: rank at most 5 < 6, so
  // two indices write one cell.  Fraction-free elimination of these small
  // coefficients passed 2^100 and used to report full rank.
  const std::vector<std::vector<int64_t>> small = {{6, 7, 16, 11, 15, 0},
                                                    {27, 12, 11, 7, 1, 0},
                                                    {2, 16, 6, 17, 3, 0},
                                                    {1, 19, 11, 17, 1, 0},
                                                    {14, 31, 8, 5, 2, 0}};
  CHECK_FALSE(Case(small, {200, 200, 200, 200, 200}).injective({2, 2, 2, 2, 2, 2}));
  // The same five live dimensions without the sixth: full rank, injective.
  std::vector<std::vector<int64_t>> square = small;
  for (auto &row : square) row.pop_back();
  CHECK(Case(square, {200, 200, 200, 200, 200}).injective({2, 2, 2, 2, 2}));
  // Huge coefficients, rank 2 over 3 live dimensions.
  const int64_t big = int64_t(1) << 34;
  CHECK_FALSE(Case({{big, 1, 0}, {1, big, 0}}, {int64_t(1) << 40, int64_t(1) << 40}).injective({1 << 6, 1 << 6, 2}));
  CHECK(Case({{big, 1}, {1, big}}, {int64_t(1) << 40, int64_t(1) << 40}).injective({1 << 6, 1 << 6}));
}
