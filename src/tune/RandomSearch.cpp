/** \file
 * Random search.
 */
#include "tune/RandomSearch.h"

namespace mdh::tune {

ll::Config RandomSearch::propose(const SearchState &s, std::mt19937_64 &rng) { return s.space.random(rng); }

} // namespace mdh::tune
