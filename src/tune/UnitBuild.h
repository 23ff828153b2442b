/** \file
 * Compiling a batch of candidates as a few translation units: the
 * candidates' code is split into one unit per compile job (the common
 * prologue once, then each candidate's part), the units are compiled
 * concurrently through the CompileCache, and a unit that fails is split
 * into single candidates so that one bad candidate does not fail its
 * neighbours.  Shared by the OpenMP and CUDA measurement backends.
 *
 * Invariants: one result per part, in order; a unit stopped by Ctrl-C is not
 * retried (a compiler per candidate would delay the exit).  A unit stopped by
 * the compile timeout is retried candidate by candidate, each with the timeout
 * divided by the unit's size: a runaway candidate (GCC took 14.6 s for one of
 * MatVec 4096^2's, 0.4 s for its neighbours) then costs a fraction of the
 * timeout again instead of failing the candidates it shared a unit with
 * (MatVec's 300-s tuning lost 60 of 489 candidates and 113 s that way, 4 to
 * 8 at a time).
 */
#pragma once

#include "tune/CompileCache.h"

#include <string>
#include <vector>

namespace mdh::tune {

/// One candidate's code: the prologue its unit starts with, and its own part.
struct CandidateSource {
  std::string common, part;
};

/// Libraries (or errors) for each candidate; at most `jobs` units.
std::vector<CompileCache::Entry> buildInUnits(CompileCache &cache, const std::vector<CandidateSource> &candidates,
                                              const std::string &flags, int jobs, double compileTimeout);

} // namespace mdh::tune
