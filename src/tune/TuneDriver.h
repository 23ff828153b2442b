/** \file
 * What `mdhc tune` and `mdhc compile --tune` do with an instantiated
 * program: open the compile cache and the tuning database for its key, run
 * (or resume) a tuning session within a budget, print the summary, and
 * hand back the best configuration; or print what the database holds.
 *
 * Backends: `openmp` (OpenMPBackend), `opencl` (OpenCLBackend, the
 * default OpenCL device) and `cuda` (CudaBackend, CUDA device 0 and nvcc);
 * exit 1 with the reason when the device or compiler is missing.
 *
 * Exit statuses: 0 success, 1 error (message printed), 3 wrong result of a
 * candidate (a compiler bug; reproducer written), 130 interrupted (every
 * finished measurement is in the database).
 */
#pragma once

#include "hl/HLIR.h"
#include "ll/Config.h"
#include "tune/Tuner.h"
#include "tune/TuningDb.h"

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
  std::string backend = "openmp"; ///< openmp | opencl | cuda: what is measured (part of the database key)
  /// `compile --tune`: only tune for what the budget (tune.evaluations,
  /// tune.seconds) has left after the sessions recorded in the database.
  bool remainingBudgetOnly = false;
};

/// Tunes (or resumes); on success `best` is the fastest recorded configuration.
int runTuning(const hl::Program &prog, const DriverOptions &o, std::optional<ll::Config> &best);

/// The summary a tuning session prints: `tune: best ...` with the best and
/// the default configuration's times (side by side when this session re-timed
/// them, `confirmation` being that re-timing; else single measurements), and
/// when the default is kept, that it is and how the fastest other candidate
/// compared.
std::string tuneSummary(const TuneResult &r, const ConfirmationRecord *confirmation);

/// Prints the database's records of this instantiation (best first) to stdout.
int showTuning(const hl::Program &prog, const DriverOptions &o);

} // namespace mdh::tune
