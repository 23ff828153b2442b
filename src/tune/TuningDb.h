/** \file
 * The tuning database: every finished measurement of every tuning run,
 * keyed by (program hash, entry, instantiation, backend, machine
 * signature), so that runs resume and `mdhc compile --tune` reuses them.
 *
 * Location: $MDH_TUNE_DB, else ~/.cache/mdh/tuning (a directory; `--db`
 * overrides).  One JSON-lines file per key, `<key id>.jsonl`: a key line,
 * then one line per measurement, one per finished session and one per
 * confirmation (the fastest candidates re-timed side by side).
 *
 * The configuration to use is the fastest of the latest confirmation when
 * one exists: a single measurement on a noisy machine can be lucky, a
 * ranking from interleaved rounds is much less so. The default configuration
 * stays unless that fastest one beats it by more than twice the larger
 * relative spread (median absolute deviation) of the two, and by at least 1%,
 * or beats it in every re-timing, or pair by pair (a sign test over re-timings
 * taken at the same place of the same round).
 *
 * Invariants (crash safety): a record is appended with a single write()
 * and fsync()ed before append() returns, so a finished measurement is
 * never lost by a crash, SIGKILL or Ctrl-C afterwards.  A torn last line
 * (a crash mid-write) is ignored by the reader and cut off by the next
 * writer; a failed write (full disk) truncates the file back to its
 * previous length and throws, so old records stay intact.
 */
#pragma once

#include "ll/Config.h"

#include <nlohmann/json.hpp>

#include <stdexcept>
#include <functional>
#include <string>
#include <vector>

namespace mdh::tune {

struct TuningKey {
  std::string programHash;   ///< hash of the instantiated program's canonical text
  std::string entry;
  std::string instantiation; ///< the --set values, sorted: `I=1024,J=1024,T=f32`
  std::string backend;       ///< `openmp`, ...
  std::string machine;       ///< machineSignature()
  /// Hash of the code the backend emits for the default configuration: a
  /// compiler whose code generation changed does not reuse the old
  /// compiler's measurements (they time other code).
  std::string codegen;

  nlohmann::json toJson() const;
  /// The file name stem: a hash of all fields.
  std::string id() const;
};

/// CPU (model name, family, model number, L3 size), core count and toolchain (compiler and
/// version).
std::string machineSignature(const std::string &toolchain);

struct TuningRecord {
  std::string configHash;
  ll::Config config;
  bool ok = false;           ///< measured and correct
  double median = -1;        ///< seconds
  std::vector<double> times;
  std::string failure;       ///< why it failed (compile error, crash, time-out)
  std::string technique;     ///< which technique proposed it
  double cost = 0;           ///< tuning seconds it took (its compile share + its runs)
  double elapsed = 0;        ///< cumulative tuning seconds of this key when it finished
  double at = 0;             ///< Unix time
};

struct SessionRecord {
  std::string stop;          ///< evaluations | seconds | plateau | exhausted | interrupted
  int evaluations = 0;       ///< new measurements of the session
  double seconds = 0;
  int budgetEvaluations = 0; ///< the budget it was given
  double budgetSeconds = 0;
};

/// One candidate of a confirmation: every timed run of every round.
struct ConfirmationEntry {
  std::string configHash;
  double median = -1;        ///< seconds; < 0 when it failed on re-timing
  std::vector<double> times;
};

/// The fastest candidates (and the default) re-timed in interleaved rounds.
struct ConfirmationRecord {
  std::vector<ConfirmationEntry> entries;
  int rounds = 0;
  double cost = 0;           ///< tuning seconds it took
  size_t measurements = 0;   ///< records in the database when it ran (later ones are unconfirmed)
  double at = 0;
};

/// The configuration to use and its time.
struct BestRecord {
  const TuningRecord *record = nullptr;
  double seconds = -1;       ///< the confirmed median when `confirmed`, else the record's
  bool confirmed = false;
  explicit operator bool() const { return record != nullptr; }
};

struct DbError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class TuningDb {
public:
  static std::string defaultDir();
  /// Reads the records of `key` from `dir` (none yet is fine); throws DbError
  /// when the directory or file cannot be used.
  TuningDb(std::string dir, TuningKey key);
  ~TuningDb();
  TuningDb(const TuningDb &) = delete;
  TuningDb &operator=(const TuningDb &) = delete;

  const std::string &path() const { return path_; }
  const TuningKey &key() const { return key_; }
  const std::vector<TuningRecord> &records() const { return records_; }
  const std::vector<SessionRecord> &sessions() const { return sessions_; }
  const std::vector<ConfirmationRecord> &confirmations() const { return confirmations_; }
  /// Lines the reader skipped: a torn last line (a crash mid-append, normal)
  /// and damagedLines() (not normal: mdhc never writes them).
  size_t ignoredLines() const { return ignored_; }
  bool tornLastLine() const { return tornLast_; }
  /// 1-based numbers of complete lines that are not readable records: the file
  /// was edited or damaged by something else, and what they held is lost.
  const std::vector<size_t> &damagedLines() const { return damaged_; }
  /// False when the file's first line is not a readable key line, so its
  /// records could not be checked to belong to this key.
  bool keyChecked() const { return keyChecked_; }
  /// Sentences for a warning about the file's state (empty when it is sound or
  /// only has a torn last line).
  std::vector<std::string> problems() const;
  const TuningRecord *find(const std::string &configHash) const;
  /// The fastest entry of the latest confirmation, else the fastest record, among the
  /// records whose configuration `usable` accepts (all when it is empty): a record read
  /// back may be invalid for the program (a hand-edited or foreign file) or break this
  /// run's pins, and is then neither run nor returned.
  BestRecord best(const std::function<bool(const ll::Config &)> &usable = {}) const;
  /// Whether measurements exist that the latest confirmation did not see.
  bool needsConfirmation() const;
  double spentSeconds() const;

  /// Durably appends (see the invariants); throws DbError with a sentence on failure.
  void append(const TuningRecord &r);
  void appendSession(const SessionRecord &s);
  void appendConfirmation(const ConfirmationRecord &c);

  static nlohmann::json toJson(const TuningRecord &r);
  static bool fromJson(const nlohmann::json &j, TuningRecord &r);

private:
  void appendLine(const std::string &line);

  std::string dir_, path_;
  TuningKey key_;
  std::vector<TuningRecord> records_;
  std::vector<SessionRecord> sessions_;
  std::vector<ConfirmationRecord> confirmations_;
  size_t ignored_ = 0;
  bool tornLast_ = false;
  std::vector<size_t> damaged_;
  bool keyChecked_ = true; // no file yet: nothing to check
  int fd_ = -1;
};

} // namespace mdh::tune
