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
  // Candidates of failed units, compiled one by one: those of units the compiler rejected
  // with the full timeout, those of units stopped by the timeout with their share of it (the
  // timeout over the largest such unit's size; units differ in size by one at most).
  std::vector<size_t> retry, retryTimedOut;
  size_t largestTimedOut = 1;
  for (size_t g = 0; g < groups.size(); ++g) {
    if (built[g].error.empty() || groups[g].size() == 1 || interruptRequested()) {
      for (size_t i : groups[g]) out[i] = built[g];
    } else {
      for (size_t i : groups[g]) (built[g].timedOut ? retryTimedOut : retry).push_back(i);
      if (built[g].timedOut) largestTimedOut = std::max(largestTimedOut, groups[g].size());
    }
  }
  auto buildSingly = [&](const std::vector<size_t> &members, double timeout) {
    if (members.empty()) return;
    std::vector<std::string> single;
    for (size_t i : members) single.push_back(unit({i}));
    auto again = cache.build(single, flags, jobs, timeout);
    for (size_t k = 0; k < members.size(); ++k) out[members[k]] = again[k];
  };
  buildSingly(retry, compileTimeout);
  buildSingly(retryTimedOut, compileTimeout > 0 ? compileTimeout / double(largestTimedOut) : 0);
  return out;
}

} // namespace mdh::tune
