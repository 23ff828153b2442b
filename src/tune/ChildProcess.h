/** \file
 * Isolation of generated code: work runs in a forked child process that
 * reports through a pipe, under a wall-clock limit.
 *
 * Generated code runs only in children — OpenMP's thread pool does not
 * survive fork(), and a crash or hang must not end the tuner.  Invariants:
 * the child is always reaped; it is killed (SIGKILL) when it runs past the
 * limit or when the user interrupts the tuner; the outcome says which.
 */
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace mdh::tune {

struct ChildOutcome {
  enum class Kind { Exited, Crashed, TimedOut, Interrupted } kind = Kind::Exited;
  int code = 0;        ///< exit status (Exited) or signal number (Crashed)
  std::string output;  ///< everything the child wrote to its pipe
  std::string describe() const;
};

/// Runs `work(fd)` in a child; `fd` is the write end of the pipe.
ChildOutcome runInChild(double timeoutSeconds, const std::function<void(int fd)> &work);

/// Writes all of `data` to `fd` (in a child: exits on failure).
void writeAllOrExit(int fd, const void *data, size_t size);

/// Runs the shell commands concurrently and waits for all of them; returns
/// their exit statuses (-1 when interrupted or not started).  Used for
/// compiling, never while measuring.
std::vector<int> runCommands(const std::vector<std::string> &commands);

} // namespace mdh::tune
