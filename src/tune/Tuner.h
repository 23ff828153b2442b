/** \file
 * Auto-tuning of low-level configurations by measured run time (a first
 * version of issue 5: random search plus a local search around the best,
 * without the persistent tuning database yet).
 *
 * Candidates are compiled in batches into one shared library, measured in a
 * child process (a crash or hang loses only that batch), and each
 * candidate's outputs are compared with the default configuration's before
 * its time counts.  Invariants: the default configuration is always
 * measured first, so the result is never slower than it (as measured);
 * the same seed gives the same sequence of candidates.
 */
#pragma once

#include "hl/HLIR.h"
#include "ll/Config.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace mdh::tune {

struct TuneOptions {
  int evaluations = 64;     ///< candidates to measure (including the default)
  double seconds = 600;     ///< wall-time budget
  int batch = 8;            ///< candidates per compiled library
  int repetitions = 5;      ///< timed runs per candidate (median), after one warm-up
  uint64_t seed = 1;
  int threads = 0;
  double candidateTimeout = 20; ///< seconds per batch run before the child is killed
  std::function<void(const std::string &)> log; ///< progress lines
};

struct Measurement {
  ll::Config config;
  double seconds = 0;       ///< median; < 0 when the candidate failed
  std::string failure;
};

struct TuneResult {
  Measurement best;
  Measurement baseline;                ///< the default configuration
  std::vector<Measurement> history;    ///< every candidate, in evaluation order
};

TuneResult tune(const hl::Program &prog, const TuneOptions &opts);

} // namespace mdh::tune
