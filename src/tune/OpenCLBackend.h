/** \file
 * The OpenCL measurement backend (tunes OpenCL kernels, on PoCL here).
 *
 * A batch of configurations becomes ONE host source with ONE embedded
 * OpenCL program (codegen::emitOpenCL over the batch, entries named by the
 * configuration hash), compiled through the CompileCache; each candidate is
 * timed in a forked child through its generic entry `<name>_run` (host
 * pointers: the time includes the copies to and from the device buffers,
 * which on PoCL's CPU device are memcpy; warm-up, then the median).  The
 * OpenCL program is built at run time in each child (PoCL caches built
 * programs on disk), so a child gets `kBuildAllowanceSeconds` on top of the
 * request's limit.  A non-zero status of the entry fails the candidate;
 * when a batch's program fails to build, its candidates are rebuilt and
 * measured alone, so one bad kernel does not fail its neighbours.
 *
 * Invariants: the tuner process never calls OpenCL (the device is queried
 * in a child too — an OpenCL runtime's threads do not survive fork()); the
 * model carries the device's local memory and work-group limits, so every
 * candidate the search space proposes validates for this device; the
 * toolchain string names the device, so the tuning database's machine
 * signature does.
 */
#pragma once

#include "tune/CandidateBackend.h"
#include "tune/CompileCache.h"

#include <map>
#include <memory>

namespace mdh::tune {

class OpenCLBackend : public CandidateBackend {
public:
  /// Queries the default OpenCL device (MDH_OPENCL_DEVICE, else the first GPU, else the first device) in a child.
  OpenCLBackend(CompileCache &cache, int jobs);
  /// Empty when a device answered; else why not (e.g. no OpenCL platform).
  const std::string &unavailable() const { return unavailable_; }
  const std::string &deviceName() const { return device_; }

  std::string name() const override { return "opencl"; }
  ll::AsmModel model() const override { return model_; }
  std::string toolchain() const override { return cache_.compilerId() + " | OpenCL device: " + device_; }
  std::string emittedSource(const hl::Program &p, const ll::Config &c) const override;
  std::vector<BuiltCandidate> build(const hl::Program &p, const std::vector<ll::Config> &configs) override;
  RunResult run(const BuiltCandidate &c, const RunRequest &req) override;

  static constexpr double kBuildAllowanceSeconds = 60;

private:
  /// One host library for `configs` (one OpenCL program); entries named by configuration hash.
  std::vector<BuiltCandidate> buildUnit(const hl::Program &p, const std::vector<ll::Config> &configs);

  CompileCache &cache_;
  int jobs_;
  ll::AsmModel model_;
  std::string device_, unavailable_;
  uint64_t maxGroup_ = 256;
  /// Candidates built in a batch of several: symbol -> (program, configuration), to rebuild alone.
  std::map<std::string, std::pair<const hl::Program *, ll::Config>> batched_;
};

} // namespace mdh::tune
