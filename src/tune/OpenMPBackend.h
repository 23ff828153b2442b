/** \file
 * The OpenMP measurement backend: a batch of configurations is emitted by
 * codegen::emitOpenMP into a few translation units (one per compile job,
 * several candidates each, sharing the common prologue), compiled
 * concurrently through the CompileCache, and each candidate is timed in a
 * forked child that dlopens the library — the tuner process itself never
 * loads generated code or starts the OpenMP runtime.
 */
#pragma once

#include "tune/CandidateBackend.h"
#include "tune/CompileCache.h"

namespace mdh::tune {

class OpenMPBackend : public CandidateBackend {
public:
  /// `jobs`: concurrent compiler processes (and translation units per batch).
  OpenMPBackend(CompileCache &cache, int jobs) : cache_(cache), jobs_(jobs < 1 ? 1 : jobs) {}
  std::string name() const override { return "openmp"; }
  ll::AsmModel model() const override;
  std::string toolchain() const override { return cache_.compilerId(); }
  std::string emittedSource(const hl::Program &p, const ll::Config &c) const override;
  std::vector<BuiltCandidate> build(const hl::Program &p, const std::vector<ll::Config> &configs) override;
  RunResult run(const BuiltCandidate &c, const RunRequest &req) override;

private:
  CompileCache &cache_;
  int jobs_;
};

} // namespace mdh::tune
