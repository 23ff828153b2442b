/** \file
 * The tuning loop: compile phase, measurement phase, bookkeeping.
 */
#include "tune/Tuner.h"

#include "data/AtomicFiles.h"
#include "data/RandomData.h"
#include "tune/Hash.h"
#include "tune/Interrupt.h"
#include "tune/OutputChecker.h"
#include "tune/Progress.h"
#include "tune/Report.h"
#include "tune/Technique.h"

#include <deque>
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fmt/format.h>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <thread>

namespace mdh::tune {
namespace {

using Clock = std::chrono::steady_clock;

double since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

/// The test hook: MDH_TUNE_TEST_CORRUPT_CANDIDATE=k corrupts an output of the
/// k-th new candidate after the default (1-based), to test the checker.
int corruptCandidateForTest() {
  const char *v = std::getenv("MDH_TUNE_TEST_CORRUPT_CANDIDATE");
  return v && *v ? std::atoi(v) : 0;
}

} // namespace

const char *stopName(TuneResult::Stop s) {
  switch (s) {
  case TuneResult::Stop::Evaluations: return "evaluations";
  case TuneResult::Stop::Seconds: return "seconds";
  case TuneResult::Stop::Plateau: return "plateau";
  case TuneResult::Stop::Exhausted: return "exhausted";
  case TuneResult::Stop::Interrupted: return "interrupted";
  case TuneResult::Stop::Mismatch: return "mismatch";
  case TuneResult::Stop::Error: return "error";
  }
  return "?";
}

TuningKey tuningKey(const hl::Program &prog, const std::vector<std::string> &sets, const CandidateBackend &backend) {
  std::vector<std::string> items;
  for (const auto &s : sets) {
    std::stringstream ss(s);
    for (std::string item; std::getline(ss, item, ',');)
      if (!item.empty()) items.push_back(item);
  }
  std::sort(items.begin(), items.end());
  TuningKey k;
  k.programHash = stableHash(hl::printProgram(prog));
  k.entry = prog.name;
  k.instantiation = fmt::format("{}", fmt::join(items, ","));
  k.backend = backend.name();
  k.machine = machineSignature(backend.toolchain());
  k.codegen = stableHash(backend.emittedSource(prog, ll::defaultConfig(prog, backend.model())));
  return k;
}

TuneResult tune(const hl::Program &prog, const TuneOptions &opts, CandidateBackend &backend, TuningDb &db) {
  TuneResult res;
  auto start = Clock::now();
  InterruptGuard guard; // Ctrl-C: finish the database write, kill the child, return Interrupted
  Progress progress(stderr, opts.terminal && !opts.quiet);
  auto say = [&](const std::string &s) {
    if (!opts.quiet) progress.message(s);
  };
  if (!prog.dynamicSizes.empty()) {
    // Callers fix them first (TuningInstance.h); the advice is what `mdhc tune` takes.
    res.message = fmt::format("tuning needs concrete sizes: give the run-time size{} {} a value with --set (e.g. --set {}=1024); "
                              "the configuration found applies to the entry with run-time sizes too",
                              prog.dynamicSizes.size() == 1 ? "" : "s", fmt::join(prog.dynamicSizes, ", "), prog.dynamicSizes[0]);
    return res;
  }
  ll::AsmModel model = backend.model();
  std::vector<int> threadChoices = {opts.threads};
  if (opts.threads == 0) {
    int half = int(std::thread::hardware_concurrency() / 2);
    if (half >= 1) threadChoices.push_back(half);
  }
  SearchSpace space(prog, model, opts.pins, threadChoices);
  // A record read back counts only if its configuration is valid for this program and keeps
  // this run's pins: the database is keyed without the pins, and a hand-edited line (tile
  // 999999, simd_dim 9) was compiled, timed and crashed the confirmation.
  auto usable = [&](const ll::Config &c) { return space.usable(c); };
  // Deeper levels are clipped to the tiles around them: a pinned tile larger than the pinned
  // tile of its enclosing level would be changed silently, and the pins broken.
  if (ll::Config repinned = space.start(); opts.pins.apply(repinned), ll::toJson(repinned) != ll::toJson(space.start())) {
    res.message = fmt::format("the pinned parameters contradict each other: a pinned tile is larger than the tile of the "
                              "level around it, and would become {}; pin tiles that nest",
                              ll::toJson(space.start())["levels"].dump());
    res.usageError = true;
    return res;
  }
  if (auto errs = ll::validate(space.start(), prog, model); !errs.empty()) {
    res.message = "the pinned parameters do not give a valid configuration:";
    for (const auto &e : errs) res.message += "\n  - " + e;
    res.usageError = true;
    return res;
  }
  std::string techErr;
  auto technique = makeTechnique(opts.technique, opts.seed, techErr);
  if (!technique) {
    res.message = techErr;
    res.usageError = true;
    return res;
  }

  // Inputs: the same seeded random data as `mdhc run --seed`.
  data::BufferSet inputs;
  RunRequest req;
  for (const auto &b : prog.inputs) {
    std::vector<int64_t> shape;
    for (const auto &s : b.shape) shape.push_back(s.constantValue().value_or(1));
    inputs[b.name] = data::randomBuffer(b.name, b.elem, shape, opts.seed);
  }
  // Candidates read 64-byte-aligned copies, as the benchmark driver's and a
  // performance-minded caller's buffers are (the outputs: EntryRunner): a
  // multi-MB std::vector starts 16 bytes past a page, and vector loads of it
  // split cache lines (2^24 i32 scan, streamed default: 9 ms misaligned,
  // 6.3 ms aligned).
  std::vector<std::unique_ptr<void, void (*)(void *)>> alignedInputs;
  for (const auto &b : prog.inputs) {
    const std::vector<uint8_t> &bytes = inputs.at(b.name).bytes;
    const size_t rounded = std::max<size_t>(64, (bytes.size() + 63) / 64 * 64);
    alignedInputs.emplace_back(std::aligned_alloc(64, rounded), std::free);
    if (!alignedInputs.back()) {
      res.message = fmt::format("cannot allocate {} bytes for input `{}`", rounded, b.name);
      return res;
    }
    std::memcpy(alignedInputs.back().get(), bytes.data(), bytes.size());
    req.inputs.push_back(alignedInputs.back().get());
  }
  for (const auto &b : prog.outputs) {
    size_t n = b.elem.size();
    for (const auto &s : b.shape) n *= size_t(s.constantValue().value_or(1));
    req.outputBytes.push_back(n);
  }
  req.repetitions = opts.repetitions;
  req.warmupSeconds = opts.warmupSeconds;
  req.realtimePriority = opts.realtimePriority;
  OutputChecker checker(prog, inputs, opts.seed);
  if (!checker.note().empty()) say("note: " + checker.note());

  // Mismatch: a compiler bug.  Reproducer files next to the output.
  auto mismatch = [&](const ll::Config &c, const std::string &what) {
    res.stop = TuneResult::Stop::Mismatch;
    std::string base = opts.reproducerBase.empty() ? "mdh-tune" : opts.reproducerBase;
    std::string cfgPath = base + ".mismatch-config.json", txtPath = base + ".mismatch.txt";
    std::string cmd = opts.reproduceCommand;
    if (auto p = cmd.find("{config}"); p != std::string::npos) cmd.replace(p, 8, cfgPath);
    std::string text = fmt::format("mdhc tune found a wrong result — a compiler bug; please report it with these files.\n"
                                   "  what: {}\n  configuration: {}\n  reproduce (seeded inputs): {}\n",
                                   what, ll::toJson(c).dump(), cmd);
    std::string json = ll::toJson(c).dump(2) + "\n";
    try {
      std::error_code ec;
      std::filesystem::path parent = std::filesystem::path(cfgPath).parent_path();
      if (!parent.empty()) std::filesystem::create_directories(parent, ec);
      data::AtomicFileSet files;
      files.stage(cfgPath, std::vector<uint8_t>(json.begin(), json.end()));
      files.stage(txtPath, std::vector<uint8_t>(text.begin(), text.end()));
      files.commit();
      res.message = fmt::format("wrong result of a candidate configuration (a compiler bug): {}\nreproducer: {} and {}\n"
                                "reproduce with: {}", what, cfgPath, txtPath, cmd);
    } catch (const std::exception &e) {
      res.message = fmt::format("wrong result of a candidate configuration (a compiler bug): {}\n{}(the reproducer could not "
                                "be written: {})", what, text, e.what());
    }
  };

  // The default configuration: reference outputs (checked in high precision) and the baseline time.
  ll::Config def = ll::defaultConfig(prog, model, opts.threads);
  RunResult defRun;
  double defBuildSeconds = 0;
  double defRunWall = 0; // one measurement of the default, child start-up and output check included
  // This session's compiled candidates, so that the confirmation re-times
  // the same libraries instead of compiling them again.
  std::map<std::string, BuiltCandidate> builtByHash;
  {
    auto built = backend.build(prog, {def});
    builtByHash[configHash(def)] = built[0];
    RunRequest r = req;
    r.returnOutputs = true;
    r.timeoutSeconds = opts.candidateTimeout > 0 ? opts.candidateTimeout * 4 : 600;
    r.check = [&](Outputs &o) { return checker.checkPrecise(o); };
    auto runStart = Clock::now();
    defRun = backend.run(built[0], r);
    defRunWall = since(runStart);
    if (defRun.status == RunResult::Status::Interrupted) {
      res.stop = TuneResult::Stop::Interrupted;
      return res;
    }
    if (defRun.status == RunResult::Status::Mismatch) {
      mismatch(def, "the default configuration: " + defRun.message);
      return res;
    }
    if (defRun.status != RunResult::Status::Ok) {
      res.message = "the default configuration could not be measured: " + defRun.message;
      return res;
    }
    checker.setReference(std::move(defRun.outputs));
    res.baseline = {def, defRun.median, ""};
    defBuildSeconds = built[0].buildSeconds;
  }
  // A candidate whose compile runs away (GCC on a huge unrolled tile: 77 s
  // for one batch of a 4096 x 4096 MatVec) fails instead of eating the budget.
  backend.setCompileTimeout(opts.compileTimeout > 0 ? opts.compileTimeout : std::max(15.0, 8 * defBuildSeconds));
  double perRun = std::max(0.5, 20 * res.baseline.seconds);
  // A hopeless candidate stops after a warm-up and 2 timed runs; a competitive one
  // (close to the default) needs repetitions + 1 runs of far less than perRun.
  req.timeoutSeconds = opts.candidateTimeout > 0 ? opts.candidateTimeout : perRun * 4 + 1;

  // Resume: the database's measurements.
  SearchState state{space, std::nullopt, -1};
  double priorSpent = db.spentSeconds();
  std::vector<ReportRow> rows;
  for (const auto &r : db.records()) {
    ++res.resumed;
    if (r.ok && r.median > 0 && usable(r.config) && (state.bestSeconds < 0 || r.median < state.bestSeconds)) {
      state.best = r.config;
      state.bestSeconds = r.median;
    }
    rows.push_back({int(rows.size()) + 1, r.elapsed, r.technique, r.ok ? "resumed-ok" : "resumed-failed", r.ok ? r.median : -1,
                    state.bestSeconds, r.configHash, ll::toJson(r.config).dump()});
  }
  if (res.resumed) say(fmt::format("tune: resuming from {} measurements in {}", res.resumed, db.path()));

  int evaluations = 0, sincePlateau = 0;
  double plateauRef = state.bestSeconds;
  int corruptK = corruptCandidateForTest(), candidateIndex = 0;
  auto record = [&](const ll::Config &c, const RunResult &run, double cost, const std::string &tech) -> bool {
    TuningRecord rec;
    rec.configHash = configHash(c);
    rec.config = c;
    rec.ok = run.status == RunResult::Status::Ok;
    rec.median = rec.ok ? run.median : -1;
    rec.times = run.times;
    rec.failure = rec.ok ? "" : run.message;
    rec.technique = tech;
    rec.cost = cost;
    rec.elapsed = priorSpent + since(start);
    rec.at = double(std::time(nullptr));
    try {
      db.append(rec);
    } catch (const DbError &e) {
      res.message = e.what();
      res.stop = TuneResult::Stop::Error;
      return false;
    }
    ++evaluations;
    bool newBest = rec.ok && (state.bestSeconds < 0 || rec.median < state.bestSeconds);
    if (newBest) {
      state.best = c;
      state.bestSeconds = rec.median;
    }
    if (rec.ok && (plateauRef < 0 || rec.median <= plateauRef * 0.99)) {
      plateauRef = rec.median;
      sincePlateau = 0;
    } else {
      ++sincePlateau;
    }
    if (!rec.ok) ++res.failed;
    res.history.push_back({c, rec.median, rec.failure});
    rows.push_back({int(rows.size()) + 1, rec.elapsed, tech, rec.ok ? "ok" : "failed", rec.median, state.bestSeconds,
                    rec.configHash, ll::toJson(c).dump()});
    technique->observe(state, c, rec.median, newBest);
    ProgressState ps;
    ps.evaluations = evaluations;
    ps.budgetEvaluations = opts.evaluations;
    ps.elapsed = since(start);
    ps.budgetSeconds = opts.seconds;
    ps.best = state.bestSeconds;
    ps.baseline = res.baseline.seconds;
    ps.last = rec.ok ? fmt::format("{} {} ms", tech, msText(rec.median)) : fmt::format("{} failed", tech);
    if (!opts.quiet) progress.update(ps);
    if (!rec.ok && !opts.terminal && !opts.quiet)
      say(fmt::format("note: candidate {} failed: {}", rec.configHash.substr(0, 12), rec.failure.substr(0, 300)));
    return true;
  };

  // The default counts as an evaluation when it is new.
  if (!db.find(configHash(def)) && opts.evaluations > 0) {
    if (!record(def, defRun, defBuildSeconds + defRun.median * (opts.repetitions + 1), "default")) return res;
  }
  // This session's measurement of the default competes too: on a resume the
  // database may hold a slower one from a busier machine, and a candidate faster
  // than that but slower than the default now must not become the best.
  if (usable(def) && (state.bestSeconds < 0 || (res.baseline.seconds > 0 && res.baseline.seconds < state.bestSeconds))) {
    state.best = def;
    state.bestSeconds = res.baseline.seconds;
  }

  // The confirmation's share of the budget, estimated from the default's
  // measurement (its child's start-up, data and runs; candidates worth
  // confirming are faster, and skip the precise check it made); candidates of
  // this session are not compiled again, so one compile phase covers those
  // of earlier ones.
  const size_t confirmCount = size_t(std::max(0, opts.confirm));
  const double roundCost = double(confirmCount + 1) * std::max(defRunWall, (opts.repetitions + 1) * res.baseline.seconds + opts.warmupSeconds);
  const int confirmRounds =
      confirmCount == 0 ? 0 : std::clamp(int(0.2 * opts.seconds / std::max(1e-9, roundCost)), 1, std::max(1, opts.confirmRounds));
  const double confirmReserve = std::min(0.25 * opts.seconds, confirmRounds * roundCost + defBuildSeconds);

  auto stopNow = [&]() -> bool {
    if (interruptRequested()) res.stop = TuneResult::Stop::Interrupted;
    else if (evaluations >= opts.evaluations) res.stop = TuneResult::Stop::Evaluations;
    else if (since(start) >= opts.seconds - confirmReserve) res.stop = TuneResult::Stop::Seconds;
    else if (opts.plateau > 0 && sincePlateau >= opts.plateau) res.stop = TuneResult::Stop::Plateau;
    else return false;
    return true;
  };
  std::mt19937_64 rng(opts.seed);
  bool running = true;
  // The pinned start comes first when it differs from the default, then the
  // register-tile variants of the start.
  std::deque<std::pair<ll::Config, std::string>> seeds;
  if (configHash(space.start()) != configHash(def)) seeds.emplace_back(space.start(), "pinned-start");
  for (ll::Config &c : space.seeds()) seeds.emplace_back(std::move(c), "seed");
  while (running && !stopNow()) {
    int want = std::min(opts.batch, opts.evaluations - evaluations);
    std::vector<ll::Config> batch;
    std::vector<std::string> proposer;
    std::set<std::string> inBatch;
    for (int tries = 0; int(batch.size()) < want && tries < want * 50; ++tries) {
      const bool seeded = !seeds.empty();
      ll::Config c = seeded ? seeds.front().first : technique->propose(state, rng);
      std::string who = seeded ? seeds.front().second : technique->lastProposer();
      if (seeded) seeds.pop_front();
      std::string h = configHash(c);
      if (const TuningRecord *r = db.find(h)) {
        technique->observe(state, c, r->ok ? r->median : -1, false);
        continue;
      }
      if (!inBatch.insert(h).second) continue;
      batch.push_back(c);
      proposer.push_back(who);
    }
    if (batch.empty()) {
      res.stop = TuneResult::Stop::Exhausted;
      break;
    }
    // Compile phase (no measurement runs meanwhile), then measurement phase.
    auto built = backend.build(prog, batch);
    for (size_t i = 0; i < batch.size(); ++i) builtByHash[configHash(batch[i])] = built[i];
    for (size_t i = 0; i < batch.size(); ++i) {
      if (stopNow()) {
        running = false;
        break;
      }
      ++candidateIndex;
      bool corrupt = corruptK > 0 && candidateIndex == corruptK;
      RunRequest r = req;
      r.hopelessSeconds = state.bestSeconds > 0 ? 3 * state.bestSeconds : 0;
      r.check = [&checker, corrupt](Outputs &o) {
        if (corrupt) checker.corruptForTest(o);
        return checker.check(o);
      };
      auto t0 = Clock::now();
      RunResult run = backend.run(built[i], r);
      if (run.status == RunResult::Status::Interrupted) {
        res.stop = TuneResult::Stop::Interrupted;
        running = false;
        break;
      }
      if (run.status == RunResult::Status::Mismatch) {
        mismatch(batch[i], run.message);
        running = false;
        break;
      }
      if (!record(batch[i], run, built[i].buildSeconds + since(t0), proposer[i])) {
        running = false;
        break;
      }
    }
  }
  progress.finish();

  // Confirmation: one measurement on a noisy machine can be lucky by 20% or
  // more, so the fastest candidates and the default run again, round-robin
  // (each round starts with another one, so none always runs first), and
  // the medians over all rounds rank them.  Outputs were checked already.
  if (confirmRounds > 0 && db.needsConfirmation() &&
      (res.stop == TuneResult::Stop::Evaluations || res.stop == TuneResult::Stop::Seconds ||
       res.stop == TuneResult::Stop::Plateau || res.stop == TuneResult::Stop::Exhausted)) {
    auto t0 = Clock::now();
    std::vector<const TuningRecord *> fastest;
    for (const auto &r : db.records())
      if (r.ok && r.median > 0 && usable(r.config)) fastest.push_back(&r);
    std::stable_sort(fastest.begin(), fastest.end(), [](auto *a, auto *b) { return a->median < b->median; });
    std::vector<ll::Config> configs;
    std::vector<std::string> hashes;
    auto take = [&](const ll::Config &c, const std::string &h) {
      if (std::find(hashes.begin(), hashes.end(), h) != hashes.end()) return;
      configs.push_back(c);
      hashes.push_back(h);
    };
    for (const TuningRecord *r : fastest)
      if (configs.size() < confirmCount) take(r->config, r->configHash);
    const std::string defHash = configHash(def);
    if (db.find(defHash)) take(def, defHash);
    if (configs.size() >= 2) {
      say(fmt::format("tune: re-timing the {} fastest candidates and the default in {} interleaved round(s)",
                      configs.size() - (db.find(defHash) ? 1 : 0), confirmRounds));
      std::vector<BuiltCandidate> built(configs.size());
      std::vector<ll::Config> missing;
      std::vector<size_t> missingAt;
      for (size_t i = 0; i < configs.size(); ++i)
        if (auto it = builtByHash.find(hashes[i]); it != builtByHash.end() && it->second.error.empty()) {
          built[i] = it->second;
        } else {
          missing.push_back(configs[i]);
          missingAt.push_back(i);
        }
      if (!missing.empty()) {
        auto fresh = backend.build(prog, missing);
        for (size_t m = 0; m < missingAt.size(); ++m) built[missingAt[m]] = fresh[m];
      }
      std::vector<std::vector<double>> times(configs.size());
      std::vector<bool> failed(configs.size(), false);
      bool stopped = false;
      for (int round = 0; round < confirmRounds && !stopped; ++round)
        for (size_t k = 0; k < configs.size() && !stopped; ++k) {
          size_t i = (k + size_t(round)) % configs.size();
          if (failed[i]) continue;
          RunResult run = backend.run(built[i], req);
          if (run.status == RunResult::Status::Interrupted) {
            res.stop = TuneResult::Stop::Interrupted;
            stopped = true;
          } else if (run.status != RunResult::Status::Ok) {
            failed[i] = true; // e.g. a time-out on a slower machine state: it just drops out
          } else {
            times[i].insert(times[i].end(), run.times.begin(), run.times.end());
          }
        }
      if (!stopped) {
        ConfirmationRecord c;
        c.rounds = confirmRounds;
        c.measurements = db.records().size();
        c.at = double(std::time(nullptr));
        c.cost = since(t0);
        for (size_t i = 0; i < configs.size(); ++i) {
          double m = -1;
          if (!failed[i] && !times[i].empty()) {
            std::vector<double> t = times[i];
            std::nth_element(t.begin(), t.begin() + long(t.size() / 2), t.end());
            m = t[t.size() / 2];
          }
          c.entries.push_back({hashes[i], m, times[i]});
          // A configuration re-timed at several times (or a fraction) of its search time says
          // the machine changed between the two, or its threads wake slowly after the pauses
          // between runs: the verdict uses the re-timing, and the user should know.
          if (const TuningRecord *rec = db.find(hashes[i]); rec && rec->ok && rec->median > 0 && m > 0 &&
                                                            (m > 3 * rec->median || 3 * m < rec->median))
            say(fmt::format("note: {} measured {} ms in the search but {} ms re-timed ({:.1f}x): the machine's load changed, "
                            "or its threads wake slowly; the verdict uses the re-timed figures",
                            hashes[i] == defHash ? "the default" : "candidate " + hashes[i].substr(0, 12), msText(rec->median),
                            msText(m), m / rec->median));
          if (hashes[i] == defHash && m > 0) res.confirmedBaseline = Measurement{def, m, ""};
        }
        try {
          db.appendConfirmation(c);
          res.confirmedCandidates = int(configs.size());
        } catch (const DbError &e) {
          res.message = e.what();
          res.stop = TuneResult::Stop::Error;
        }
      }
    }
  }

  if (res.stop != TuneResult::Stop::Error && res.stop != TuneResult::Stop::Mismatch) {
    try {
      db.appendSession({stopName(res.stop), evaluations, since(start), opts.evaluations, opts.seconds});
    } catch (const DbError &e) {
      res.message = e.what();
      res.stop = TuneResult::Stop::Error;
    }
  }
  if (BestRecord b = db.best(usable); b && (b.confirmed || state.bestSeconds < 0 || b.seconds <= state.bestSeconds)) {
    res.best = {b.record->config, b.seconds, ""};
  } else {
    res.best = {state.best ? *state.best : def, state.bestSeconds, ""};
  }
  res.reportRows = std::move(rows); // the driver writes the report, with its verdict
  return res;
}

} // namespace mdh::tune
