/** \file
 * Fixing run-time sizes of an instance (see FixedSizes.h).
 */
#include "hl/FixedSizes.h"

#include <algorithm>

namespace mdh::hl {

void fixRunTimeSizes(Program &p, const std::map<std::string, int64_t> &values) {
  std::map<std::string, SizePoly> fixed;
  for (const auto &[name, value] : values)
    if (std::find(p.dynamicSizes.begin(), p.dynamicSizes.end(), name) != p.dynamicSizes.end())
      fixed[name] = SizePoly::constant(value);
  if (fixed.empty()) return;
  auto fix = [&](SizePoly &s) { s = s.substitute(fixed); };
  for (auto &n : p.sizes) fix(n);
  for (auto *buffers : {&p.inputs, &p.outputs})
    for (auto &b : *buffers) {
      for (auto &e : b.shape) fix(e);
      for (auto &a : b.accesses)
        for (auto &ix : a.dims) {
          for (auto &c : ix.coeffs) fix(c);
          fix(ix.offset);
        }
    }
  p.dynamicSizes.erase(std::remove_if(p.dynamicSizes.begin(), p.dynamicSizes.end(),
                                      [&](const std::string &s) { return fixed.count(s) != 0; }),
                       p.dynamicSizes.end());
}

} // namespace mdh::hl
