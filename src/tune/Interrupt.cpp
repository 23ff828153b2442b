/** \file
 * InterruptGuard: SIGINT (and SIGTERM) set a flag while a guard lives.
 */
#include "tune/Interrupt.h"

#include <csignal>
#include <signal.h>

namespace mdh::tune {
namespace {

volatile std::sig_atomic_t interrupted = 0; // set by onSignal, cleared by a new guard
struct sigaction previousInt, previousTerm;

void onSignal(int) { interrupted = 1; }

} // namespace

InterruptGuard::InterruptGuard(Signals signals) : terminateToo_(signals == Signals::CtrlCAndTerminate) {
  interrupted = 0;
  struct sigaction sa {};
  sa.sa_handler = onSignal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = 0; // no SA_RESTART: blocking calls return EINTR
  sigaction(SIGINT, &sa, &previousInt);
  if (terminateToo_) sigaction(SIGTERM, &sa, &previousTerm);
  // A full disk under a file-size limit must be a write error, not a kill.
  signal(SIGXFSZ, SIG_IGN);
}

InterruptGuard::~InterruptGuard() {
  sigaction(SIGINT, &previousInt, nullptr);
  if (terminateToo_) sigaction(SIGTERM, &previousTerm, nullptr);
}

bool interruptRequested() { return interrupted != 0; }

void resetSignalsInChild() {
  signal(SIGINT, SIG_DFL);
  signal(SIGTERM, SIG_DFL);
}

} // namespace mdh::tune
