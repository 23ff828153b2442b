/** \file
 * The OpenMP measurement backend.
 */
#include "tune/OpenMPBackend.h"

#include "codegen/OpenMPEmitter.h"
#include "ll/Lowering.h"
#include "tune/ChildProcess.h"
#include "tune/SearchSpace.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <dlfcn.h>
#include <fmt/format.h>

namespace mdh::tune {
namespace {

using Clock = std::chrono::steady_clock;
using Entry = int (*)(const int64_t *sizes, void *const *buffers);

/// One line of the child's report (newlines in messages become spaces).
void report(int fd, const std::string &tag, std::string text) {
  std::replace(text.begin(), text.end(), '\n', ' ');
  std::string line = tag + " " + text + "\n";
  writeAllOrExit(fd, line.data(), line.size());
}

} // namespace

ll::AsmModel OpenMPBackend::model() const { return ll::openmpModel(); }

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
  auto built = cache_.build(sources, flags, jobs_);
  std::vector<std::vector<size_t>> retry;
  for (size_t g = 0; g < groups.size(); ++g) {
    if (built[g].error.empty() || groups[g].size() == 1) {
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
    auto again = cache_.build(single, flags, jobs_);
    for (size_t k = 0; k < retry.size(); ++k) {
      out[retry[k][0]].library = again[k].library;
      out[retry[k][0]].error = again[k].error;
    }
  }
  double share = std::chrono::duration<double>(Clock::now() - t0).count() / double(configs.size());
  for (auto &b : out) b.buildSeconds = share;
  return out;
}

RunResult OpenMPBackend::run(const BuiltCandidate &c, const RunRequest &req) {
  RunResult res;
  if (!c.error.empty()) {
    res.message = c.error;
    return res;
  }
  ChildOutcome child = runInChild(req.timeoutSeconds, [&](int fd) {
    void *h = dlopen(c.library.c_str(), RTLD_NOW | RTLD_LOCAL);
    Entry fn = h ? reinterpret_cast<Entry>(dlsym(h, (c.symbol + "_run").c_str())) : nullptr;
    if (!fn) {
      report(fd, "E", fmt::format("cannot load `{}` from {}: {}", c.symbol, c.library, h ? "no such entry" : dlerror()));
      return;
    }
    Outputs outs;
    std::vector<void *> ptrs;
    for (const void *in : req.inputs) ptrs.push_back(const_cast<void *>(in));
    for (size_t n : req.outputBytes) outs.emplace_back(n, 0);
    for (auto &o : outs) ptrs.push_back(o.data());
    fn(nullptr, ptrs.data()); // warm-up; its outputs are checked
    if (req.check) {
      std::string bad = req.check(outs);
      if (!bad.empty()) {
        report(fd, "M", bad);
        return;
      }
    }
    std::vector<double> times;
    for (int r = 0; r < std::max(1, req.repetitions); ++r) {
      auto t0 = Clock::now();
      fn(nullptr, ptrs.data());
      double t = std::chrono::duration<double>(Clock::now() - t0).count();
      report(fd, "T", fmt::format("{:.9e}", t));
      if (req.hopelessSeconds > 0 && r >= 1 && t > req.hopelessSeconds) break;
    }
    if (req.returnOutputs) {
      report(fd, "O", "");
      for (const auto &o : outs) writeAllOrExit(fd, o.data(), o.size());
    }
  });
  // Parse the report: tagged lines, then (after "O") the raw outputs.
  const std::string &buf = child.output;
  size_t pos = 0;
  bool sawOutputs = false;
  while (pos < buf.size()) {
    size_t nl = buf.find('\n', pos);
    if (nl == std::string::npos) break;
    std::string line = buf.substr(pos, nl - pos);
    pos = nl + 1;
    std::string tag = line.substr(0, 1), text = line.size() > 2 ? line.substr(2) : "";
    if (tag == "T") res.times.push_back(std::strtod(text.c_str(), nullptr));
    else if (tag == "E") res.message = text;
    else if (tag == "M") {
      res.status = RunResult::Status::Mismatch;
      res.message = text;
    } else if (tag == "O") {
      sawOutputs = true;
      break;
    }
  }
  if (res.status == RunResult::Status::Mismatch) return res;
  if (child.kind == ChildOutcome::Kind::Interrupted) {
    res.status = RunResult::Status::Interrupted;
    return res;
  }
  if (child.kind != ChildOutcome::Kind::Exited || child.code != 0 || res.times.empty() ||
      (req.returnOutputs && !sawOutputs)) {
    if (res.message.empty()) res.message = "the candidate " + child.describe();
    return res;
  }
  if (req.returnOutputs) {
    for (size_t n : req.outputBytes) {
      if (buf.size() - pos < n) {
        res.message = "the candidate's outputs were cut short";
        return res;
      }
      res.outputs.emplace_back(buf.begin() + long(pos), buf.begin() + long(pos + n));
      pos += n;
    }
  }
  std::vector<double> sorted = res.times;
  std::sort(sorted.begin(), sorted.end());
  res.median = sorted[sorted.size() / 2];
  res.status = RunResult::Status::Ok;
  return res;
}

} // namespace mdh::tune
