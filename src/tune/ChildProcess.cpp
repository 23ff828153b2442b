/** \file
 * Child processes: measurement children and compiler processes.
 */
#include "tune/ChildProcess.h"

#include "tune/Interrupt.h"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <fmt/format.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

namespace mdh::tune {

std::string ChildOutcome::describe() const {
  switch (kind) {
  case Kind::Exited: return code == 0 ? "finished" : fmt::format("exited with status {}", code);
  case Kind::Crashed: return fmt::format("crashed ({})", strsignal(code));
  case Kind::TimedOut: return "ran past its time limit and was killed";
  case Kind::Interrupted: return "interrupted";
  }
  return "?";
}

void writeAllOrExit(int fd, const void *data, size_t size) {
  const char *p = static_cast<const char *>(data);
  for (size_t off = 0; off < size;) {
    ssize_t n = write(fd, p + off, size - off);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) _exit(1);
    off += size_t(n);
  }
}

ChildOutcome runInChild(double timeoutSeconds, const std::function<void(int fd)> &work) {
  using Clock = std::chrono::steady_clock;
  ChildOutcome out;
  int fds[2];
  if (pipe(fds) != 0) {
    out.kind = ChildOutcome::Kind::Crashed;
    return out;
  }
  const pid_t parent = getpid();
  pid_t pid = fork();
  if (pid == 0) {
    resetSignalsInChild();
    prctl(PR_SET_PDEATHSIG, SIGKILL); // a measurement outlives no tuner
    if (getppid() != parent) _exit(1);
    close(fds[0]);
    work(fds[1]);
    _exit(0);
  }
  close(fds[1]);
  if (pid < 0) {
    close(fds[0]);
    out.kind = ChildOutcome::Kind::Crashed;
    return out;
  }
  auto deadline = Clock::now() + std::chrono::duration<double>(timeoutSeconds);
  char chunk[65536];
  bool killed = false;
  while (true) {
    if (interruptRequested()) {
      kill(pid, SIGKILL);
      out.kind = ChildOutcome::Kind::Interrupted;
      killed = true;
      break;
    }
    double left = std::chrono::duration<double>(deadline - Clock::now()).count();
    if (left <= 0) {
      kill(pid, SIGKILL);
      out.kind = ChildOutcome::Kind::TimedOut;
      killed = true;
      break;
    }
    pollfd p{fds[0], POLLIN, 0};
    int r = poll(&p, 1, std::min(int(left * 1000) + 1, 200));
    if (r <= 0) continue; // timeout slice or EINTR: re-check the flags
    ssize_t n = read(fds[0], chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    out.output.append(chunk, size_t(n));
  }
  close(fds[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (killed) return out;
  if (WIFSIGNALED(status)) {
    out.kind = ChildOutcome::Kind::Crashed;
    out.code = WTERMSIG(status);
    if (out.code == SIGINT || out.code == SIGTERM) out.kind = ChildOutcome::Kind::Interrupted;
  } else {
    out.code = WEXITSTATUS(status);
  }
  return out;
}

std::vector<int> runCommands(const std::vector<std::string> &commands) {
  std::vector<pid_t> pids;
  const pid_t parent = getpid();
  for (const auto &cmd : commands) {
    const char *argv[] = {"sh", "-c", cmd.c_str(), nullptr};
    pid_t pid = fork();
    if (pid == 0) {
      // A process group of its own, so that an interrupt kills the compiler under
      // the shell too (killing only `sh` left it running for seconds); SIGTERM when
      // the tuner dies, even by SIGKILL, which `timeout` passes on to the compiler
      // (orphaned compilers kept both cores busy up to their time limit).
      setpgid(0, 0);
      prctl(PR_SET_PDEATHSIG, SIGTERM);
      if (getppid() != parent) _exit(127); // the tuner died before prctl
      execve("/bin/sh", const_cast<char **>(argv), environ);
      _exit(127);
    }
    pids.push_back(pid);
  }
  std::vector<int> rcs(commands.size(), -1);
  for (size_t i = 0; i < pids.size(); ++i) {
    if (pids[i] < 0) continue;
    int status = 0;
    while (true) {
      pid_t r = waitpid(pids[i], &status, 0);
      if (r == pids[i]) break;
      if (errno != EINTR) break;
      if (interruptRequested())
        for (size_t k = i; k < pids.size(); ++k)
          if (pids[k] > 0) kill(-pids[k], SIGKILL);
    }
    rcs[i] = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
  if (interruptRequested()) std::fill(rcs.begin(), rcs.end(), -1);
  return rcs;
}

} // namespace mdh::tune
