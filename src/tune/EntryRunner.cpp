/** \file
 * Timing a candidate through its generic entry in a child (see EntryRunner.h).
 * The child reports tagged lines through the pipe: `T <seconds>` per timed
 * run, `E <message>` on failure, `M <message>` on a mismatch, then `O`
 * followed by the raw output bytes when they were requested.
 */
#include "tune/EntryRunner.h"

#include "tune/ChildProcess.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <functional>
#include <memory>
#include <sched.h>
#include <fmt/format.h>

namespace mdh::tune {
namespace {

using Clock = std::chrono::steady_clock;
using Entry = int (*)(const int64_t *sizes, void *const *buffers);
using Report = int (*)(void *ctx, int run, double seconds);
using TimedEntry = int (*)(const int64_t *sizes, void *const *buffers, int repetitions, Report report, void *ctx);

/// One line of the child's report (newlines in messages become spaces).
void report(int fd, const std::string &tag, std::string text) {
  std::replace(text.begin(), text.end(), '\n', ' ');
  std::string line = tag + " " + text + "\n";
  writeAllOrExit(fd, line.data(), line.size());
}

} // namespace

RunResult runGenericEntry(const BuiltCandidate &c, const RunRequest &req, const EntryRunOptions &o) {
  RunResult res;
  if (!c.error.empty()) {
    res.message = c.error;
    return res;
  }
  ChildOutcome child = runInChild(req.timeoutSeconds + o.extraSeconds, [&](int fd) {
    if (req.realtimePriority > 0) {
      // Before OpenMP starts its threads, which inherit the policy.  Without
      // the privilege the candidate is timed at normal priority.
      sched_param sp{};
      sp.sched_priority = req.realtimePriority;
      (void)sched_setscheduler(0, SCHED_FIFO, &sp);
    }
    void *h = dlopen(c.library.c_str(), RTLD_NOW | RTLD_LOCAL);
    const std::string entryName = c.symbol + (o.selfTimed ? "_bench" : "_run");
    void *sym = h ? dlsym(h, entryName.c_str()) : nullptr;
    if (!sym) {
      report(fd, "E", fmt::format("cannot load `{}` from {}: {}", entryName, c.library, h ? "no such entry" : dlerror()));
      return;
    }
    // Outputs live in zeroed 64-byte-aligned blocks, as a performance-minded
    // caller's do (a std::vector of megabytes starts 16 bytes past a page):
    // streaming stores check the alignment at run time and would otherwise
    // be timed as plain ones.  `outs` receives the warm-up's outputs.
    Outputs outs;
    std::vector<std::unique_ptr<void, void (*)(void *)>> aligned;
    std::vector<void *> ptrs;
    for (const void *in : req.inputs) ptrs.push_back(const_cast<void *>(in));
    for (size_t n : req.outputBytes) {
      const size_t rounded = std::max<size_t>(64, (n + 63) / 64 * 64);
      aligned.emplace_back(std::aligned_alloc(64, rounded), std::free);
      if (!aligned.back()) {
        report(fd, "E", fmt::format("cannot allocate {} bytes of output", n));
        return;
      }
      std::memset(aligned.back().get(), 0, rounded);
      ptrs.push_back(aligned.back().get());
      outs.emplace_back(n, 0);
    }
    auto collect = [&]() {
      for (size_t i = 0; i < outs.size(); ++i) std::memcpy(outs[i].data(), aligned[i].get(), outs[i].size());
    };
    // After the warm-up: its outputs are checked; false stops the candidate.
    auto warmedUp = [&]() -> bool {
      collect();
      std::string bad = req.check ? req.check(outs) : "";
      if (!bad.empty()) report(fd, "M", bad);
      return bad.empty();
    };
    // After timed run `r`: false ends the timing early (hopeless).
    auto timed = [&](int r, double t) -> bool {
      report(fd, "T", fmt::format("{:.9e}", t));
      return !(req.hopelessSeconds > 0 && r >= 1 && t > req.hopelessSeconds);
    };
    const int repetitions = std::max(1, req.repetitions);
    if (o.selfTimed) {
      // The entry times itself and calls back after each run (run -1: the warm-up).
      struct Callbacks {
        std::function<bool()> warmedUp;
        std::function<bool(int, double)> timed;
        bool stopped = false;
      } cb{warmedUp, timed};
      Report onRun = [](void *ctx, int run, double seconds) -> int {
        auto &k = *static_cast<Callbacks *>(ctx);
        const bool goOn = run < 0 ? k.warmedUp() : k.timed(run, seconds);
        k.stopped = run < 0 && !goOn;
        return goOn ? 0 : 1;
      };
      int st = reinterpret_cast<TimedEntry>(sym)(nullptr, ptrs.data(), repetitions, onRun, &cb);
      if (st != 0) {
        report(fd, "E", fmt::format("the candidate returned {} {}", o.statusName, st));
        return;
      }
      if (cb.stopped) return;
    } else {
      Entry fn = reinterpret_cast<Entry>(sym);
      auto call = [&]() -> bool {
        int st = fn(nullptr, ptrs.data());
        if (o.checkStatus && st != 0) {
          report(fd, "E", fmt::format("the candidate returned {} {}", o.statusName, st));
          return false;
        }
        return true;
      };
      auto first = Clock::now();
      if (!call()) return;
      double last = std::chrono::duration<double>(Clock::now() - first).count();
      if (!warmedUp()) return;
      // Until the candidate's own cache state has replaced its predecessor's: a
      // short kernel whose data nearly fills a cache ran its first 7 runs 30%
      // slower after another candidate than after itself, and the one before it
      // ran 6% faster (MatMul 1x1000x2048, 4 MiB L2 per core; analysis part 21).
      double spent = 0;
      for (int w = 0; w < kMaxWarmupRuns && spent + last <= req.warmupSeconds; ++w) {
        auto t0 = Clock::now();
        if (!call()) return;
        last = std::chrono::duration<double>(Clock::now() - t0).count();
        spent += last;
      }
      for (int r = 0; r < repetitions; ++r) {
        auto t0 = Clock::now();
        if (!call()) return;
        if (!timed(r, std::chrono::duration<double>(Clock::now() - t0).count())) break;
      }
    }
    if (req.returnOutputs) {
      report(fd, "O", "");
      for (const auto &out : outs) writeAllOrExit(fd, out.data(), out.size());
    }
  });
  // Parse the report: tagged lines, then (after "O") the raw outputs.
  const std::string &buf = child.output;
  size_t pos = 0;
  bool sawOutputs = false, failed = false;
  while (pos < buf.size()) {
    size_t nl = buf.find('\n', pos);
    if (nl == std::string::npos) break;
    std::string line = buf.substr(pos, nl - pos);
    pos = nl + 1;
    std::string tag = line.substr(0, 1), text = line.size() > 2 ? line.substr(2) : "";
    if (tag == "T") res.times.push_back(std::strtod(text.c_str(), nullptr));
    else if (tag == "E") {
      res.message = text;
      failed = true;
    } else if (tag == "M") {
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
  if (failed || child.kind != ChildOutcome::Kind::Exited || child.code != 0 || res.times.empty() ||
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
