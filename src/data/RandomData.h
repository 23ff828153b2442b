/** \file
 * Reproducible random buffer contents, for runs without input files.
 *
 * The generator (SplitMix64) is seeded with the user's seed mixed with a
 * hash of the buffer name, so each buffer's data depends only on the seed,
 * its name, its type and its shape — adding a buffer does not change the
 * others.  Values are small and exact so that printed results are readable
 * and integer results do not overflow for moderate sizes:
 *   floats:   multiples of 1/8 in [-4, 4)
 *   signed:   integers in [-8, 8)
 *   unsigned: integers in [0, 16)
 *   bool:     false / true
 * Records and tuples get each field drawn by its type; padding stays zero.
 */
#pragma once

#include "data/BufferData.h"

#include <cstdint>
#include <string>

namespace mdh::data {

BufferData randomBuffer(const std::string &name, const Type &elem, const std::vector<int64_t> &shape, uint64_t seed);

} // namespace mdh::data
