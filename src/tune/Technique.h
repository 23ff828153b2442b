/** \file
 * The interface of search techniques (ATF / OpenTuner style): a technique
 * proposes configurations and is told the measured cost of each proposal.
 *
 * Techniques see the shared SearchState (the space and the best measured
 * configuration so far, including results resumed from the tuning
 * database) but never measure anything themselves.  Invariants: a
 * technique's proposals depend only on the random generator it is given,
 * its own state and the observations it received — so a fixed seed and
 * fixed observations give a fixed sequence; proposals are admissible points
 * of the space (possibly already measured: the tuner skips those and tells
 * the technique their recorded cost).
 */
#pragma once

#include "ll/Config.h"
#include "tune/SearchSpace.h"

#include <memory>
#include <optional>
#include <random>
#include <string>

namespace mdh::tune {

struct SearchState {
  const SearchSpace &space;
  std::optional<ll::Config> best;   ///< fastest correct configuration measured so far
  double bestSeconds = -1;          ///< its median time (< 0: none yet)
};

class Technique {
public:
  virtual ~Technique() = default;
  virtual std::string name() const = 0;
  /// The next configuration to measure.
  virtual ll::Config propose(const SearchState &s, std::mt19937_64 &rng) = 0;
  /// Which technique made the last proposal (a meta-technique names the one it chose).
  virtual std::string lastProposer() const { return name(); }
  /// The cost of a configuration this technique proposed: `seconds` < 0
  /// when it failed; `newBest` when it improved the best so far.
  virtual void observe(const SearchState &s, const ll::Config &c, double seconds, bool newBest) = 0;
};

/// `auc` (the AUC bandit over the others, the default), `random`,
/// `annealing` or `pattern`; nullptr (with `error`) for other names.
std::unique_ptr<Technique> makeTechnique(const std::string &name, uint64_t seed, std::string &error);

} // namespace mdh::tune
