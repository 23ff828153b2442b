/** \file
 * The vector-dimension rule (VectorDimension.h): built once per program,
 * evaluated at compile time here and at run time by the emitted dispatch.
 */
#include "ll/VectorDimension.h"

#include "hl/ResultRange.h"

#include <algorithm>

namespace mdh::ll {

namespace {

bool reads(const hl::Access &a, size_t d) {
  for (const auto &ix : a.dims)
    if (ix.coeff(d) != 0) return true;
  return false;
}

/// A unit coefficient in the last index (contiguousDim's test; ll::contiguousAlong also
/// requires the other components not to move).
bool unitInLastIndex(const hl::Access &a, size_t d) { return !a.dims.empty() && a.dims.back().coeff(d) == 1; }

} // namespace

VectorDimensionRule vectorDimensionRule(const hl::Program &p) {
  const size_t D = p.dims();
  VectorDimensionRule r;
  r.terms.resize(D);
  r.replaceable.resize(D);
  r.outputContiguous.resize(D);
  r.reuseDims.resize(D);
  size_t index = 0;
  for (const auto *list : {&p.inputs, &p.outputs})
    for (const auto &b : *list) {
      const double weight = list == &p.outputs ? 1.5 : 1.0;
      if (!b.shape.empty())
        for (const auto &a : b.accesses)
          for (size_t d = 0; d < D; ++d)
            if (unitInLastIndex(a, d)) r.terms[d].push_back({index, weight});
      ++index;
    }
  if (p.f && p.f->result.size() > 0) r.vectorLanes = std::max<int64_t>(1, 64 / int64_t(p.f->result.size()));
  for (size_t d = 0; d < D; ++d)
    r.replaceable[d] = p.ops[d].kind == hl::CombineOperator::Kind::PointWise && hl::narrowCounting(p, d, 1, 8).bytes == 0;
  for (size_t d = 0; d < D; ++d) {
    if (p.ops[d].kind != hl::CombineOperator::Kind::Concat) continue;
    bool outputContiguous = false;
    for (const auto &b : p.outputs)
      for (const auto &a : b.accesses) outputContiguous |= !b.shape.empty() && unitInLastIndex(a, d);
    r.outputContiguous[d] = outputContiguous;
    for (const auto &b : p.inputs) {
      bool readAcross = false, contiguous = true;
      for (const auto &a : b.accesses) {
        readAcross |= reads(a, d);
        contiguous = contiguous && unitInLastIndex(a, d);
      }
      if (!readAcross || contiguous) continue;
      std::vector<size_t> unread;
      for (size_t e = 0; e < D; ++e) {
        if (e == d || p.ops[e].kind != hl::CombineOperator::Kind::Concat) continue;
        bool readsE = false;
        for (const auto &a : b.accesses) readsE |= reads(a, e);
        if (!readsE) unread.push_back(e);
      }
      r.reuseDims[d].push_back(unread);
    }
  }
  return r;
}

int chooseVectorDimension(const VectorDimensionRule &rule, const std::vector<double> &bufferBytes,
                          const std::vector<int64_t> &dimSizes, bool runTime) {
  const size_t D = rule.terms.size();
  std::vector<double> score(D, 0);
  for (size_t d = 0; d < D; ++d)
    if (dimSizes[d] > 1)
      for (const auto &t : rule.terms[d]) score[d] += t.weight * bufferBytes[t.buffer];
  int best = -1;
  for (size_t d = 0; d < D; ++d)
    if (score[d] > 0 && (best < 0 || score[d] > score[size_t(best)])) best = int(d);
  if (best < 0 || !rule.replaceable[size_t(best)]) return best;
  const bool shortOfVector = runTime && dimSizes[size_t(best)] < rule.vectorLanes;
  auto preferable = [&](size_t d) {
    if (!rule.outputContiguous[d]) return false;
    if (shortOfVector) return true;
    for (const auto &unread : rule.reuseDims[d]) {
      int64_t reuse = 1;
      for (size_t e : unread) reuse = std::min<int64_t>(reuse * std::max<int64_t>(dimSizes[e], 1), VectorDimensionRule::kMinReuse);
      if (reuse < VectorDimensionRule::kMinReuse) return false;
    }
    return true;
  };
  int alternative = -1;
  for (size_t d = 0; d < D; ++d)
    if (score[d] > 0 && preferable(d) && (alternative < 0 || score[d] > score[size_t(alternative)])) alternative = int(d);
  if (alternative >= 0 && (shortOfVector || score[size_t(alternative)] >= VectorDimensionRule::kPreferableFraction * score[size_t(best)]))
    return alternative;
  return best;
}

int vectorDimension(const hl::Program &p, int64_t plannedRunTimeSize, bool runTime) {
  std::map<std::string, SizePoly> planned;
  for (const auto &s : p.dynamicSizes) planned[s] = SizePoly::constant(plannedRunTimeSize);
  auto value = [&](const SizePoly &x) { return x.substitute(planned).constantValue().value_or(plannedRunTimeSize); };
  std::vector<double> bytes;
  for (const auto *list : {&p.inputs, &p.outputs})
    for (const auto &b : *list) {
      double n = double(b.elem.size());
      for (const auto &s : b.shape) n *= double(value(s));
      bytes.push_back(n);
    }
  std::vector<int64_t> sizes;
  for (const auto &s : p.sizes) sizes.push_back(value(s));
  return chooseVectorDimension(vectorDimensionRule(p), bytes, sizes, runTime);
}

std::vector<int> vectorDimensionCandidates(const VectorDimensionRule &rule) {
  std::vector<int> out;
  for (size_t d = 0; d < rule.terms.size(); ++d)
    if (!rule.terms[d].empty()) out.push_back(int(d));
  return out;
}

} // namespace mdh::ll
