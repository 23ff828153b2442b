/** \file
 * Differential testing of generated code against the reference interpreter.
 *
 * For one instantiated program: random inputs from a seed, the interpreter's
 * outputs, then the default configuration (which must itself be valid: an
 * invalid default is reported like a mismatch) and N random valid configurations,
 * all compiled into one shared library, each run and compared with the
 * interpreter — exactly for integers, records and bools, and for floats
 * exactly or within a tolerance (`floatTolerance`, relative).  On a mismatch
 * the result carries a reproducer: program, instantiation, configuration
 * JSON and seed.  Invariant: a run never stops at the first compiler error
 * of a candidate silently — build failures are mismatches too, and so are
 * OpenMP kernels that crash or run past the time limit (they run in a child
 * process).
 */
#pragma once

#include "hl/HLIR.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace mdh::testing {

struct DiffTestOptions {
  int randomConfigs = 8;
  /// Configurations given as JSON (partial ones are completed by the
  /// default), tested besides the default and the random ones.
  std::vector<std::string> extraConfigs;
  uint64_t seed = 1;
  std::string optFlags = "-O1"; ///< OpenMP: after -march=native, which they can narrow
  double floatTolerance = 0; ///< 0: bit-exact
  bool verbose = false;
  std::string keepDir;       ///< keep the generated source here
  /// "openmp", "opencl" (kernels of the GPU plan on the default OpenCL
  /// device, e.g. PoCL; configurations of the `opencl` model with the
  /// device's limits) or "cuda" (the same plan's CUDA kernels, built by
  /// nvcc for CUDA device 0 and run there; the `cuda` model with its limits).
  std::string backend = "openmp";
  /// Wall-clock limit of one OpenMP kernel run (its child process).
  double timeoutSeconds = 300;
  /// Values of run-time sizes (`*`); the others are drawn small at random.
  std::map<std::string, int64_t> runtimeSizes;
};

struct DiffTestResult {
  int configurations = 0;
  int mismatches = 0;
  std::string report; ///< reproducers of every mismatch
  /// Set when the request cannot be tested at all, which is no mismatch (and
  /// no pass): a --config that does not fit the program, or inputs the
  /// interpreter rejects (e.g. run-time sizes that put an access outside
  /// its buffer).  Nothing was run.
  std::string unusable;
  /// The compiler died of Ctrl-C (or SIGTERM) while building the generated
  /// code: nothing was compared, and the caller should stop.
  bool interrupted = false;
};

/// `programText` is echoed into reproducers (the .mdh source or its path).
DiffTestResult diffTest(const hl::Program &prog, const std::string &programText, const DiffTestOptions &opts);

} // namespace mdh::testing
