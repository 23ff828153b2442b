/** \file
 * The measurement backend interface of the tuner: how candidate
 * configurations become runnable code, and how one candidate is timed.
 *
 * The tuner is backend-agnostic: it hands a batch of configurations to
 * build() (the compile phase: emit, compile, cache), then runs the
 * candidates one at a time with run() (the measurement phase) — never both
 * at once, so compilers do not steal cores from measurements.  OpenMP is
 * implemented in OpenMPBackend; a GPU backend implements the same two
 * calls (its run() would create its context inside the child).
 *
 * Invariants an implementation keeps: run() executes generated code only
 * in a child process (ChildProcess.h) under the request's time limit; a
 * build error, crash or time-out is reported in the result, never thrown;
 * the check callback sees the outputs of the first (warm-up) run.
 */
#pragma once

#include "hl/HLIR.h"
#include "ll/AsmModel.h"
#include "ll/Config.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace mdh::tune {

/// One candidate after the compile phase.
struct BuiltCandidate {
  std::string library;   ///< path of the compiled artefact
  std::string symbol;    ///< entry name inside it
  std::string error;     ///< non-empty: it could not be built
  double buildSeconds = 0; ///< its share of the batch's compile time
};

using Outputs = std::vector<std::vector<uint8_t>>;

/// The most untimed runs after the first (RunRequest::warmupSeconds).
constexpr int kMaxWarmupRuns = 64;

struct RunRequest {
  std::vector<const void *> inputs;     ///< input buffers, in the program's order
  std::vector<size_t> outputBytes;      ///< size of each output buffer
  int repetitions = 5;                  ///< timed runs after the warm-up (median)
  /// After the first (checked) run, more untimed runs while they fit in this
  /// many seconds (at most kMaxWarmupRuns): a short kernel's first runs still
  /// find the cache state that the previous candidate left (docs/compiler.md,
  /// "Measuring candidates").  A run longer than this gets no second warm-up.
  double warmupSeconds = 0.01;
  int realtimePriority = 0;             ///< > 0: the child times under SCHED_FIFO at this priority
  double timeoutSeconds = 30;           ///< the whole child, warm-up included
  double hopelessSeconds = 0;           ///< > 0: stop timing after 2 runs slower than this
  /// Runs in the child on the warm-up outputs; a non-empty result is a mismatch message.
  std::function<std::string(Outputs &)> check;
  bool returnOutputs = false;           ///< send the warm-up outputs back (the reference run)
};

struct RunResult {
  enum class Status { Ok, Mismatch, Failed, Interrupted } status = Status::Failed;
  double median = -1;          ///< seconds
  std::vector<double> times;   ///< every timed run
  std::string message;         ///< mismatch or failure description
  Outputs outputs;             ///< when requested
};

class CandidateBackend {
public:
  virtual ~CandidateBackend() = default;
  /// "openmp", "opencl", ...: part of the tuning-database key.
  virtual std::string name() const = 0;
  /// The system model whose configurations this backend measures.
  virtual ll::AsmModel model() const = 0;
  /// Toolchain identity (compiler and version): part of the machine signature.
  virtual std::string toolchain() const = 0;
  /// The source this backend generates for one configuration (a fixed entry
  /// name; "" when it cannot be emitted): the tuning database keys its
  /// measurements by the code generator through it.
  virtual std::string emittedSource(const hl::Program &p, const ll::Config &c) const = 0;
  /// The compile phase for a batch; one result per configuration.
  virtual std::vector<BuiltCandidate> build(const hl::Program &p, const std::vector<ll::Config> &configs) = 0;
  /// The measurement phase for one candidate.
  virtual RunResult run(const BuiltCandidate &c, const RunRequest &req) = 0;
  /// Seconds a compiler may run before its candidates count as failed (0: no limit).
  void setCompileTimeout(double seconds) { compileTimeout_ = seconds; }

protected:
  double compileTimeout_ = 0;
};

} // namespace mdh::tune
