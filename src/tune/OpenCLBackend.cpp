/** \file
 * The OpenCL measurement backend (see OpenCLBackend.h).
 */
#include "tune/OpenCLBackend.h"

#include "codegen/GpuEmitters.h"
#include "ll/Lowering.h"
#include "runtime/OpenCLDevice.h"
#include "tune/ChildProcess.h"
#include "tune/EntryRunner.h"
#include "tune/SearchSpace.h"

#include <chrono>
#include <fmt/format.h>
#include <sstream>

namespace mdh::tune {
namespace {

using Clock = std::chrono::steady_clock;

} // namespace

OpenCLBackend::OpenCLBackend(CompileCache &cache, int jobs) : cache_(cache), jobs_(jobs < 1 ? 1 : jobs) {
  // The query runs in a child: the tuner process must not start the OpenCL runtime before forking.
  ChildOutcome q = runInChild(60, [](int fd) {
    std::string err;
    auto d = runtime::queryOpenCLDevice(err);
    std::string text = d ? fmt::format("OK\n{}\n{}\n{}\n{}\n", d->localMemBytes, d->maxWorkGroupSize, int(d->cpu), d->name)
                         : "NO\n" + err + "\n";
    writeAllOrExit(fd, text.data(), text.size());
  });
  std::istringstream in(q.output);
  std::string tag, line;
  std::getline(in, tag);
  if (tag == "OK") {
    uint64_t lm = 0, wg = 0;
    std::getline(in, line);
    lm = std::stoull(line);
    std::getline(in, line);
    wg = std::stoull(line);
    std::getline(in, line);
    const bool cpu = line == "1";
    std::getline(in, device_);
    maxGroup_ = wg ? wg : 256;
    model_ = ll::openclModel(lm, wg, cpu);
  } else {
    std::getline(in, unavailable_);
    if (unavailable_.empty()) unavailable_ = "the OpenCL device query " + q.describe();
    model_ = ll::openclModel(64 * 1024, 256);
    device_ = "none";
  }
}

std::string OpenCLBackend::emittedSource(const hl::Program &p, const ll::Config &c) const {
  try {
    ll::Lowered l = ll::lower(p, c);
    return codegen::emitOpenCL({{&l, "mdh_source"}}, int64_t(maxGroup_)).source;
  } catch (const std::exception &) {
    return "";
  }
}

std::vector<BuiltCandidate> OpenCLBackend::buildUnit(const hl::Program &p, const std::vector<ll::Config> &configs) {
  std::vector<BuiltCandidate> out(configs.size());
  std::vector<ll::Lowered> lowered;
  lowered.reserve(configs.size());
  std::vector<codegen::GpuUnit> units;
  for (size_t i = 0; i < configs.size(); ++i) {
    lowered.push_back(ll::lower(p, configs[i]));
    out[i].symbol = "mdh_t" + configHash(configs[i]).substr(0, 20);
  }
  for (size_t i = 0; i < configs.size(); ++i) units.push_back({&lowered[i], out[i].symbol});
  std::string error;
  codegen::EmittedKernel k;
  try {
    k = codegen::emitOpenCL(units, int64_t(maxGroup_));
  } catch (const std::exception &e) {
    error = std::string("emitting OpenCL failed: ") + e.what();
  }
  if (error.empty()) {
    auto built = cache_.build({k.source}, k.flags, 1, compileTimeout_);
    for (auto &b : out) {
      b.library = built[0].library;
      b.error = built[0].error;
    }
  } else {
    for (auto &b : out) b.error = error;
  }
  return out;
}

std::vector<BuiltCandidate> OpenCLBackend::build(const hl::Program &p, const std::vector<ll::Config> &configs) {
  auto t0 = Clock::now();
  if (configs.empty()) return {};
  std::vector<BuiltCandidate> out;
  if (!unavailable_.empty()) {
    out.resize(configs.size());
    for (auto &b : out) b.error = unavailable_;
    return out;
  }
  out = buildUnit(p, configs);
  // A host source that does not compile is split into single candidates.
  if (configs.size() > 1 && !out[0].error.empty())
    for (size_t i = 0; i < configs.size(); ++i) out[i] = buildUnit(p, {configs[i]})[0];
  for (size_t i = 0; i < configs.size() && configs.size() > 1; ++i)
    if (out[i].error.empty()) batched_[out[i].symbol] = {&p, configs[i]};
  double share = std::chrono::duration<double>(Clock::now() - t0).count() / double(configs.size());
  for (auto &b : out) b.buildSeconds = share;
  return out;
}

RunResult OpenCLBackend::run(const BuiltCandidate &c, const RunRequest &req) {
  EntryRunOptions o;
  o.checkStatus = true;
  o.statusName = "OpenCL status";
  o.extraSeconds = kBuildAllowanceSeconds;
  RunResult r = runGenericEntry(c, req, o);
  // The batch's OpenCL program did not build (CL_BUILD_PROGRAM_FAILURE = -11):
  // perhaps another candidate's kernel; measure this one from a program of its own.
  auto it = batched_.find(c.symbol);
  if (r.status == RunResult::Status::Failed && it != batched_.end() && r.message.find("OpenCL status -11") != std::string::npos) {
    auto alone = buildUnit(*it->second.first, {it->second.second});
    batched_.erase(it);
    return runGenericEntry(alone[0], req, o);
  }
  return r;
}

} // namespace mdh::tune
