/** \file
 * The injectivity proof of output accesses (see Injectivity.h).
 */
#include "hl/Injectivity.h"

#include <algorithm>
#include <cstdint>
#include <optional>

namespace mdh::hl {
namespace {

using Wide = __int128;

/// A lower bound on the rank of an integer matrix: its rank modulo the prime
/// p = 2^61 - 1.  Every minor that vanishes over Z vanishes modulo p, so the
/// rank modulo p is never larger than the rank over Q: full rank modulo p
/// proves full column rank (the answer "injective" stays sound), and the
/// arithmetic never overflows, whatever the entries.  Integer elimination
/// without division doubles the entries' bits with each step, which 128 bits
/// did not hold for five dimensions of small coefficients.
size_t rankModuloPrime(const std::vector<std::vector<Wide>> &matrix) {
  constexpr uint64_t kPrime = (uint64_t(1) << 61) - 1;
  using U = unsigned __int128;
  auto reduce = [](Wide x) { return uint64_t(((x % Wide(kPrime)) + Wide(kPrime)) % Wide(kPrime)); };
  auto mul = [](uint64_t a, uint64_t b) { return uint64_t((U(a) * b) % kPrime); };
  auto inverse = [&](uint64_t a) { // Fermat: a^(p-2)
    uint64_t result = 1, base = a;
    for (uint64_t e = kPrime - 2; e; e >>= 1, base = mul(base, base))
      if (e & 1) result = mul(result, base);
    return result;
  };
  std::vector<std::vector<uint64_t>> m;
  for (const auto &row : matrix) {
    m.emplace_back();
    for (Wide x : row) m.back().push_back(reduce(x));
  }
  size_t rank = 0, rows = m.size(), cols = rows ? m[0].size() : 0;
  for (size_t c = 0; c < cols && rank < rows; ++c) {
    size_t piv = rank;
    while (piv < rows && m[piv][c] == 0) ++piv;
    if (piv == rows) continue;
    std::swap(m[piv], m[rank]);
    const uint64_t inv = inverse(m[rank][c]);
    for (size_t r = 0; r < rows; ++r) {
      if (r == rank || m[r][c] == 0) continue;
      const uint64_t factor = mul(m[r][c], inv);
      for (size_t k = 0; k < cols; ++k) m[r][k] = (m[r][k] + kPrime - mul(factor, m[rank][k])) % kPrime;
    }
    ++rank;
  }
  return rank;
}

Wide magnitude(Wide x) { return x < 0 ? -x : x; }

/// The mixed-radix test on the row-major cell number of the access.
bool mixedRadix(const Buffer &b, const std::vector<std::vector<Wide>> &coeffs, const std::vector<size_t> &live,
                const std::vector<SizePoly> &outSizes) {
  // Bounds that keep every sum and product below 2^127: a stride is at most
  // 2^63 (a buffer has fewer cells), a coefficient below 2^63, and a weight
  // or span past 2^125 is no buffer's either (the answer is then false).
  constexpr Wide kStrideLimit = Wide(1) << 63, kLimit = Wide(1) << 125;
  // Row-major strides of the buffer's components (only the later extents count).
  std::vector<Wide> stride(coeffs.size(), 1);
  for (size_t k = coeffs.size(); k-- > 1;) {
    auto extent = k < b.shape.size() ? b.shape[k].constantValue() : std::nullopt;
    if (!extent || b.shape[k].overflowed() || *extent < 1) return false;
    stride[k - 1] = stride[k] * *extent;
    if (stride[k - 1] > kStrideLimit) return false;
  }
  struct Term {
    Wide weight;        ///< |L_d|
    std::optional<int64_t> size; ///< N_d
  };
  std::vector<Term> terms;
  for (size_t i = 0; i < live.size(); ++i) {
    Wide weight = 0;
    for (size_t k = 0; k < coeffs.size(); ++k) {
      weight += coeffs[k][i] * stride[k];
      if (magnitude(weight) > kLimit) return false;
    }
    if (weight == 0) return false; // the dimension does not move the cell
    terms.push_back({magnitude(weight), outSizes[live[i]].overflowed() ? std::nullopt : outSizes[live[i]].constantValue()});
  }
  std::sort(terms.begin(), terms.end(), [](const Term &x, const Term &y) { return x.weight < y.weight; });
  Wide span = 0; // the largest cell-number difference the smaller dimensions make
  for (size_t i = 0; i < terms.size(); ++i) {
    if (terms[i].weight <= span) return false;
    if (i + 1 == terms.size()) break; // the largest needs no size
    if (!terms[i].size || *terms[i].size < 1) return false;
    const Wide steps = *terms[i].size - 1;
    if (steps > 0 && terms[i].weight > kLimit / steps) return false;
    span += terms[i].weight * steps;
    if (span > kLimit) return false;
  }
  return true;
}

} // namespace

bool provablyInjective(const Buffer &b, const Access &a, const std::vector<SizePoly> &outSizes) {
  std::vector<size_t> live;
  for (size_t d = 0; d < outSizes.size(); ++d)
    if (outSizes[d] != SizePoly::constant(1)) live.push_back(d);
  if (live.empty()) return true; // one index: one write
  std::vector<std::vector<Wide>> coeffs; // per component, per live dimension
  for (const auto &ix : a.dims) {
    std::vector<Wide> row;
    for (size_t d : live) {
      if (d >= ix.coeffs.size()) { row.push_back(0); continue; }
      const auto c = ix.coeffs[d].constantValue();
      if (!c || ix.coeffs[d].overflowed()) return false;
      row.push_back(*c);
    }
    coeffs.push_back(row);
  }
  if (coeffs.empty()) return false; // a 0-D buffer written from several indices
  if (coeffs.size() >= live.size() && rankModuloPrime(coeffs) == live.size()) return true;
  return mixedRadix(b, coeffs, live, outSizes);
}

} // namespace mdh::hl
