/** \file
 * Interactive line input for the REPL on a terminal: libedit (BSD
 * editline) with emacs key bindings, a persistent history file and tab
 * completion through a callback.  Header-only so that only the `mdhi`
 * executable links libedit (tools/CMakeLists.txt defines MDH_HAVE_LIBEDIT
 * when it is found); without it a plain prompt-and-getline fallback is used.
 *
 * Invariants: Ctrl-C while editing discards the line instead of ending the
 * program, whenever it arrives; the history file is written after every
 * entered line, so a crash loses nothing.
 *
 * Why a character reader of our own (EL_GETCFN): libedit's built-in one
 * notices a Ctrl-C only when the signal interrupts its read.  One that lands
 * while it is busy with earlier keys (the terminal then flushes the keys not
 * yet read) left the typed text on the line and the next read waiting for a
 * key.  Ours keeps SIGINT blocked outside its wait (ppoll) and tests the
 * interrupt flag (tune/Interrupt.h) before each wait, so a Ctrl-C at any
 * moment ends the line.
 */
#pragma once

#include <csignal>
#include <cstdio>
#include <functional>
#include <iostream>
#include <string>
#include <vector>

#ifdef MDH_HAVE_LIBEDIT
#include "tune/Interrupt.h"

#include <cerrno>
#include <climits>
#include <cwchar>
#include <fcntl.h>
#include <histedit.h>
#include <poll.h>
#include <signal.h>
#include <unistd.h>
#endif

namespace mdh::interp {

class LineEditor {
public:
  /// Candidates for the word ending at the cursor; sets where that word starts.
  using Completer = std::function<std::vector<std::string>(const std::string &beforeCursor, size_t &wordStart)>;

