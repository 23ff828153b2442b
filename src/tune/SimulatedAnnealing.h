/** \file
 * Simulated annealing over the search space: a walk from neighbour to
 * neighbour that always accepts a faster configuration and accepts a
 * slower one with probability exp(-(t/t_cur - 1) / T); the temperature T
 * cools geometrically per observation and is reheated after a long run
 * without acceptance.
 *
 * Invariant: acceptance decisions use the technique's own generator
 * (seeded at construction), so the walk is reproducible for fixed
 * observations.
 */
#pragma once

#include "tune/Technique.h"

namespace mdh::tune {

class SimulatedAnnealing : public Technique {
public:
  explicit SimulatedAnnealing(uint64_t seed) : rng_(seed ^ 0xa5a5a5a5ull) {}
  std::string name() const override { return "annealing"; }
  ll::Config propose(const SearchState &s, std::mt19937_64 &rng) override;
  void observe(const SearchState &s, const ll::Config &c, double seconds, bool newBest) override;

  double temperature() const { return temperature_; }

private:
  static constexpr double kStart = 0.3, kCooling = 0.93, kFloor = 0.01;
  std::mt19937_64 rng_;
  std::optional<ll::Config> current_;
  double currentSeconds_ = -1;
  double temperature_ = kStart;
  int sinceAccept_ = 0;
};

} // namespace mdh::tune
