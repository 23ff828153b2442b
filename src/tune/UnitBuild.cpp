/** \file
 * Compiling candidates as a few translation units (see UnitBuild.h).
 */
#include "tune/UnitBuild.h"

#include "tune/Interrupt.h"

#include <algorithm>

namespace mdh::tune {

std::vector<CompileCache::Entry> buildInUnits(CompileCache &cache, const std::vector<CandidateSource> &candidates,
                                              const std::string &flags, int jobs, double compileTimeout) {
  std::vector<CompileCache::Entry> out(candidates.size());
  if (candidates.empty()) return out;
  jobs = std::max(1, jobs);
  auto unit = [&](const std::vector<size_t> &members) {
    std::string src = candidates[members[0]].common;
    for (size_t i : members) src += candidates[i].part;
    return src;
  };
  const size_t units = std::min(candidates.size(), size_t(jobs));
  std::vector<std::vector<size_t>> groups(units);
  for (size_t i = 0; i < candidates.size(); ++i) groups[i * units / candidates.size()].push_back(i);
  std::vector<std::string> sources;
  for (const auto &g : groups) sources.push_back(unit(g));
  auto built = cache.build(sources, flags, jobs, compileTimeout);
  std::vector<size_t> retry;
  for (size_t g = 0; g < groups.size(); ++g) {
    if (built[g].error.empty() || groups[g].size() == 1 || built[g].timedOut || interruptRequested()) {
      for (size_t i : groups[g]) out[i] = built[g];
    } else {
      for (size_t i : groups[g]) retry.push_back(i);
    }
  }
  if (!retry.empty()) {
    std::vector<std::string> single;
    for (size_t i : retry) single.push_back(unit({i}));
    auto again = cache.build(single, flags, jobs, compileTimeout);
    for (size_t k = 0; k < retry.size(); ++k) out[retry[k]] = again[k];
  }
  return out;
}

} // namespace mdh::tune
