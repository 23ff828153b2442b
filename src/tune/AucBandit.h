/** \file
 * The AUC-bandit meta-technique (OpenTuner's AUCBanditMetaTechnique, ATF's
 * default): each proposal comes from one of the sub-techniques (random,
 * annealing, pattern), chosen by the largest
 *     score = AUC(credit history) + C · sqrt(2 ln(total uses) / uses),
 * where the credit history holds, per technique, 1 for each proposal that
 * produced a new best and 0 otherwise, over a sliding window; the area
 * under that curve weights recent successes more.
 *
 * Invariant: the choice depends only on the observations received, so the
 * sequence is reproducible for a fixed seed and fixed observations.
 */
#pragma once

#include "tune/Technique.h"

#include <deque>
#include <map>
#include <vector>

namespace mdh::tune {

class AucBandit : public Technique {
public:
  AucBandit(std::vector<std::unique_ptr<Technique>> techniques);
  std::string name() const override { return "auc"; }
  ll::Config propose(const SearchState &s, std::mt19937_64 &rng) override;
  std::string lastProposer() const override { return techniques_[last_]->name(); }
  void observe(const SearchState &s, const ll::Config &c, double seconds, bool newBest) override;

  /// The bandit's score of sub-technique `i` (exposed for unit tests).
  double score(size_t i) const;

private:
  static constexpr size_t kWindow = 500;
  static constexpr double kExploration = 0.05;
  std::vector<std::unique_ptr<Technique>> techniques_;
  std::deque<std::pair<size_t, bool>> history_; ///< (technique, produced a new best), oldest first
  std::vector<size_t> uses_;
  std::map<std::string, size_t> pending_;       ///< configuration hash -> technique that proposed it
  size_t last_ = 0;
};

} // namespace mdh::tune
