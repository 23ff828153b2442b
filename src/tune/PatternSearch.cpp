/** \file
 * Pattern search.
 */
#include "tune/PatternSearch.h"

#include <algorithm>

namespace mdh::tune {

ll::Config PatternSearch::propose(const SearchState &s, std::mt19937_64 &rng) {
  if (!centre_) {
    centre_ = s.best ? *s.best : s.space.start();
    centreSeconds_ = s.bestSeconds;
  }
  while (true) {
    if (!queue_.empty()) {
      ll::Config c = queue_.front();
      queue_.pop_front();
      return c;
    }
    if (queued_) step_ *= 2; // the last pattern brought no improvement
    queued_ = false;
    if (step_ > kMaxStep) {
      // Exhausted around this centre: restart from a random point.
      step_ = 1;
      centre_ = s.space.random(rng);
      centreSeconds_ = -1;
      return *centre_;
    }
    auto ns = s.space.neighbours(*centre_, step_);
    std::shuffle(ns.begin(), ns.end(), rng);
    queue_.assign(ns.begin(), ns.end());
    queued_ = true;
    if (queue_.empty()) step_ = kMaxStep + 1;
  }
}

void PatternSearch::observe(const SearchState &, const ll::Config &c, double seconds, bool) {
  if (seconds <= 0) return;
  bool isCentre = centre_ && ll::toJson(c) == ll::toJson(*centre_);
  if (isCentre && centreSeconds_ < 0) {
    centreSeconds_ = seconds;
    return;
  }
  if (centreSeconds_ < 0 || seconds < centreSeconds_ * 0.999) {
    centre_ = c;
    centreSeconds_ = seconds;
    step_ = 1;
    queue_.clear();
    queued_ = false;
  }
}

} // namespace mdh::tune
