/** \file
 * Whether an output access writes each buffer cell at most once.
 *
 * Sema warns about output accesses it cannot prove injective (W0402), and
 * the lowering stores the output MDA in place only through injective ones.
 * The proof is sound where it answers true and conservative otherwise:
 *  - the coefficient matrix has full column rank over the live dimensions
 *    (injective on all of Z^n, so on the index box too), shown by its rank
 *    modulo a 61-bit prime (never above the rank over Q, never overflowing),
 *    or
 *  - the access, read as one row-major cell number Σ L_d·j_d, is a mixed
 *    radix: sorted by |L_d|, each |L_d| exceeds the span Σ |L_e|·(N_e − 1)
 *    of the smaller ones (`(i, j) -> (5*i + j)` over 3×5, the flattened
 *    row-major output, which has rank 1 < 2 yet hits every cell once).
 * Live dimensions are those with more than one index in the output MDA (a
 * point-wise dimension, or a size of 1, has only index 0).  Coefficients,
 * the sizes the mixed-radix test needs, and the extents that give the
 * row-major strides must be constants; otherwise the answer is false.
 */
#pragma once

#include "hl/HLIR.h"

#include <vector>

namespace mdh::hl {

/// True when access `a` of `b` (an output buffer) provably reaches a
/// different cell for every index of the output index box `outSizes`.
bool provablyInjective(const Buffer &b, const Access &a, const std::vector<SizePoly> &outSizes);

} // namespace mdh::hl
