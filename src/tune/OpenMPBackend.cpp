/** \file
 * The OpenMP measurement backend.
 */
#include "tune/OpenMPBackend.h"

#include "codegen/OpenMPEmitter.h"
#include "ll/Lowering.h"
#include "tune/EntryRunner.h"
#include "tune/SearchSpace.h"
#include "tune/UnitBuild.h"

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
  std::vector<CandidateSource> sources;
  for (const auto &k : kernels) sources.push_back({k.common, k.kernel});
  auto built = buildInUnits(cache_, sources, kernels[0].flags, jobs_, compileTimeout_);
  for (size_t i = 0; i < configs.size(); ++i) {
    out[i].library = built[i].library;
    out[i].error = built[i].error;
  }
  double share = std::chrono::duration<double>(Clock::now() - t0).count() / double(configs.size());
  for (auto &b : out) b.buildSeconds = share;
  return out;
}

RunResult OpenMPBackend::run(const BuiltCandidate &c, const RunRequest &req) { return runGenericEntry(c, req); }

} // namespace mdh::tune
