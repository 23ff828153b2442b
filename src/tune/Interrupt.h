/** \file
 * Ctrl-C handling for long operations: a tuning run, an evaluation in the
 * `mdhi` REPL.
 *
 * While an InterruptGuard lives, SIGINT (and SIGTERM, unless the guard is
 * for Ctrl-C only) only sets a flag (and interrupts blocking calls with
 * EINTR) instead of killing the process, so the tuner can kill the child it
 * is measuring, keep every finished measurement, and exit with status 130,
 * and the REPL can stop an evaluation and keep the session.  The flag is the
 * one piece of process-wide state here — signals are process-wide by nature;
 * it is written by the handler, cleared when a guard is installed, and only
 * read through interruptRequested().  Children reset both signals to their
 * defaults (resetSignalsInChild).
 */
#pragma once

namespace mdh::tune {

class InterruptGuard {
public:
  /// Which signals only set the flag while the guard lives.
  enum class Signals { CtrlC, CtrlCAndTerminate };
  explicit InterruptGuard(Signals signals = Signals::CtrlCAndTerminate);
  ~InterruptGuard();
  InterruptGuard(const InterruptGuard &) = delete;
  InterruptGuard &operator=(const InterruptGuard &) = delete;

private:
  bool terminateToo_;
};

/// Whether SIGINT or SIGTERM arrived since the newest guard was installed.
bool interruptRequested();
/// In a forked child: default signal dispositions again.
void resetSignalsInChild();

} // namespace mdh::tune
