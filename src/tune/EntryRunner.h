/** \file
 * Timing one compiled candidate through its generic entry
 * `<symbol>_run(const int64_t *sizes, void *const *buffers)`, in a forked
 * child: load the library, one warm-up run (its outputs go to the check
 * callback) and more untimed ones while they fit in the request's
 * `warmupSeconds`, then `repetitions` timed runs (median); shared by the OpenMP
 * and OpenCL measurement backends.  The CUDA backend's entries time
 * themselves (`EntryRunOptions::selfTimed`); the checks are the same.
 *
 * Invariants: generated code runs only in the child (ChildProcess.h); a
 * load failure, a non-zero entry status (when `checkStatus`), a crash or a
 * time-out is a Failed result with a message, never an exception; the
 * outputs come back only when the request asks for them.
 */
#pragma once

#include "tune/CandidateBackend.h"

namespace mdh::tune {

struct EntryRunOptions {
  /// A non-zero return of the entry fails the candidate (GPU entries return a status).
  bool checkStatus = false;
  /// Seconds added to the request's time limit (e.g. run-time kernel compilation).
  double extraSeconds = 0;
  /// What the entry's status means, for messages ("OpenCL status").
  std::string statusName = "status";
  /// Call `<symbol>_bench(sizes, buffers, repetitions, report, ctx)` instead,
  /// which runs the warm-up and the timed runs itself and reports each run's
  /// time through the callback (run -1: the warm-up, whose outputs it has
  /// copied into the buffers); a non-zero status fails the candidate.  The
  /// CUDA backend's way: it times kernels with events on device-resident data.
  bool selfTimed = false;
};

RunResult runGenericEntry(const BuiltCandidate &c, const RunRequest &req, const EntryRunOptions &o = {});

} // namespace mdh::tune
