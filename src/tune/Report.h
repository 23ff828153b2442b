/** \file
 * The `--report DIR` of a tuning run: `tuning.csv` (one row per
 * evaluation, resumed ones included) and `convergence.svg` (best-so-far
 * against evaluations and against tuning time, every measurement as a dot,
 * the default configuration as a dashed line; log-scaled time axis).
 * Both files are written atomically (data::AtomicFileSet).
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

/// Throws (data::DataError / std::exception) with a message when a file cannot be written.
void writeReport(const std::string &dir, const std::vector<ReportRow> &rows, double baseline, const std::string &title);

/// The SVG text (exposed for tests).
std::string convergenceSvg(const std::vector<ReportRow> &rows, double baseline, const std::string &title);

} // namespace mdh::tune
