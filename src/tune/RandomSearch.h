/** \file
 * Random search: independent uniform-ish draws from the search space (the
 * baseline technique, and the bandit's source of exploration).
 */
#pragma once

#include "tune/Technique.h"

namespace mdh::tune {

class RandomSearch : public Technique {
public:
  std::string name() const override { return "random"; }
  ll::Config propose(const SearchState &s, std::mt19937_64 &rng) override;
  void observe(const SearchState &, const ll::Config &, double, bool) override {}
};

} // namespace mdh::tune
