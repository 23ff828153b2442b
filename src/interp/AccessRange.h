/** \file
 * Whether the accesses of one run stay inside their buffers
 * (docs/language.md §12.5).
 *
 * With static sizes sema proves it (E0403 otherwise).  With run-time sizes
 * (`*`) an index component such as `i + 3 - N` can be negative for some
 * values only, which only the run knows: this check finds it before any
 * buffer is read or written, as E0906, and the views repeat it for their
 * own accesses so that no evaluation can touch memory outside a buffer.
 * Index functions are affine, so a component's extremes over the index box
 * lie at its corners: O(terms) per component, in 128 bits (no overflow).
 * Inputs range over the MDA's index sets, outputs over the output MDA's
 * (a point-wise dimension has the single index 0).
 */
#pragma once

#include "hl/HLIR.h"
#include "interp/ProgramShapes.h"

#include <cstdint>
#include <vector>

namespace mdh::interp {

/// The extent of each index set an output view ranges over: N_d, or 1 for a
/// point-wise dimension.
std::vector<int64_t> outputIndexBox(const hl::Program &p, const std::vector<int64_t> &sizes);

/// Throws RuntimeError E0906 when access `access` of `buffer`, over index
/// sets [0, box[d]), reaches outside `shape`.  `output` names the buffer's
/// role in the message; `shapes` gives the run-time sizes (offsets may use
/// them, and the message names their values).
void requireAccessInBuffer(const hl::Buffer &buffer, const hl::Access &access, bool output, const std::vector<int64_t> &box,
                           const std::vector<int64_t> &shape, const ProgramShapes &shapes);

/// requireAccessInBuffer() for every access of every input and output.
void requireAccessesInBuffers(const hl::Program &p, const ProgramShapes &shapes);

} // namespace mdh::interp
