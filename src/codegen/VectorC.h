/** \file
 * Vector (SIMD) versions of scalar functions for the C++ backends.
 *
 * A scalar function whose parameters and result all have one float type and
 * whose body is straight-line arithmetic (+, -, *, /, negation, constants,
 * `let`s and calls of such functions) also gets a template
 * `mdh_fnv_<name><V>(V...)` that computes the same expression lane-wise on a
 * GCC vector type V.  The OpenMP emitter uses it for register tiles kept in
 * vector registers.  Invariants: the vector version performs, per lane,
 * exactly the operations of the scalar version in the same order (so results
 * are bit-identical under the same contraction flags); functions outside the
 * subset are reported as not vectorisable rather than approximated.
 */
#pragma once

#include "hl/HLIR.h"

#include <string>

namespace mdh::codegen {

/// Whether `f` has a lane-wise vector version (see the file comment).
bool isVectorizable(const hl::ScalarFunction &f);
/// Name of the vector template of a vectorisable function.
std::string vectorFnName(const hl::ScalarFunction &f);
/// Vector templates of every vectorisable function of the program (callees
/// first), plus the helpers mdh_vsplat / mdh_vload they and the emitters use.
std::string emitVectorFunctions(const hl::Program &p);

} // namespace mdh::codegen
