/** \file
 * The AUC bandit.
 */
#include "tune/AucBandit.h"


#include <cmath>

namespace mdh::tune {

AucBandit::AucBandit(std::vector<std::unique_ptr<Technique>> techniques)
    : techniques_(std::move(techniques)), uses_(techniques_.size(), 0) {}

double AucBandit::score(size_t i) const {
  if (uses_[i] == 0) return 1e9; // every technique is tried once first
  size_t n = 0;
  double weighted = 0;
  for (const auto &[t, credit] : history_) {
    if (t != i) continue;
    ++n;
    if (credit) weighted += double(n);
  }
  double auc = n ? weighted * 2 / (double(n) * double(n + 1)) : 0;
  size_t total = 0;
  for (auto u : uses_) total += u;
  return auc + kExploration * std::sqrt(2 * std::log(double(total)) / double(uses_[i]));
}

ll::Config AucBandit::propose(const SearchState &s, std::mt19937_64 &rng) {
  size_t best = 0;
  for (size_t i = 1; i < techniques_.size(); ++i)
    if (score(i) > score(best)) best = i;
  last_ = best;
  ++uses_[best];
  ll::Config c = techniques_[best]->propose(s, rng);
  pending_[configHash(c)] = best;
  return c;
}

void AucBandit::observe(const SearchState &s, const ll::Config &c, double seconds, bool newBest) {
  auto it = pending_.find(configHash(c));
  if (it == pending_.end()) return;
  size_t t = it->second;
  pending_.erase(it);
  history_.push_back({t, newBest});
  if (history_.size() > kWindow) history_.pop_front();
  techniques_[t]->observe(s, c, seconds, newBest);
}

} // namespace mdh::tune
