/** \file
 * The default's variants for run-time sizes (RunTimeVariants.h).
 */
#include "ll/RunTimeVariants.h"

#include "ll/GpuConfig.h"

namespace mdh::ll {

RunTimeVariants runTimeVariants(const hl::Program &p, const AsmModel &m, const Config &planned) {
  RunTimeVariants v;
  v.rule = vectorDimensionRule(p);
  v.configs.push_back(planned);
  if (p.dynamicSizes.empty() || isGpuModel(m)) return v;
  const std::vector<int64_t> known = concreteSizes(p);
  for (int d : vectorDimensionCandidates(v.rule)) {
    // A dimension whose size is known to be 1 scores nothing, whatever the run-time sizes.
    if (d == planned.simdDim || (known[size_t(d)] > 0 && known[size_t(d)] <= 1)) continue;
    Config c = defaultConfig(p, m, planned.threads, d);
    c.strictFp = planned.strictFp;
    if (c.simdDim == d && validate(c, p, m).empty()) v.configs.push_back(c);
  }
  return v;
}

} // namespace mdh::ll