  LineEditor(const char *program, std::string historyFile, Completer completer)
      : historyFile_(std::move(historyFile)), completer_(std::move(completer)) {
#ifdef MDH_HAVE_LIBEDIT
    if (const char *terminal = ttyname(STDIN_FILENO)) {
      const int fd = open(terminal, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
      if (fd >= 0) {
        inputFd_ = fd;
        ownsInputFd_ = true;
      }
    }
    el_ = el_init(program, stdin, stdout, stderr);
    hist_ = history_init();
    history(hist_, &ev_, H_SETSIZE, 2000);
    history(hist_, &ev_, H_SETUNIQUE, 1);
    if (!historyFile_.empty()) history(hist_, &ev_, H_LOAD, historyFile_.c_str());
    el_set(el_, EL_CLIENTDATA, this);
    el_set(el_, EL_PROMPT, &LineEditor::promptOf);
    el_set(el_, EL_EDITOR, "emacs");
    el_set(el_, EL_GETCFN, &LineEditor::readCharacter);
    el_set(el_, EL_HIST, history, hist_);
    el_set(el_, EL_ADDFN, "mdhi-complete", "complete a command, option, file or name", &LineEditor::completeAtCursor);
    el_set(el_, EL_BIND, "^I", "mdhi-complete", nullptr);
    el_source(el_, nullptr); // the user's ~/.editrc, if any
#else
    (void)program;
#endif
  }

  ~LineEditor() {
#ifdef MDH_HAVE_LIBEDIT
    el_end(el_);
    history_end(hist_);
    if (ownsInputFd_) close(inputFd_);
#endif
  }

  LineEditor(const LineEditor &) = delete;
  LineEditor &operator=(const LineEditor &) = delete;

  /// Reads one line (without its newline); false at end of input (Ctrl-D).
  bool readLine(const std::string &prompt, std::string &line) {
    prompt_ = prompt;
#ifdef MDH_HAVE_LIBEDIT
    // While the guard lives Ctrl-C only sets the flag readCharacter watches.
    int count = 0;
    bool interrupted = false;
    const char *text = nullptr;
    {
      tune::InterruptGuard guard(tune::InterruptGuard::Signals::CtrlC);
      text = el_gets(el_, &count);
      interrupted = !text && tune::interruptRequested();
    }
    if (interrupted) { // Ctrl-C: drop the line, keep the session
      std::fputs("\n", stdout);
      line.clear();
      el_reset(el_);
      return true;
    }
    if (!text || count <= 0) return false;
    line = text;
    while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.pop_back();
    if (line.find_first_not_of(" \t") != std::string::npos) {
      history(hist_, &ev_, H_ENTER, line.c_str());
      if (!historyFile_.empty()) history(hist_, &ev_, H_SAVE, historyFile_.c_str());
    }
    return true;
#else
    std::fputs(prompt.c_str(), stdout);
    std::fflush(stdout);
    return bool(std::getline(std::cin, line));
#endif
  }

private:
  std::string historyFile_;
  Completer completer_;
  std::string prompt_;
#ifdef MDH_HAVE_LIBEDIT
  EditLine *el_ = nullptr;
  History *hist_ = nullptr;
  /// The terminal opened a second time, non-blocking, for readCharacter
  /// (O_NONBLOCK on standard input itself would leak to the shell that
  /// shares it); standard input itself where that open fails.
  int inputFd_ = STDIN_FILENO;
  bool ownsInputFd_ = false;
  HistEvent ev_;

  static LineEditor *self(EditLine *el) {
    void *p = nullptr;
    el_get(el, EL_CLIENTDATA, &p);
    return static_cast<LineEditor *>(p);
  }

  /// One character for libedit: 1, 0 at end of input, -1 with errno EINTR
  /// once Ctrl-C was pressed.  SIGINT stays blocked except inside ppoll, and
  /// the read does not block, so no Ctrl-C is missed: not one that arrives
  /// before the wait, nor one whose flush of the typed text empties the
  /// input between the wait and the read (the read then finds nothing, and
  /// the signal, still pending, interrupts the next wait).
  static int readCharacter(EditLine *el, wchar_t *out) {
    const int fd = self(el)->inputFd_;
    sigset_t ctrlC, previous;
    sigemptyset(&ctrlC);
    sigaddset(&ctrlC, SIGINT);
    sigprocmask(SIG_BLOCK, &ctrlC, &previous);
    const int result = readCharacterBlocked(fd, previous, out);
    const int savedErrno = errno;
    sigprocmask(SIG_SETMASK, &previous, nullptr);
    errno = savedErrno;
    return result;
  }

  static int readCharacterBlocked(int fd, const sigset_t &unblocked, wchar_t *out) {
    char bytes[MB_LEN_MAX];
    size_t held = 0;
    *out = L'\0';
    for (;;) {
      if (tune::interruptRequested()) {
        errno = EINTR;
        return -1;
      }
      pollfd ready{fd, POLLIN, 0};
      if (ppoll(&ready, 1, nullptr, &unblocked) < 0) {
        if (errno == EINTR) continue; // the flag decides, at the top
        return -1;
      }
      char byte = 0;
      const ssize_t got = read(fd, &byte, 1);
      if (got == 0) return 0;
      if (got < 0) {
        if (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK) continue;
        return -1;
      }
      bytes[held++] = byte;
      std::mbstate_t state{};
      const size_t decoded = std::mbrtowc(out, bytes, held, &state);
      if (decoded == size_t(-2) && held < sizeof bytes) continue; // more bytes of one character
      if (decoded == size_t(-1) || decoded == size_t(-2)) { // not a character: drop it
        held = 0;
        continue;
      }
      return 1;
    }
  }

  static char *promptOf(EditLine *el) { return const_cast<char *>(self(el)->prompt_.c_str()); }

  static unsigned char completeAtCursor(EditLine *el, int) {
    LineEditor *me = self(el);
    const LineInfo *li = el_line(el);
    std::string before(li->buffer, size_t(li->cursor - li->buffer));
    size_t start = before.size();
    std::vector<std::string> cands = me->completer_(before, start);
    std::string word = before.substr(start);
    if (cands.empty()) return CC_ERROR;
    std::string common = cands[0];
    for (const auto &c : cands) {
      size_t n = 0;
      while (n < common.size() && n < c.size() && common[n] == c[n]) ++n;
      common.resize(n);
    }
    if (common.size() > word.size()) {
      std::string insert = common.substr(word.size());
      if (cands.size() == 1 && insert.back() != '/') insert += ' ';
      el_insertstr(el, insert.c_str());
      return CC_REFRESH;
    }
    if (cands.size() == 1) {
      if (!common.empty() && common.back() != '/') el_insertstr(el, " ");
      return CC_REFRESH;
    }
    size_t width = 0;
    for (const auto &c : cands) width = std::max(width, c.size());
    const size_t perLine = std::max<size_t>(1, 78 / (width + 2));
    std::fputs("\n", stdout);
    for (size_t i = 0; i < cands.size(); ++i)
      std::fprintf(stdout, "%-*s%s", int(width + 2), cands[i].c_str(), (i + 1) % perLine == 0 || i + 1 == cands.size() ? "\n" : "");
    return CC_REDISPLAY;
  }
#endif
};

} // namespace mdh::interp
