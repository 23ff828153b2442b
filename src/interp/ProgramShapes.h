/** \file
 * The concrete sizes of one run: values of the dynamic (`*`) sizes, the MDA
 * sizes N_d and every buffer's derived shape (docs/language.md §12.4, §15.2).
 *
 * Dynamic sizes are solved from the shapes of the input buffers that have
 * data: a buffer extent that is `a*p + c` in one still-unknown size p
 * (after substituting the known ones) gives p = (extent - c) / a, which must
 * be exact and >= 1; this repeats until nothing new is learnt.  Values given
 * explicitly (`--set N=...` for a run-time size) come first.  Invariants of
 * a resolved ProgramShapes: every dynamic size has a value, every N_d >= 1,
 * and shapes are fully concrete.
 */
#pragma once

#include "data/BufferData.h"
#include "hl/HLIR.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace mdh::interp {

struct ProgramShapes {
  std::map<std::string, int64_t> runtimeSizes;     ///< value of every dynamic size
  std::vector<int64_t> sizes;                      ///< N_d
  std::vector<std::vector<int64_t>> inputs, outputs; ///< derived shapes, in view order

  /// Value of a size polynomial under runtimeSizes (all its parameters must be known).
  int64_t eval(const SizePoly &p) const;
};

/// Solves the dynamic sizes and derives every shape.  `inputShapes` holds
/// the shapes of the inputs that have data (by buffer name); `given` holds
/// explicit values of dynamic sizes.  Throws RuntimeError (E0905/E0906),
/// also when an access leaves its buffer with these sizes (AccessRange.h).
ProgramShapes resolveShapes(const hl::Program &p, const std::map<std::string, std::vector<int64_t>> &inputShapes,
                            const std::map<std::string, int64_t> &given = {});

/// Checks that every input buffer is present with its derived shape and the
/// right element type, and returns them in view order.  Throws RuntimeError.
std::vector<const data::BufferData *> checkInputs(const hl::Program &p, const ProgramShapes &shapes,
                                                  const data::BufferSet &inputs);

/// `{"M": [4, 3], ...}` of the buffers in a set.
std::map<std::string, std::vector<int64_t>> shapesOf(const data::BufferSet &buffers);

} // namespace mdh::interp
