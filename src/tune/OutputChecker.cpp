/** \file
 * The output checker.
 */
#include "tune/OutputChecker.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fmt/format.h>
#include <random>
#include <numeric>
#include <set>

namespace mdh::tune {
namespace {

double readFloat(const Type &t, const uint8_t *p) {
  if (t.kind == Type::Kind::F32) {
    float f;
    std::memcpy(&f, p, 4);
    return f;
  }
  double d;
  std::memcpy(&d, p, 8);
  return d;
}

} // namespace

OutputChecker::OutputChecker(const hl::Program &p, const data::BufferSet &inputs, uint64_t seed, int cells) : prog_(p) {
  std::mt19937_64 rng(seed ^ 0xc0ffee);
  std::vector<interp::CellRef> refs;
  std::vector<std::pair<size_t, size_t>> where;
  size_t total = 0;
  for (const auto &b : p.outputs) {
    std::vector<int64_t> shape;
    size_t n = 1;
    for (const auto &s : b.shape) {
      shape.push_back(s.constantValue().value_or(1));
      n *= size_t(shape.back());
    }
    shapes_.push_back(shape);
    total += n;
  }
  for (size_t bi = 0; bi < p.outputs.size(); ++bi) {
    size_t n = 1;
    for (auto s : shapes_[bi]) n *= size_t(s);
    size_t want = std::max<size_t>(16, size_t(std::ceil(double(cells) * double(n) / double(std::max<size_t>(total, 1)))));
    std::set<size_t> picked;
    if (n <= want) {
      for (size_t q = 0; q < n; ++q) picked.insert(q);
    } else {
      while (picked.size() < want) picked.insert(std::uniform_int_distribution<size_t>(0, n - 1)(rng));
    }
    for (size_t q : picked) {
      interp::CellRef ref{p.outputs[bi].name, std::vector<int64_t>(shapes_[bi].size(), 0)};
      size_t rem = q;
      for (size_t k = shapes_[bi].size(); k-- > 0;) {
        ref.index[k] = int64_t(rem % size_t(shapes_[bi][k]));
        rem /= size_t(shapes_[bi][k]);
      }
      refs.push_back(ref);
      where.push_back({bi, q});
    }
  }
  // A cell's high-precision value costs one application of f per element it
  // folds: every element of a point-wise dimension, and up to the cell's own
  // index along a prefix-sum dimension (a 2^24 scan: 8M per cell on average).
  // Past a budget, the cheapest sampled cells are kept; the full comparison
  // with the default configuration still covers every cell.
  constexpr double kBudget = 2e7;
  std::vector<double> cost(refs.size(), 1);
  double totalCost = 0;
  for (size_t i = 0; i < refs.size(); ++i) {
    for (size_t d = 0; d < p.dims(); ++d) {
      const auto &op = p.ops[d];
      double n = double(p.sizes[d].constantValue().value_or(1));
      if (op.kind == hl::CombineOperator::Kind::PointWise) cost[i] *= n;
      if (op.kind == hl::CombineOperator::Kind::PrefixSum) {
        // The cell's index along d: through the output view's access of d.
        double idx = n;
        const auto &acc = p.outputs[where[i].first].accesses[0];
        for (size_t k = 0; k < acc.dims.size(); ++k)
          if (acc.dims[k].coeff(d) != 0) idx = double(refs[i].index[k]) + 1;
        cost[i] *= idx;
      }
    }
    totalCost += cost[i];
  }
  if (totalCost > kBudget && refs.size() > 16) {
    std::vector<size_t> byCost(refs.size());
    std::iota(byCost.begin(), byCost.end(), size_t(0));
    std::stable_sort(byCost.begin(), byCost.end(), [&](size_t a, size_t b) { return cost[a] < cost[b]; });
    std::vector<interp::CellRef> keptRefs;
    std::vector<std::pair<size_t, size_t>> keptWhere;
    double spent = 0;
    for (size_t i : byCost) {
      if (keptRefs.size() >= 16 && spent + cost[i] > kBudget) break;
      spent += cost[i];
      keptRefs.push_back(refs[i]);
      keptWhere.push_back(where[i]);
    }
    note_ = fmt::format("the high-precision check covers the {} cheapest of {} sampled cells ({:.0f} of {:.0f} "
                        "element evaluations); every cell is still compared with the default configuration",
                        keptRefs.size(), refs.size(), spent, totalCost);
    refs = std::move(keptRefs);
    where = std::move(keptWhere);
  }
  floatTolerance_.assign(p.outputs.size(), 0);
  try {
    interp::EvalOptions eo;
    eo.allowUndefined = true;
    auto precise = interp::evaluatePrecise(p, inputs, refs, eo);
    for (size_t i = 0; i < precise.size() && i < where.size(); ++i) {
      cells_.push_back({where[i].first, where[i].second, precise[i]});
      for (const auto &leaf : precise[i].leaves)
        if (leaf.isFloat && std::isfinite(leaf.errorBound))
          floatTolerance_[where[i].first] = std::max(floatTolerance_[where[i].first], 8 * leaf.errorBound);
    }
  } catch (const std::exception &e) {
    note_ = fmt::format("the high-precision reference could not be computed ({}); outputs are compared with the "
                        "default configuration's only", e.what());
  }
}

std::string OutputChecker::cellName(size_t buffer, size_t linear) const {
  std::vector<int64_t> idx(shapes_[buffer].size(), 0);
  size_t rem = linear;
  for (size_t k = idx.size(); k-- > 0;) {
    idx[k] = int64_t(rem % size_t(shapes_[buffer][k]));
    rem /= size_t(shapes_[buffer][k]);
  }
  return fmt::format("{}[{}]", prog_.outputs[buffer].name, fmt::join(idx, ", "));
}

std::string OutputChecker::checkPrecise(const Outputs &outs) const {
  for (const auto &s : cells_) {
    if (!s.cell.defined || s.cell.leaves.size() != 1 || !s.cell.leaves[0].path.empty()) continue; // records: compared in full only
    const Type &t = prog_.outputs[s.buffer].elem;
    if (s.buffer >= outs.size() || outs[s.buffer].size() < (s.linear + 1) * t.size()) return "an output buffer is too short";
    const uint8_t *p = outs[s.buffer].data() + s.linear * t.size();
    const auto &leaf = s.cell.leaves[0];
    if (t.isFloat()) {
      double v = readFloat(t, p);
      if (!leaf.accepts(v))
        return fmt::format("{} = {} is outside the high-precision bound: reference {} ± {:.3g}", cellName(s.buffer, s.linear), v,
                           leaf.text, leaf.errorBound);
    } else {
      uint64_t got = 0, mask = t.size() >= 8 ? ~0ull : ((1ull << (8 * t.size())) - 1);
      std::memcpy(&got, p, std::min<size_t>(t.size(), 8));
      if ((got & mask) != (leaf.intBits & mask))
        return fmt::format("{} has bits {:#x}, the exact reference is {}", cellName(s.buffer, s.linear), got & mask, leaf.text);
    }
  }
  return "";
}

std::string OutputChecker::check(const Outputs &outs) const {
  for (size_t b = 0; b < reference_.size() && b < prog_.outputs.size(); ++b) {
    const Type &t = prog_.outputs[b].elem;
    if (b >= outs.size() || outs[b].size() != reference_[b].size()) return "an output buffer has the wrong size";
    if (outs[b] == reference_[b]) continue;
    size_t n = t.size(), count = outs[b].size() / n;
    for (size_t q = 0; q < count; ++q) {
      const uint8_t *x = outs[b].data() + q * n, *y = reference_[b].data() + q * n;
      if (std::memcmp(x, y, n) == 0) continue;
      if (!t.isFloat())
        return fmt::format("{} differs from the default configuration's result (bit-exact comparison of {} outputs)",
                           cellName(b, q), t.str());
      double u = readFloat(t, x), v = readFloat(t, y);
      if (std::isnan(u) && std::isnan(v)) continue;
      if (std::isfinite(u) && std::isfinite(v) && std::fabs(u - v) <= floatTolerance_[b]) continue;
      return fmt::format("{} = {} but the default configuration computes {}; they differ by more than the bound {:.3g} "
                         "(8 × the largest high-precision error bound of the sampled cells)",
                         cellName(b, q), u, v, floatTolerance_[b]);
    }
  }
  return checkPrecise(outs);
}

void OutputChecker::corruptForTest(Outputs &outs) const {
  if (outs.empty() || outs[0].empty() || prog_.outputs.empty()) return;
  const Type &t = prog_.outputs[0].elem;
  uint8_t *p = outs[0].data();
  if (t.kind == Type::Kind::F32) {
    float f;
    std::memcpy(&f, p, 4);
    f = f * 2 + 1;
    std::memcpy(p, &f, 4);
  } else if (t.kind == Type::Kind::F64) {
    double d;
    std::memcpy(&d, p, 8);
    d = d * 2 + 1;
    std::memcpy(p, &d, 8);
  } else {
    p[0] ^= 1;
  }
}

} // namespace mdh::tune
