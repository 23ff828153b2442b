/** \file
 * What `mdhc tune` and `mdhc compile --tune` do with an instantiated
 * program: open the compile cache and the tuning database for its key, run
 * (or resume) a tuning session within a budget, print the summary, and
 * hand back the best configuration; or print what the database holds.
 *
 * Exit statuses: 0 success, 1 error (message printed), 3 wrong result of a
 * candidate (a compiler bug; reproducer written), 130 interrupted (every
 * finished measurement is in the database).
 */
#pragma once

#include "hl/HLIR.h"
#include "ll/Config.h"
#include "tune/Tuner.h"

#include <optional>
#include <string>
#include <vector>

namespace mdh::tune {

struct DriverOptions {
  TuneOptions tune;
  std::vector<std::string> sets;  ///< the --set items (the database key)
  std::string dbDir;              ///< empty: TuningDb::defaultDir()
  std::string cacheDir;           ///< empty: CompileCache::defaultDir()
  int jobs = 0;                   ///< concurrent compiles (0: up to 2, as many as cores)
  /// `compile --tune`: only tune for what the budget (tune.evaluations,
  /// tune.seconds) has left after the sessions recorded in the database.
  bool remainingBudgetOnly = false;
};

/// Tunes (or resumes); on success `best` is the fastest recorded configuration.
int runTuning(const hl::Program &prog, const DriverOptions &o, std::optional<ll::Config> &best);

/// Prints the database's records of this instantiation (best first) to stdout.
int showTuning(const hl::Program &prog, const DriverOptions &o);

} // namespace mdh::tune
