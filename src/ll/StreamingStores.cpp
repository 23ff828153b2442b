/** \file
 * The streaming-store rule (StreamingStores.h).
 */
#include "ll/StreamingStores.h"

#include "ll/Config.h"
#include "ll/Lowering.h"

namespace mdh::ll {

StreamingRule streamingRule(const hl::Program &p, const AsmModel &m, int threads) {
  StreamingRule r;
  bool scan = false;
  for (size_t d = 0; d < p.dims(); ++d) scan |= p.ops[d].kind == hl::CombineOperator::Kind::PrefixSum;
  if (streamedScanDim(p) >= 0) scan = false;
  r.applies = streamStoresApply(p) && !scan;
  r.cacheBytes = usableLastLevelCache(m, threads);
  for (size_t o = 0; o < p.outputs.size(); ++o)
    if (p.outputs[o].shape.size() > 1) r.rowOutputs.push_back({o, int64_t(p.outputs[o].elem.size())});
  r.rowsFromF.assign(p.dims(), false);
  const bool oneNumericAccess = p.f && p.f->result.isNumeric() && p.outputs.size() == 1 && p.outputs[0].accesses.size() == 1;
  for (size_t d = 0; d < p.dims() && oneNumericAccess; ++d) {
    r.rowsFromF[d] = contiguousAlong(p.outputs[0].accesses[0], int(d));
  }
  r.resultBytes = p.f ? int64_t(p.f->result.size()) : 0;
  r.minRowBytes = m.vectorBytes >= 64 ? kMinStreamedSegmentBytes : kMinStreamedRowBytesNarrow;
  return r;
}

bool rowsStartOnLines(const StreamingRule &rule, const std::vector<int64_t> &outputLastExtents) {
  for (const auto &[o, bytes] : rule.rowOutputs)
    if (outputLastExtents[o] <= 0 || (outputLastExtents[o] * bytes) % 64 != 0) return false;
  return true;
}

bool streams(const StreamingRule &rule, double footprintBytes, const std::vector<int64_t> &outputLastExtents,
             const std::vector<int64_t> &dimSizes, int simd) {
  if (!rule.applies || footprintBytes <= 0 || footprintBytes < double(rule.cacheBytes)) return false;
  const bool aligned = rowsStartOnLines(rule, outputLastExtents);
  const bool rowsFromF = simd >= 0 && rule.rowsFromF[size_t(simd)] && dimSizes[size_t(simd)] * rule.resultBytes >= rule.minRowBytes;
  return aligned || rowsFromF;
}

} // namespace mdh::ll
