/** \file
 * Simulated annealing.
 */
#include "tune/SimulatedAnnealing.h"

#include <cmath>

namespace mdh::tune {

ll::Config SimulatedAnnealing::propose(const SearchState &s, std::mt19937_64 &rng) {
  if (!current_) {
    current_ = s.best ? *s.best : s.space.start();
    currentSeconds_ = s.bestSeconds;
  }
  // Hot: bigger jumps; cold: single moves.
  int moves = temperature_ > 0.15 ? 3 : temperature_ > 0.05 ? 2 : 1;
  return s.space.neighbour(*current_, rng, moves);
}

void SimulatedAnnealing::observe(const SearchState &, const ll::Config &c, double seconds, bool) {
  temperature_ = std::max(kFloor, temperature_ * kCooling);
  if (seconds <= 0) return;
  bool accept = currentSeconds_ <= 0 || seconds < currentSeconds_;
  if (!accept) {
    double worse = seconds / currentSeconds_ - 1;
    accept = std::uniform_real_distribution<double>(0, 1)(rng_) < std::exp(-worse / temperature_);
  }
  if (accept) {
    current_ = c;
    currentSeconds_ = seconds;
    sinceAccept_ = 0;
  } else if (++sinceAccept_ > 40) {
    temperature_ = kStart; // reheat: the walk is stuck
    sinceAccept_ = 0;
  }
}

} // namespace mdh::tune
