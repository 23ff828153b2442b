/** \file
 * Pattern (local) search: evaluates the neighbours of a centre one pattern
 * step away (SearchSpace::neighbours) in a seeded random order, moves the
 * centre to the first improvement, doubles the step when a whole pattern
 * brings none, and restarts from a random point when the largest step is
 * exhausted.
 */
#pragma once

#include "tune/Technique.h"

#include <deque>

namespace mdh::tune {

class PatternSearch : public Technique {
public:
  std::string name() const override { return "pattern"; }
  ll::Config propose(const SearchState &s, std::mt19937_64 &rng) override;
  void observe(const SearchState &s, const ll::Config &c, double seconds, bool newBest) override;

private:
  static constexpr int kMaxStep = 8;
  std::optional<ll::Config> centre_;
  double centreSeconds_ = -1;
  int step_ = 1;
  bool queued_ = false;
  std::deque<ll::Config> queue_;
};

} // namespace mdh::tune
