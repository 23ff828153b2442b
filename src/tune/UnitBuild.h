/** \file
 * Compiling a batch of candidates as a few translation units: the
 * candidates' code is split into one unit per compile job (the common
 * prologue once, then each candidate's part), the units are compiled
 * concurrently through the CompileCache, and a unit that fails is split
 * into single candidates so that one bad candidate does not fail its
 * neighbours.  Shared by the OpenMP and CUDA measurement backends.
 *
 * Invariants: one result per part, in order; a unit stopped by the compile
 * timeout or by Ctrl-C is not retried candidate by candidate (the runaway
 * one would take the whole timeout again; a compiler per candidate would
 * delay the exit).
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
