/** \file
 * The running values of the canonical strategy's prefix-sum dimensions,
 * shared by the OpenMP and GPU emitters.
 *
 * Outside Lemma 10, cells are folded in the canonical order of Def. 9.  With
 * prefix-sum dimensions, the cells of one block (one index combination of the
 * concatenated dimensions) run in ascending lexicographic order over the
 * scanned dimensions, and each scan p keeps one running value per
 * combination of its selectors: the indices of the point-wise dimensions
 * before p (their loops enclose p's fold) and the coordinates of the scans
 * after p (p's prefix differs per later coordinate).  Invariant: when cell c
 * is evaluated, p's slot holds p's fold up to c<p> - 1 at c's selectors, the
 * value the lexicographic order left there; it restarts at c<p> = 0.
 */
#pragma once

#include "hl/HLIR.h"

#include <string>
#include <vector>

namespace mdh::codegen {

/// C statements decoding block number `block` into the coordinates c<d> of the concatenated
/// dimensions (the last varying fastest), through the remainder variable `rem`, which is
/// declared only when there are some (nvcc warns about an unused one).
std::vector<std::string> blockCoordinates(const hl::Program &p, const std::string &block, const std::string &rem);

/// The prefix-sum dimensions of `p`, ascending.
std::vector<size_t> scanDimensions(const hl::Program &p);

/// The dimensions whose index (point-wise) or coordinate (later scans) selects
/// scan `scan`'s running value, ascending.
std::vector<size_t> carrySelectors(const hl::Program &p, size_t scan);

/// C expression of the number of running values of `scan`: the product of its
/// selectors' extents, named N<d> ("INT64_C(1)" when there are none).
std::string carrySlotCount(const hl::Program &p, size_t scan);

/// C expression of the running value's slot for the current selectors, mixed
/// radix in selector order: i<d> for a point-wise dimension, c<d> for a scan
/// ("0" when there are none).
std::string carrySlotIndex(const hl::Program &p, size_t scan);

}  // namespace mdh::codegen
