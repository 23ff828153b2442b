/** \file
 * Auto-tuning of low-level configurations by measured run time (issue 5).
 *
 * tune() runs one tuning session for one instantiated program: it measures
 * the default configuration (its outputs become the reference, after they
 * pass the high-precision check), then asks a search technique (Technique.h;
 * the AUC bandit by default) for candidates, compiles them in batches
 * (CandidateBackend::build, through the compile cache), measures each in a
 * child process (CandidateBackend::run: warm-up, median of repetitions),
 * checks each one's outputs (OutputChecker) and appends every finished
 * measurement to the tuning database at once.
 *
 * Invariants: configurations already in the database are not measured
 * again (the budget counts new evaluations only); a candidate that fails to
 * build, crashes or times out is recorded as failed and the search goes on;
 * a candidate whose outputs are wrong stops the session with a reproducer
 * (a compiler bug); Ctrl-C stops it between two database writes; for a
 * fixed seed and fixed measurements the candidate sequence is fixed (with
 * `random`, or within the first batch, it depends on the seed alone).
 */
#pragma once

#include "hl/HLIR.h"
#include "ll/Config.h"
#include "tune/CandidateBackend.h"
#include "tune/Report.h"
#include "tune/SearchSpace.h"
#include "tune/TuningDb.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mdh::tune {

/// The evaluation count of a time budget alone (`--seconds` without
/// `--evaluations`): too large to stop a session or to be shown.  What is left
/// of it after a resumed session's measurements stays above half of it.
constexpr int kUnboundedEvaluations = 1 << 30;

struct TuneOptions {
  int evaluations = 64;          ///< new measurements (the default included when it is new)
  double seconds = 600;          ///< wall-time budget of the session
  int plateau = 0;               ///< stop after this many evaluations without a 1% improvement (0: never)
  int batch = 8;                 ///< candidates per compile phase
  int repetitions = 5;           ///< timed runs per candidate (median), after the warm-up
  double warmupSeconds = 0.01;   ///< untimed runs after the first while they fit (RunRequest::warmupSeconds)
  /// At the end, the fastest `confirm` candidates and the default are re-timed
  /// in up to `confirmRounds` interleaved rounds (fewer when they would take
  /// more than a fifth of the budget); the ranking of those rounds picks the
  /// result.  0: no confirmation (the single fastest measurement wins).
  int confirm = 4;
  int confirmRounds = 3;
  /// > 0: measurement children run under SCHED_FIFO at this priority; the
  /// tuner itself and the compilers stay at normal priority (a real-time
  /// parent reaping children could starve kernel workers it waits on).
  int realtimePriority = 0;
  uint64_t seed = 1;             ///< search and input data
  int threads = 0;               ///< thread count pinned by --threads (0: searched among 0 = all, and half the cores)
  std::string technique = "auc"; ///< auc | random | annealing | pattern
  Pins pins;                     ///< hand-pinned parameters
  double candidateTimeout = 0;   ///< seconds per candidate child (0: from the default's time)
  double compileTimeout = 0;     ///< seconds per compiler run (0: max(15 s, 8x the default's compile))
  std::string reportDir;         ///< --report: CSV and SVG here
  std::string reportTitle;
  std::string reproducerBase;    ///< mismatch files: `<base>.mismatch-config.json` and `.mismatch.txt`
  std::string reproduceCommand;  ///< the mdhc command reproducing a run; `{config}` is replaced
  bool terminal = false;         ///< stderr is a terminal: progress bar instead of log lines
  bool quiet = false;            ///< no progress output
};

struct Measurement {
  ll::Config config;
  double seconds = 0;            ///< median; < 0 when the candidate failed
  std::string failure;
};

struct TuneResult {
  enum class Stop { Evaluations, Seconds, Plateau, Exhausted, Interrupted, Mismatch, Error };
  Stop stop = Stop::Error;
  std::string message;           ///< Error / Mismatch: what happened and what to do
  bool usageError = false;       ///< Error: the request itself (pins, technique) is unusable: exit 2
  Measurement best;              ///< over the database (resumed measurements included)
  Measurement baseline;          ///< the default configuration, measured this session
  std::vector<Measurement> history; ///< this session's new measurements, in order
  int resumed = 0;               ///< measurements found in the database
  /// Set when this session confirmed: the default's time in the same rounds
  /// as `best` (so best/baseline is a side-by-side ratio) and how many
  /// candidates were re-timed.
  std::optional<Measurement> confirmedBaseline;
  int confirmedCandidates = 0;
  int failed = 0;                ///< failed candidates of this session
  std::vector<ReportRow> reportRows; ///< every evaluation, resumed ones first (for --report)
};

const char *stopName(TuneResult::Stop s);

TuneResult tune(const hl::Program &prog, const TuneOptions &opts, CandidateBackend &backend, TuningDb &db);

/// The tuning-database key of an instantiation (`sets`: the --set items as given).
TuningKey tuningKey(const hl::Program &prog, const std::vector<std::string> &sets, const CandidateBackend &backend);

} // namespace mdh::tune
