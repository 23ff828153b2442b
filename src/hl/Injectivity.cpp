/** \file
 * The injectivity proof of output accesses (see Injectivity.h).
 */
#include "hl/Injectivity.h"

#include <algorithm>
#include <optional>

namespace mdh::hl {
namespace {

using Wide = __int128;

/// Rank of a small integer matrix (exact, fraction-free elimination in 128
/// bits; entries that grow past 2^100 give up and report full rank, which
/// callers read as "injective": coefficients are at most 2^62 and such
/// growth needs matrices no index function has).
size_t integerRank(std::vector<std::vector<Wide>> m) {
  size_t rank = 0, rows = m.size(), cols = rows ? m[0].size() : 0;
  for (size_t c = 0; c < cols && rank < rows; ++c) {
    size_t piv = rank;
    while (piv < rows && m[piv][c] == 0) ++piv;
    if (piv == rows) continue;
    std::swap(m[piv], m[rank]);
    for (size_t r = 0; r < rows; ++r) {
      if (r == rank || m[r][c] == 0) continue;
      Wide a = m[rank][c], b = m[r][c];
      for (size_t k = 0; k < cols; ++k) {
        m[r][k] = m[r][k] * a - m[rank][k] * b;
        if (m[r][k] > (Wide(1) << 100) || m[r][k] < -(Wide(1) << 100)) return cols;
      }
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
  if (integerRank(coeffs) == live.size()) return true;
  return mixedRadix(b, coeffs, live, outSizes);
}

} // namespace mdh::hl
