/** \file
 * The CUDA measurement backend (see CudaBackend.h).
 */
#include "tune/CudaBackend.h"

#include "codegen/GpuEmitters.h"
#include "ll/Lowering.h"
#include "tune/ChildProcess.h"
#include "tune/EntryRunner.h"
#include "tune/SearchSpace.h"
#include "tune/UnitBuild.h"

#include <chrono>
#include <fmt/format.h>
#include <sstream>

namespace mdh::tune {
namespace {

using Clock = std::chrono::steady_clock;

} // namespace

CudaBackend::CudaBackend(CompileCache &cache, int jobs) : cache_(cache), jobs_(jobs < 1 ? 1 : jobs) {
  model_ = ll::cudaModel(80);
  // The query runs in a child: the tuner process must not create a CUDA context before forking.
  ChildOutcome q = runInChild(60, [](int fd) {
    std::string err;
    auto d = runtime::queryCudaDevice(err);
    std::string text = d ? fmt::format("OK\n{}\n{}\n{}\n{}\n{}\n", d->major, d->minor, d->sharedBytesPerBlock,
                                       d->maxThreadsPerBlock, d->name)
                         : "NO\n" + err + "\n";
    writeAllOrExit(fd, text.data(), text.size());
  });
  std::istringstream in(q.output);
  std::string tag;
  std::getline(in, tag);
  if (tag != "OK") {
    std::getline(in, unavailable_);
    if (unavailable_.empty()) unavailable_ = "the CUDA device query " + q.describe();
    return;
  }
  runtime::CudaDeviceInfo d;
  in >> d.major >> d.minor >> d.sharedBytesPerBlock >> d.maxThreadsPerBlock;
  in.ignore(1);
  std::getline(in, d.name);
  if (!in || d.major <= 0) {
    unavailable_ = "the CUDA device query gave an unreadable answer";
    return;
  }
  useDevice(d);
}

CudaBackend::CudaBackend(CompileCache &cache, int jobs, const runtime::CudaDeviceInfo &device)
    : cache_(cache), jobs_(jobs < 1 ? 1 : jobs) {
  useDevice(device);
}

void CudaBackend::useDevice(const runtime::CudaDeviceInfo &d) {
  model_ = runtime::cudaModelForDevice(d);
  archFlag_ = runtime::cudaArchFlag(d);
  device_ = fmt::format("{} (sm_{}{})", d.name, d.major, d.minor);
  if (cache_.compilerMissing())
    unavailable_ = runtime::cudaCompilerMissing();
}

std::string CudaBackend::emittedSource(const hl::Program &p, const ll::Config &c) const {
  try {
    return codegen::emitCuda(ll::lower(p, c), "mdh_source").source;
  } catch (const std::exception &) {
    return "";
  }
}

std::vector<BuiltCandidate> CudaBackend::build(const hl::Program &p, const std::vector<ll::Config> &configs) {
  auto t0 = Clock::now();
  std::vector<BuiltCandidate> out(configs.size());
  if (configs.empty()) return out;
  if (!unavailable_.empty()) {
    for (auto &b : out) b.error = unavailable_;
    return out;
  }
  std::vector<CandidateSource> sources(configs.size());
  std::string flags;
  for (size_t i = 0; i < configs.size(); ++i) {
    // Names follow from the configuration, so equal batches give equal sources (cache hits).
    out[i].symbol = "mdh_t" + configHash(configs[i]).substr(0, 20);
    try {
      ll::Lowered l = ll::lower(p, configs[i]);
      codegen::EmittedKernel k = codegen::emitCuda({codegen::GpuUnit{&l, out[i].symbol}}, true);
      sources[i] = {k.common, k.kernel};
      flags = k.flags + " " + archFlag_;
    } catch (const std::exception &e) {
      out[i].error = std::string("emitting CUDA failed: ") + e.what();
    }
  }
  std::vector<size_t> emitted;
  std::vector<CandidateSource> toBuild;
  for (size_t i = 0; i < configs.size(); ++i)
    if (out[i].error.empty()) emitted.push_back(i), toBuild.push_back(sources[i]);
  auto built = buildInUnits(cache_, toBuild, flags, jobs_, compileTimeout_);
  for (size_t k = 0; k < emitted.size(); ++k) {
    out[emitted[k]].library = built[k].library;
    out[emitted[k]].error = built[k].error;
  }
  double share = std::chrono::duration<double>(Clock::now() - t0).count() / double(configs.size());
  for (auto &b : out) b.buildSeconds = share;
  return out;
}

RunResult CudaBackend::run(const BuiltCandidate &c, const RunRequest &req) {
  EntryRunOptions o;
  o.selfTimed = true;
  o.statusName = "CUDA status";
  o.extraSeconds = kStartAllowanceSeconds;
  return runGenericEntry(c, req, o);
}

} // namespace mdh::tune
