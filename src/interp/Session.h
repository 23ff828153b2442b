/** \file
 * An interpreter session: the loaded files (plus declarations typed into
 * the REPL) as one Compilation, the settings that `:set` remembers, and the
 * buffers of the last run for `:print`.  Both front ends of `mdhi` use it:
 * `mdhi run` makes one session and runs once, the REPL keeps one alive.
 *
 * Invariants: every operation reports its problems to the session's error
 * stream (diagnostics rustc-style, data errors as `error: ...`) and returns
 * false — nothing throws out of a Session, so an error never ends a REPL;
 * a failed run leaves no output file behind (AtomicFiles.h) and keeps the
 * previous run's buffers; a failed reload or definition keeps the previous
 * state.
 */
#pragma once

#include "data/BufferData.h"
#include "driver/Compilation.h"
#include "interp/RunRequest.h"

#include <cstdio>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace mdh::interp {

/// How a run ended; `mdhi run` exits with 0, 1 and 2 for them.
enum class RunOutcome {
  Done,
  Failed,    ///< the program, its data or an evaluation failed
  Malformed, ///< the request itself is malformed (its syntax, buffer names that do not exist, options that exclude each other)
};

struct SessionOptions {
  std::vector<std::string> includeDirs;
  FILE *out = stdout;
  FILE *err = stderr;
  bool color = false;
};

class Session {
public:
  explicit Session(SessionOptions opts);
  ~Session();
  Session(const Session &) = delete;
  Session &operator=(const Session &) = delete;

  /// Loads files (replacing what was loaded; REPL declarations are kept).
  bool load(const std::vector<std::string> &files);
  /// Loads the same files again (after editing them).
  bool reload();
  /// Adds declarations typed at the REPL; on errors they are not kept.
  bool define(const std::string &text);

  /// Instantiates, evaluates, prints and writes what `r` asks for.
  RunOutcome execute(const RunRequest &r);
  /// execute(), for callers that only need to know whether it worked.
  bool run(const RunRequest &r);

  /// `:type NAME` — the signature of a declaration.
  bool showType(const std::string &name);
  /// `:info NAME` — documentation, location, signature and details.
  bool showInfo(const std::string &name);
  /// `:browse` — every declaration, grouped by kind.
  void browse();
  /// `:print` — the last run's buffers; `:print NAME` or `:print NAME[i,j]`.
  bool print(const std::string &what);

  /// Settings `:set` remembers and every `:run` starts from.
  RunRequest &defaults() { return defaults_; }
  /// Names for tab completion: declarations, buffers of the last run.
  std::vector<std::string> completionNames() const;
  const std::vector<std::string> &files() const { return files_; }
  bool loaded() const { return comp_ != nullptr; }

private:
  struct LastRun;

  SessionOptions opts_;
  std::unique_ptr<Compilation> comp_;
  std::vector<std::string> files_;
  std::vector<std::string> failedFiles_; ///< the last :load that failed, retried by :reload
  std::string replText_;
  /// The loaded files' own diagnostics as printed by the load: a rebuild for typed
  /// declarations repeats them and prints only the others (an error that a typed
  /// instantiation raises at a location in a file is one of those).
  std::set<std::string> fileDiagnosticsAtLoad_;
  RunRequest defaults_;
  std::unique_ptr<LastRun> last_;

  bool rebuild(const std::vector<std::string> &files, const std::string &replText, bool showFileDiagnostics);
  /// Prints the diagnostics from index `first` on; with skipLoaded, not those in
  /// fileDiagnosticsAtLoad_.  Returns the rendered ones located in files.
  std::set<std::string> printDiagnosticsFrom(size_t first, bool skipLoaded);
  RunOutcome runChecked(const RunRequest &r);
  void error(const std::string &message);
  std::string declSignature(const std::string &name) const;
};

} // namespace mdh::interp
