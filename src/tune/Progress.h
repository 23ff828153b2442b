/** \file
 * Progress display of a tuning run on stderr: a one-line bar (evaluations,
 * best so far, speed-up over the default, ETA) redrawn in place when stderr
 * is a terminal, plain log lines otherwise (CI logs, pipes).
 */
#pragma once

#include <cstdio>
#include <string>

namespace mdh::tune {

/// A time in milliseconds for messages: three decimals, or three significant digits
/// below 0.1 ms (a 2 us kernel is `0.00194`, not `0.000`).
std::string msText(double seconds);

struct ProgressState {
  int evaluations = 0;       ///< new measurements of this session
  int budgetEvaluations = 0;
  double elapsed = 0;        ///< seconds of this session
  double budgetSeconds = 0;
  double best = -1;          ///< seconds
  double baseline = -1;      ///< the default configuration's seconds
  std::string last;          ///< what the last evaluation did, e.g. `annealing ok 3.2 ms`
};

class Progress {
public:
  Progress(std::FILE *out, bool terminal) : out_(out), terminal_(terminal) {}
  ~Progress() { finish(); }
  void update(const ProgressState &s);
  /// A message line (above the bar on a terminal).
  void message(const std::string &line);
  /// Ends the bar line.
  void finish();

private:
  std::FILE *out_;
  bool terminal_;
  bool barShown_ = false;
  ProgressState last_;
};

/// `1m20s`, `45s`, `2h03m`.
std::string formatDuration(double seconds);

} // namespace mdh::tune
