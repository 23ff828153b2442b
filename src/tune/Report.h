/** \file
 * The `--report DIR` of a tuning run: `tuning.csv` (one row per
 * evaluation, resumed ones included) and `convergence.svg` (best-so-far
 * against evaluations and against tuning time, every measurement as a dot,
 * the default configuration as a dashed line; log-scaled time axis; slower
 * measurements than the axis shows drawn as triangles on its top edge and
 * counted) and `result.txt` (the tuner's verdict, after any side-by-side
 * re-timing, and the configuration it chose). The plot's subtitle is that
 * verdict too: the search's own best is not always what was chosen.
 * All files are written atomically (data::AtomicFileSet).
 */
#pragma once

#include <string>
#include <vector>

namespace mdh::tune {

struct ReportRow {
  int evaluation = 0;
  double elapsed = 0;      ///< cumulative tuning seconds
  std::string technique;
  std::string status;      ///< ok | failed | resumed-ok | resumed-failed
  double median = -1;      ///< seconds (< 0: failed)
  double best = -1;        ///< best so far, seconds
  std::string configHash;
  std::string configJson;
};

/// What the run decided: `verdict` (one line, e.g. the `tune: best ...` summary)
/// and the configuration written (JSON; empty when none).
struct ReportOutcome {
  std::string verdict;
  std::string chosenConfigJson;
};

/// Throws (data::DataError / std::exception) with a message when a file cannot be written.
void writeReport(const std::string &dir, const std::vector<ReportRow> &rows, double baseline, const std::string &title,
                 const ReportOutcome &outcome);

/// The SVG text (exposed for tests).
std::string convergenceSvg(const std::vector<ReportRow> &rows, double baseline, const std::string &title,
                           const std::string &verdict);

} // namespace mdh::tune
