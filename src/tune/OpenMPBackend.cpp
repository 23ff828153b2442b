/** \file
 * The OpenMP measurement backend.
 */
#include "tune/OpenMPBackend.h"

#include "codegen/OpenMPEmitter.h"
#include "ll/Lowering.h"
#include "tune/EntryRunner.h"
#include "tune/Interrupt.h"
#include "tune/SearchSpace.h"

#include <algorithm>
#include <chrono>
#include <fmt/format.h>

namespace mdh::tune {
namespace {

using Clock = std::chrono::steady_clock;

} // namespace

ll::AsmModel OpenMPBackend::model() const { return ll::openmpModel(); }

std::string OpenMPBackend::emittedSource(const hl::Program &p, const ll::Config &c) const {
  return codegen::emitOpenMP(ll::lower(p, c), "mdh_source").source;
}

std::vector<BuiltCandidate> OpenMPBackend::build(const hl::Program &p, const std::vector<ll::Config> &configs) {
  auto t0 = Clock::now();
  std::vector<BuiltCandidate> out(configs.size());
  std::vector<codegen::EmittedKernel> kernels;
  for (size_t i = 0; i < configs.size(); ++i) {
    // Names follow from the configuration, so equal batches give equal sources (cache hits).
    kernels.push_back(codegen::emitOpenMP(ll::lower(p, configs[i]), "mdh_t" + configHash(configs[i]).substr(0, 20)));
    out[i].symbol = kernels.back().name;
  }
  if (configs.empty()) return out;
  std::string flags = kernels[0].flags;
  auto unit = [&](const std::vector<size_t> &members) {
    std::string src = kernels[members[0]].common;
    for (size_t i : members) src += kernels[i].kernel;
    return src;
  };
  // One translation unit per compile job; a unit that fails is split into
  // single candidates so that one bad candidate does not fail its neighbours.
  size_t jobs = std::min(configs.size(), size_t(jobs_));
  std::vector<std::vector<size_t>> groups(jobs);
  for (size_t i = 0; i < configs.size(); ++i) groups[i * jobs / configs.size()].push_back(i);
  std::vector<std::string> sources;
  for (const auto &g : groups) sources.push_back(unit(g));
  auto built = cache_.build(sources, flags, jobs_, compileTimeout_);
  std::vector<std::vector<size_t>> retry;
  for (size_t g = 0; g < groups.size(); ++g) {
    // A unit stopped by the compile timeout is not retried candidate by
    // candidate: the runaway one would take the whole timeout again.
    // Nor one stopped by Ctrl-C: a compiler per candidate would delay the exit by
    // up to a compile timeout each (25 s measured).
    if (built[g].error.empty() || groups[g].size() == 1 || built[g].timedOut || interruptRequested()) {
      for (size_t i : groups[g]) {
        out[i].library = built[g].library;
        out[i].error = built[g].error;
      }
    } else {
      for (size_t i : groups[g]) retry.push_back({i});
    }
  }
  if (!retry.empty()) {
    std::vector<std::string> single;
    for (const auto &r : retry) single.push_back(unit(r));
    auto again = cache_.build(single, flags, jobs_, compileTimeout_);
    for (size_t k = 0; k < retry.size(); ++k) {
      out[retry[k][0]].library = again[k].library;
      out[retry[k][0]].error = again[k].error;
    }
  }
  double share = std::chrono::duration<double>(Clock::now() - t0).count() / double(configs.size());
  for (auto &b : out) b.buildSeconds = share;
  return out;
}

RunResult OpenMPBackend::run(const BuiltCandidate &c, const RunRequest &req) { return runGenericEntry(c, req); }

} // namespace mdh::tune
