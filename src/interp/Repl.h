/** \file
 * The read-eval-print loop of `mdhi`, independent of any terminal: lines
 * go in through feed(), output goes to the session's streams.  The CLI
 * drives it with libedit (LineEditor.h) on a terminal and line by line from
 * stdin otherwise, which is how tests script it.
 *
 * Input is either a command (`:load`, `:reload`, `:run`, `:type`, `:info`,
 * `:browse`, `:set`, `:unset`, `:print`, `:help`, `:quit`; any prefix works,
 * ties go to the earlier command in that list, as in GHCi: `:r` is
 * `:reload`, `:ru` is `:run`), a bare entry name (short for `:run NAME`), or
 * declarations, which may span lines: input is collected until brackets
 * balance and it ends with `;` or `}` (or inside `:{` … `:}`).  What is
 * pending is submitted early by an empty line, by a command (`:` directly
 * followed by a command's name; `: 0 - a;` continues a conditional), and by a
 * closing bracket without an opening one, which no later line can balance.
 * Invariant: no input ends the loop except `:quit` (or end of input);
 * errors are reported and remembered (hadErrors).
 *
 * On a terminal, Ctrl-C during a run stops the evaluation and keeps the
 * session (interruptRunsOnCtrlC; a script is stopped by Ctrl-C as usual).
 */
#pragma once

#include "interp/Session.h"

#include <string>
#include <vector>

namespace mdh::interp {

class Repl {
public:
  explicit Repl(Session &session, FILE *out, FILE *err);

  /// Handles one input line; returns false after `:quit`.
  bool feed(const std::string &line);
  /// Whether declarations spanning several lines are being collected.
  bool pending() const { return !pending_.empty() || inBlock_; }
  std::string prompt() const { return pending() ? "   ...| " : "mdhi> "; }
  /// Candidates for the word that ends at the cursor; `wordStart` is where it begins.
  std::vector<std::string> complete(const std::string &beforeCursor, size_t &wordStart) const;
  bool hadErrors() const { return hadErrors_; }
  /// From now on Ctrl-C during a run stops that run instead of the program.
  void interruptRunsOnCtrlC() { ctrlCStopsRuns_ = true; }

  static std::string helpText();

private:
  Session &session_;
  FILE *out_, *err_;
  std::string pending_;
  bool inBlock_ = false;
  bool hadErrors_ = false;
  bool ctrlCStopsRuns_ = false;

  bool command(const std::string &line);
  void submit();
  void note(bool ok) { hadErrors_ |= !ok; }
  bool runCommand(const std::vector<std::string> &args);
  /// Runs through the session, stoppable by Ctrl-C when ctrlCStopsRuns_.
  bool run(RunRequest r);
  bool setCommand(const std::vector<std::string> &args);
  bool unsetCommand(const std::vector<std::string> &args);
  void showSettings() const;
};

/// Splits a command line into words; single or double quotes group words.
std::vector<std::string> splitWords(const std::string &s);

} // namespace mdh::interp
