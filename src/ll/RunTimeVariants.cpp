/** \file
 * The default's variants for run-time sizes (RunTimeVariants.h).
 */
#include "ll/RunTimeVariants.h"

#include "ll/GpuConfig.h"

namespace mdh::ll {

RunTimeVariants runTimeVariants(const hl::Program &p, const AsmModel &m, const Config &planned) {
  RunTimeVariants v;
  v.rule = vectorDimensionRule(p);
  v.streaming = streamingRule(p, m, planned.threads);
  v.configs.push_back(planned);
  if (p.dynamicSizes.empty() || isGpuModel(m)) return v;
  const std::vector<int64_t> known = concreteSizes(p);
  for (int d : vectorDimensionCandidates(v.rule)) {
    // A dimension whose size is known to be 1 scores nothing, whatever the run-time sizes.
    if (d == planned.simdDim || (known[size_t(d)] > 0 && known[size_t(d)] <= 1)) continue;
    Config c = defaultConfig(p, m, planned.threads, d);
    c.strictFp = planned.strictFp;
    c.prefetchSteps = planned.prefetchSteps;
    if (c.simdDim == d && validate(c, p, m).empty()) v.configs.push_back(c);
  }
  if (v.streaming.applies && !planned.streamStores) {
    const size_t plain = v.configs.size();
    for (size_t i = 0; i < plain; ++i) {
      Config c = v.configs[i];
      c.streamStores = true;
      // Rows written straight from f, as the default does for rows that may not start on a
      // cache line: the vector dimension's tiles span the core tile's row (4001 x 3001 with
      // run-time sizes, streamed through register tiles of 64 columns: 4.9 ms; whole rows 1.9).
      if (c.simdDim >= 0 && v.streaming.rowsFromF[size_t(c.simdDim)])
        for (size_t lv = 1; lv < c.levels.size(); ++lv)
          c.levels[lv].tile[size_t(c.simdDim)] = c.levels[lv - 1].tile[size_t(c.simdDim)];
      if (validate(c, p, m).empty()) v.configs.push_back(c);
    }
  }
  return v;
}

} // namespace mdh::ll
