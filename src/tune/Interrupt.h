/** \file
 * Ctrl-C handling for a tuning run.
 *
 * While an InterruptGuard lives, SIGINT and SIGTERM only set a flag (and
 * interrupt blocking calls with EINTR) instead of killing the process, so
 * the tuner can kill the child it is measuring, keep every finished
 * measurement, and exit with status 130.  The flag is the one piece of
 * process-wide state here — signals are process-wide by nature; it is only
 * written by the handler and only read through interruptRequested().
 * Children reset both signals to their defaults (resetSignalsInChild).
 */
#pragma once

namespace mdh::tune {

class InterruptGuard {
public:
  InterruptGuard();
  ~InterruptGuard();
  InterruptGuard(const InterruptGuard &) = delete;
  InterruptGuard &operator=(const InterruptGuard &) = delete;
};

/// Whether SIGINT or SIGTERM arrived while a guard was installed.
bool interruptRequested();
/// In a forked child: default signal dispositions again.
void resetSignalsInChild();

} // namespace mdh::tune
