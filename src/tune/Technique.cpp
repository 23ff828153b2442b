/** \file
 * The technique factory: names on the command line to techniques.
 */
#include "tune/Technique.h"

#include "tune/AucBandit.h"
#include "tune/PatternSearch.h"
#include "tune/RandomSearch.h"
#include "tune/SimulatedAnnealing.h"

namespace mdh::tune {

std::unique_ptr<Technique> makeTechnique(const std::string &name, uint64_t seed, std::string &error) {
  if (name == "random") return std::make_unique<RandomSearch>();
  if (name == "annealing") return std::make_unique<SimulatedAnnealing>(seed);
  if (name == "pattern") return std::make_unique<PatternSearch>();
  if (name == "auc") {
    std::vector<std::unique_ptr<Technique>> ts;
    ts.push_back(std::make_unique<SimulatedAnnealing>(seed));
    ts.push_back(std::make_unique<PatternSearch>());
    ts.push_back(std::make_unique<RandomSearch>());
    return std::make_unique<AucBandit>(std::move(ts));
  }
  error = "unknown technique `" + name + "`; use auc, random, annealing or pattern";
  return nullptr;
}

} // namespace mdh::tune
