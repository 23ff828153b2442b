/** \file
 * The tuning driver behind `mdhc tune` and `mdhc compile --tune`.
 */
#include "tune/TuneDriver.h"

#include "tune/CompileCache.h"
#include "tune/CudaBackend.h"
#include "tune/OpenCLBackend.h"
#include "tune/OpenMPBackend.h"
#include "tune/Progress.h"
#include "tune/SearchSpace.h"
#include "tune/TuningDb.h"

#include <algorithm>
#include <fmt/format.h>
#include <memory>
#include <thread>

namespace mdh::tune {
namespace {

int defaultJobs(int jobs) {
  if (jobs > 0) return jobs;
  return int(std::clamp(std::thread::hardware_concurrency(), 1u, 2u));
}

/// The measurement backend named by the options, or nullptr (with `error`).
std::unique_ptr<CandidateBackend> makeBackend(const DriverOptions &o, CompileCache &cache, int jobs, std::string &error) {
  if (o.backend == "openmp") return std::make_unique<OpenMPBackend>(cache, jobs);
  if (o.backend == "opencl") {
    auto b = std::make_unique<OpenCLBackend>(cache, jobs);
    if (!b->unavailable().empty()) {
      error = "cannot tune for OpenCL: " + b->unavailable();
      return nullptr;
    }
    return b;
  }
  if (o.backend == "cuda") {
    auto b = std::make_unique<CudaBackend>(cache, jobs);
    if (!b->unavailable().empty()) {
      error = "cannot tune for CUDA: " + b->unavailable() + "; without an NVIDIA GPU, tune the same kernels with --backend opencl";
      return nullptr;
    }
    return b;
  }
  error = "the tuner measures the openmp, opencl and cuda backends, not `" + o.backend + "`";
  return nullptr;
}

} // namespace

std::string tuneSummary(const TuneResult &r, const ConfirmationRecord *confirmation) {
  // One line that starts `tune: best` (scripts grep it).  A speed-up is only
  // ever the default's time over another configuration's, never the default
  // over itself.
  const std::string defHash = configHash(r.baseline.config);
  const bool keptDefault = configHash(r.best.config) == defHash;
  const std::string counts = fmt::format("{} candidates, {} failed", r.history.size(), r.failed);
  if (r.best.seconds <= 0)
    return fmt::format("tune: best: none measured, default {} ms, {}\n", msText(r.baseline.seconds), counts);
  if (!r.confirmedBaseline || !confirmation) {
    if (keptDefault)
      return fmt::format("tune: best is the default, {} ms (no candidate measured faster; not re-timed side by side), {}\n",
                         msText(r.best.seconds), counts);
    return fmt::format("tune: best {} ms, default {} ms ({:.2f}x; not re-timed side by side), {}\n", msText(r.best.seconds),
                       msText(r.baseline.seconds), r.baseline.seconds / r.best.seconds, counts);
  }
  const double def = r.confirmedBaseline->seconds;
  if (!keptDefault)
    return fmt::format("tune: best {} ms, default {} ms ({:.2f}x), re-timed side by side ({} candidates), {}\n",
                       msText(r.best.seconds), msText(def), def / r.best.seconds, r.confirmedCandidates, counts);
  // The default is kept: say so, and how the fastest other candidate fared in the same rounds.
  double other = -1;
  for (const auto &e : confirmation->entries)
    if (e.configHash != defHash && e.median > 0 && (other < 0 || e.median < other)) other = e.median;
  std::string rival = other > 0 ? fmt::format("the fastest other candidate {} ms, {:.2f}x the default's speed",
                                             msText(other), def / other)
                                 : std::string("no other candidate re-timed");
  return fmt::format("tune: best is the default, kept: {} ms re-timed side by side ({} candidates); {}; {}\n", msText(def),
                     r.confirmedCandidates, rival, counts);
}

int runTuning(const hl::Program &prog, const DriverOptions &o, std::optional<ll::Config> &best) {
  CompileCache cache(o.cacheDir, o.backend == "cuda" ? runtime::Toolchain::Cuda : runtime::Toolchain::HostCxx);
  std::string berr;
  auto backendPtr = makeBackend(o, cache, defaultJobs(o.jobs), berr);
  if (!backendPtr) {
    fmt::print(stderr, "error: {}\n", berr);
    return 1;
  }
  CandidateBackend &backend = *backendPtr;
  try {
    TuningDb db(o.dbDir.empty() ? TuningDb::defaultDir() : o.dbDir, tuningKey(prog, o.sets, backend));
    if (db.tornLastLine()) fmt::print(stderr, "note: the torn last line of {} ignored (a crash mid-write)\n", db.path());
    for (const auto &p : db.problems()) fmt::print(stderr, "warning: {}\n", p);
    TuneOptions opts = o.tune;
    if (o.remainingBudgetOnly) {
      int done = int(db.records().size());
      double spent = db.spentSeconds();
      bool finished = !db.sessions().empty() && (db.sessions().back().stop == "plateau" || db.sessions().back().stop == "exhausted");
      opts.evaluations = std::max(0, opts.evaluations - done);
      opts.seconds = std::max(0.0, opts.seconds - spent);
      if (finished || opts.evaluations == 0 || opts.seconds <= 0) {
        // As the tuner does: only a record valid for this program and its pins.
        SearchSpace space(prog, backend.model(), o.tune.pins, {o.tune.threads});
        BestRecord b = db.best([&](const ll::Config &c) { return space.usable(c); });
        if (b && !db.needsConfirmation()) {
          fmt::print(stderr, "tune: budget spent ({} measurements, {:.0f} s recorded); using the best {} configuration "
                             "({} ms)\n", done, spent, b.confirmed ? "confirmed" : "recorded", msText(b.seconds));
          best = b.record->config;
          return 0;
        }
        // Measurements of an interrupted session were never re-timed: only the confirmation runs.
        opts.evaluations = 0;
        opts.seconds = 0;
      }
      const std::string more = opts.evaluations >= kUnboundedEvaluations / 2 ? fmt::format("{:.0f} more s", opts.seconds)
                                                              : fmt::format("up to {} more evaluations / {:.0f} s", opts.evaluations, opts.seconds);
      fmt::print(stderr, "tune: {} measurements and {:.0f} s recorded; tuning for {}\n", done, spent, more);
    }
    TuneResult r = tune(prog, opts, backend, db);
    // --report: the evaluations, and the verdict the user sees on the terminal.
    auto report = [&](std::string verdict) {
      if (o.tune.reportDir.empty() || r.reportRows.empty()) return;
      if (verdict.rfind("tune: ", 0) == 0) verdict.erase(0, 6);
      while (!verdict.empty() && verdict.back() == '\n') verdict.pop_back();
      try {
        writeReport(o.tune.reportDir, r.reportRows, r.baseline.seconds,
                    o.tune.reportTitle.empty() ? prog.instanceName : o.tune.reportTitle,
                    {verdict, best ? ll::toJson(*best).dump() : ""});
      } catch (const std::exception &e) {
        fmt::print(stderr, "warning: the report could not be written: {}\n", e.what());
      }
    };
    switch (r.stop) {
    case TuneResult::Stop::Error:
      fmt::print(stderr, "error: {}\n", r.message);
      report("stopped by an error: " + r.message);
      return r.usageError ? 2 : 1; // a usage error in every command (docs/compiler.md)
    case TuneResult::Stop::Mismatch:
      fmt::print(stderr, "error: {}\n", r.message);
      report("stopped: a candidate computed a wrong result (see the terminal's reproducer)");
      return 3;
    default: break;
    }
    if (r.best.seconds > 0) best = r.best.config;
    if (r.stop == TuneResult::Stop::Interrupted) {
      if (r.history.empty()) fmt::print(stderr, "tune: interrupted before a measurement finished; nothing new was saved\n");
      else fmt::print(stderr, "tune: interrupted; {} new measurements are saved in {} (run again to resume)\n", r.history.size(),
                 db.path());
      report(r.best.seconds > 0
                 ? fmt::format("interrupted after {} new measurements; best so far {} ms (not re-timed side by side)",
                               r.history.size(), msText(r.best.seconds))
                 : fmt::format("interrupted after {} new measurements, none of them successful", r.history.size()));
      return 130;
    }
    const ConfirmationRecord *confirmation =
        r.confirmedBaseline && !db.confirmations().empty() ? &db.confirmations().back() : nullptr;
    fmt::print(stderr, "{}", tuneSummary(r, confirmation));
    report(tuneSummary(r, confirmation));
    fmt::print(stderr, "tune: stopped by {}: {} new evaluations ({} failed), {} resumed from {}\n", stopName(r.stop),
               r.history.size(), r.failed, r.resumed, db.path());
    if (!best) {
      fmt::print(stderr, "error: no candidate could be measured\n");
      return 1;
    }
    return 0;
  } catch (const DbError &e) {
    fmt::print(stderr, "error: {}\n", e.what());
    return 1;
  }
}

int showTuning(const hl::Program &prog, const DriverOptions &o) {
  CompileCache cache(o.cacheDir, o.backend == "cuda" ? runtime::Toolchain::Cuda : runtime::Toolchain::HostCxx);
  std::string berr;
  auto backendPtr = makeBackend(o, cache, 1, berr);
  if (!backendPtr) {
    fmt::print(stderr, "error: {}\n", berr);
    return 1;
  }
  CandidateBackend &backend = *backendPtr;
  try {
    TuningDb db(o.dbDir.empty() ? TuningDb::defaultDir() : o.dbDir, tuningKey(prog, o.sets, backend));
    for (const auto &p : db.problems()) fmt::print(stderr, "warning: {}\n", p);
    const auto &k = db.key();
    fmt::print("database: {}\nentry: {}  instantiation: {}  backend: {}\nmachine: {}\nprogram hash: {}\n", db.path(), k.entry,
               k.instantiation.empty() ? "(none: the entry takes no meta-arguments)" : k.instantiation, k.backend, k.machine,
               k.programHash);
    size_t ok = 0;
    for (const auto &r : db.records()) ok += r.ok;
    fmt::print("measurements: {} ({} failed), {:.0f} s of tuning, {} session(s)\n", db.records().size(), db.records().size() - ok,
               db.spentSeconds(), db.sessions().size());
    for (const auto &s : db.sessions())
      fmt::print("  session: {} evaluations in {:.0f} s, stopped by {}\n", s.evaluations, s.seconds, s.stop);
    std::vector<const TuningRecord *> sorted;
    for (const auto &r : db.records())
      if (r.ok) sorted.push_back(&r);
    std::sort(sorted.begin(), sorted.end(), [](auto *a, auto *b) { return a->median < b->median; });
    if (!db.confirmations().empty()) {
      const ConfirmationRecord &c = db.confirmations().back();
      fmt::print("latest confirmation: {} candidates re-timed in {} interleaved round(s){}\n", c.entries.size(), c.rounds,
                 db.needsConfirmation() ? " (later measurements not yet confirmed)" : "");
      for (const auto &e : c.entries) {
        const TuningRecord *r = db.find(e.configHash);
        fmt::print("   {:>9} ms  ({} runs) {}\n", msText(e.median), e.times.size(), r ? ll::toJson(r->config).dump() : e.configHash);
      }
    }
    ll::Config def = ll::defaultConfig(prog, backend.model(), o.tune.threads);
    const TuningRecord *d = db.find(configHash(def));
    if (d && d->ok) fmt::print("default: {} ms\n", msText(d->median));
    for (size_t i = 0; i < sorted.size() && i < 10; ++i)
      fmt::print("{:2}. {:>9} ms{}  [{}] {}\n", i + 1, msText(sorted[i]->median),
                 d && d->ok ? fmt::format(" ({:.2f}x)", d->median / sorted[i]->median) : "", sorted[i]->technique,
                 ll::toJson(sorted[i]->config).dump());
    return 0;
  } catch (const DbError &e) {
    fmt::print(stderr, "error: {}\n", e.what());
    return 1;
  }
}

} // namespace mdh::tune
