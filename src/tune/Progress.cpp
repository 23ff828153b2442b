/** \file
 * The progress bar.
 */
#include "tune/Progress.h"

#include "tune/Tuner.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

namespace mdh::tune {

std::string msText(double seconds) {
  const double ms = seconds * 1e3;
  return ms == 0 || std::abs(ms) >= 0.1 ? fmt::format("{:.3f}", ms) : fmt::format("{:.3g}", ms);
}

std::string formatDuration(double s) {
  if (!std::isfinite(s) || s < 0) return "?";
  long t = long(std::lround(s));
  if (t < 60) return fmt::format("{}s", t);
  if (t < 3600) return fmt::format("{}m{:02}s", t / 60, t % 60);
  return fmt::format("{}h{:02}m", t / 3600, (t % 3600) / 60);
}

void Progress::update(const ProgressState &s) {
  last_ = s;
  // A time budget alone: no evaluation count to show or to estimate from.
  bool countBudget = s.budgetEvaluations > 0 && s.budgetEvaluations < kUnboundedEvaluations / 2;
  std::string of = countBudget ? fmt::format("{}/{}", s.evaluations, s.budgetEvaluations) : fmt::format("{}", s.evaluations);
  // ETA: the earlier of the evaluation budget (at the rate so far) and the time budget.
  double eta = s.budgetSeconds - s.elapsed;
  if (s.evaluations > 0 && countBudget)
    eta = std::min(eta, s.elapsed / s.evaluations * (s.budgetEvaluations - s.evaluations));
  std::string best = s.best > 0 ? fmt::format("{} ms", msText(s.best)) : "-";
  std::string speedup = s.best > 0 && s.baseline > 0 ? fmt::format(" ({:.2f}x vs default)", s.baseline / s.best) : "";
  if (!terminal_) {
    fmt::print(out_, "tune: {} {} | best {}{} | {:.0f} s, ETA {}\n", of, s.last, best, speedup,
               s.elapsed, formatDuration(std::max(0.0, eta)));
    std::fflush(out_);
    return;
  }
  double frac = countBudget ? double(s.evaluations) / s.budgetEvaluations : 0;
  if (s.budgetSeconds > 0) frac = std::max(frac, s.elapsed / s.budgetSeconds);
  frac = std::clamp(frac, 0.0, 1.0);
  int width = 24, filled = int(frac * width);
  fmt::print(out_, "\r\033[K[{}{}] {} best {}{} ETA {}", std::string(size_t(filled), '#'), std::string(size_t(width - filled), '.'),
             of, best, speedup, formatDuration(std::max(0.0, eta)));
  std::fflush(out_);
  barShown_ = true;
}

void Progress::message(const std::string &line) {
  if (terminal_ && barShown_) fmt::print(out_, "\r\033[K");
  fmt::print(out_, "{}\n", line);
  if (terminal_ && barShown_) update(last_);
  std::fflush(out_);
}

void Progress::finish() {
  if (terminal_ && barShown_) fmt::print(out_, "\n");
  barShown_ = false;
  std::fflush(out_);
}

} // namespace mdh::tune
