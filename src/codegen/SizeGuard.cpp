/** \file
 * The run-time size check of generated host entries (see SizeGuard.h).
 */
#include "codegen/SizeGuard.h"

#include <fmt/format.h>

namespace mdh::codegen {

std::string runTimeSizeGuard(const hl::Program &p, const std::string &backend, const std::string &entry,
                             const std::string &onFailure) {
  std::string o;
  for (const auto &s : p.dynamicSizes)
    o += fmt::format("  if (sz_{0} < 1) {{ std::fprintf(stderr, \"mdh ({1}): {2}: run-time size {0} = %lld is below 1 "
                     "(MDH sizes are at least 1); nothing computed\\n\", (long long)sz_{0}); {3} }}\n",
                     s, backend, entry, onFailure);
  return o;
}

} // namespace mdh::codegen
