/** \file
 * The tuning report: CSV and a hand-written SVG convergence plot.
 */
#include "tune/Report.h"

#include "data/AtomicFiles.h"
#include "tune/Progress.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fmt/format.h>

namespace mdh::tune {
namespace {

std::string csvField(const std::string &s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

std::string xmlEscape(const std::string &s) {
  std::string o;
  for (char c : s) {
    if (c == '<') o += "&lt;";
    else if (c == '>') o += "&gt;";
    else if (c == '&') o += "&amp;";
    else o += c;
  }
  return o;
}

/// Tick values: 1-2-5 steps covering [lo, hi].
std::vector<double> niceTicks(double lo, double hi, bool log) {
  std::vector<double> t;
  if (log) {
    for (double dec = std::pow(10, std::floor(std::log10(lo))); dec <= hi * 1.0001; dec *= 10)
      for (double m : {1.0, 2.0, 5.0})
        if (m * dec >= lo * 0.9999 && m * dec <= hi * 1.0001) t.push_back(m * dec);
    if (t.size() < 2) t = {lo, hi};
    return t;
  }
  double span = hi - lo, raw = span / 6, mag = std::pow(10, std::floor(std::log10(raw > 0 ? raw : 1)));
  double step = mag;
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (m * mag >= raw) {
      step = m * mag;
      break;
    }
  for (double v = std::ceil(lo / step) * step; v <= hi + step * 1e-9; v += step) t.push_back(v);
  return t;
}

std::string fmtTick(double v) {
  if (v == 0) return "0";
  if (std::fabs(v) >= 100) return fmt::format("{:.0f}", v);
  if (std::fabs(v) >= 1) return fmt::format("{:.3g}", v);
  return fmt::format("{:.2g}", v);
}

/// One panel: best-so-far (step line) and all measurements (dots) against `x`.
std::string panel(const std::vector<ReportRow> &rows, double baseline, bool byTime, double ox, double oy, double w, double h) {
  std::vector<double> xs, ys;
  for (const auto &r : rows) {
    xs.push_back(byTime ? r.elapsed : double(r.evaluation));
    if (r.median > 0) ys.push_back(r.median * 1e3);
  }
  if (baseline > 0) ys.push_back(baseline * 1e3);
  double xmax = xs.empty() ? 1 : std::max(*std::max_element(xs.begin(), xs.end()), byTime ? 1e-3 : 1.0);
  double xmin = byTime ? 0 : 1;
  if (xmax <= xmin) xmax = xmin + 1;
  double ymin = ys.empty() ? 0.1 : *std::min_element(ys.begin(), ys.end()) * 0.8;
  double ymax = ys.empty() ? 1 : std::min(*std::max_element(ys.begin(), ys.end()), (baseline > 0 ? baseline * 1e3 : ymin) * 20) * 1.25;
  if (ymax <= ymin) ymax = ymin * 2;
  auto X = [&](double v) { return ox + (v - xmin) / (xmax - xmin) * w; };
  auto Y = [&](double v) {
    v = std::clamp(v, ymin, ymax);
    return oy + h - (std::log(v) - std::log(ymin)) / (std::log(ymax) - std::log(ymin)) * h;
  };
  std::string s;
  s += fmt::format("<rect x='{}' y='{}' width='{}' height='{}' fill='white' stroke='#444'/>\n", ox, oy, w, h);
  for (double t : niceTicks(ymin, ymax, true)) {
    s += fmt::format("<line x1='{:.1f}' y1='{:.1f}' x2='{:.1f}' y2='{:.1f}' stroke='#ddd'/>\n", ox, Y(t), ox + w, Y(t));
    s += fmt::format("<text x='{:.1f}' y='{:.1f}' text-anchor='end' font-size='11'>{}</text>\n", ox - 5, Y(t) + 4, fmtTick(t));
  }
  for (double t : niceTicks(xmin, xmax, false)) {
    s += fmt::format("<line x1='{:.1f}' y1='{:.1f}' x2='{:.1f}' y2='{:.1f}' stroke='#444'/>\n", X(t), oy + h, X(t), oy + h + 5);
    s += fmt::format("<text x='{:.1f}' y='{:.1f}' text-anchor='middle' font-size='11'>{}</text>\n", X(t), oy + h + 18, fmtTick(t));
  }
  s += fmt::format("<text x='{:.1f}' y='{:.1f}' text-anchor='middle' font-size='12'>{}</text>\n", ox + w / 2, oy + h + 36,
                   byTime ? "tuning time (s)" : "evaluation");
  s += fmt::format("<text transform='translate({:.1f},{:.1f}) rotate(-90)' text-anchor='middle' font-size='12'>run time (ms, log scale)</text>\n",
                   ox - 48, oy + h / 2);
  // Measurements beyond the axis (it covers 25x the default at most, so that a
  // few runaway candidates do not squash the rest) are triangles on its top edge.
  int above = 0;
  double slowest = 0;
  for (size_t i = 0; i < rows.size(); ++i)
    if (rows[i].median > 0 && rows[i].median * 1e3 > ymax) {
      ++above;
      slowest = std::max(slowest, rows[i].median * 1e3);
      const double x = X(xs[i]);
      s += fmt::format("<path d='M{:.1f},{:.1f} L{:.1f},{:.1f} L{:.1f},{:.1f} Z' fill='#e08a00'/>\n", x, oy + 1, x - 4, oy + 8, x + 4,
                       oy + 8);
    } else if (rows[i].median > 0) {
      s += fmt::format("<circle cx='{:.1f}' cy='{:.1f}' r='2.2' fill='#999' fill-opacity='0.6'/>\n", X(xs[i]), Y(rows[i].median * 1e3));
    } else {
      s += fmt::format("<text x='{:.1f}' y='{:.1f}' font-size='9' fill='#c33' text-anchor='middle'>x</text>\n", X(xs[i]), oy + 10);
    }
  if (above > 0)
    s += fmt::format("<text x='{:.1f}' y='{:.1f}' text-anchor='end' font-size='11' fill='#e08a00'>{} slower measurement{} "
                     "above the axis (up to {} ms)</text>\n",
                     ox + w, oy - 4, above, above == 1 ? "" : "s", fmtTick(slowest));
  std::string path;
  for (size_t i = 0; i < rows.size(); ++i) {
    if (rows[i].best <= 0) continue;
    double x = X(xs[i]), y = Y(rows[i].best * 1e3);
    path += path.empty() ? fmt::format("M{:.1f},{:.1f}", x, y) : fmt::format(" H{:.1f} V{:.1f}", x, y);
  }
  if (!path.empty()) {
    path += fmt::format(" H{:.1f}", X(xmax));
    s += fmt::format("<path d='{}' fill='none' stroke='#1f5fbf' stroke-width='2'/>\n", path);
  }
  if (baseline > 0)
    s += fmt::format("<line x1='{:.1f}' y1='{:.1f}' x2='{:.1f}' y2='{:.1f}' stroke='#d03030' stroke-width='1.5' stroke-dasharray='6,4'/>\n",
                     ox, Y(baseline * 1e3), ox + w, Y(baseline * 1e3));
  return s;
}

} // namespace

std::string convergenceSvg(const std::vector<ReportRow> &rows, double baseline, const std::string &title,
                           const std::string &verdict) {
  const double W = 1100, H = 460, pw = 440, ph = 300;
  std::string s = fmt::format("<svg xmlns='http://www.w3.org/2000/svg' width='{}' height='{}' font-family='sans-serif'>\n", W, H);
  s += fmt::format("<rect width='{}' height='{}' fill='#fafafa'/>\n", W, H);
  double best = -1;
  for (const auto &r : rows)
    if (r.best > 0) best = r.best;
  // The search's single measurements (its best may lose the re-timing), then the verdict.
  std::string sub = best > 0 && baseline > 0
                        ? fmt::format("{} evaluations; single measurements: default {} ms, fastest {} ms", rows.size(),
                                      msText(baseline), msText(best))
                        : fmt::format("{} evaluations", rows.size());
  s += fmt::format("<text x='{}' y='24' text-anchor='middle' font-size='16'>{}</text>\n", W / 2, xmlEscape(title));
  s += fmt::format("<text x='{}' y='44' text-anchor='middle' font-size='12' fill='#444'>{}</text>\n", W / 2, xmlEscape(sub));
  if (!verdict.empty())
    s += fmt::format("<text x='{}' y='62' text-anchor='middle' font-size='12' font-weight='bold'>{}</text>\n", W / 2,
                     xmlEscape(verdict));
  s += panel(rows, baseline, false, 80, 90, pw, ph);
  s += panel(rows, baseline, true, 620, 90, pw, ph);
  // Legend.
  double ly = H - 22;
  s += fmt::format("<path d='M80,{0} H110' stroke='#1f5fbf' stroke-width='2'/><text x='116' y='{1}' font-size='12'>best so far</text>\n", ly, ly + 4);
  s += fmt::format("<circle cx='215' cy='{0}' r='3' fill='#999'/><text x='224' y='{1}' font-size='12'>measured candidate</text>\n", ly, ly + 4);
  s += fmt::format("<path d='M360,{0} H390' stroke='#d03030' stroke-width='1.5' stroke-dasharray='6,4'/><text x='396' y='{1}' font-size='12'>default configuration</text>\n", ly, ly + 4);
  s += fmt::format("<text x='560' y='{}' font-size='12' fill='#c33'>x</text><text x='572' y='{}' font-size='12'>failed candidate</text>\n", ly + 4, ly + 4);
  s += fmt::format("<path d='M680,{0} L676,{1} L684,{1} Z' fill='#e08a00'/><text x='690' y='{2}' font-size='12'>slower than the axis</text>\n",
                   ly - 4, ly + 3, ly + 4);
  s += "</svg>\n";
  return s;
}

void writeReport(const std::string &dir, const std::vector<ReportRow> &rows, double baseline, const std::string &title,
                 const ReportOutcome &outcome) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  std::string csv = "evaluation,elapsed_s,technique,status,median_s,best_so_far_s,config_hash,config_json\n";
  for (const auto &r : rows)
    csv += fmt::format("{},{:.3f},{},{},{},{},{},{}\n", r.evaluation, r.elapsed, csvField(r.technique), r.status,
                       r.median > 0 ? fmt::format("{:.9g}", r.median) : "", r.best > 0 ? fmt::format("{:.9g}", r.best) : "",
                       r.configHash, csvField(r.configJson));
  std::string svg = convergenceSvg(rows, baseline, title, outcome.verdict);
  std::string result = outcome.verdict + "\n" +
                       (outcome.chosenConfigJson.empty() ? "no configuration chosen\n"
                                                         : "chosen configuration:\n" + outcome.chosenConfigJson + "\n");
  data::AtomicFileSet files;
  files.stage(dir + "/tuning.csv", std::vector<uint8_t>(csv.begin(), csv.end()));
  files.stage(dir + "/convergence.svg", std::vector<uint8_t>(svg.begin(), svg.end()));
  files.stage(dir + "/result.txt", std::vector<uint8_t>(result.begin(), result.end()));
  files.commit();
}

} // namespace mdh::tune
