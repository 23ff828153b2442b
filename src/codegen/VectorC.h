/** \file
 * Vector (SIMD) versions of scalar functions for the C++ backends.
 *
 * A scalar function whose parameters are numeric and whose body is
 * straight-line code — arithmetic (+ - * on any numeric type, / on floats),
 * comparisons, && || !, bitwise operators on integers, `?:`, casts other
 * than float to integer, constants, `let`s and calls of such functions —
 * also gets a template `mdh_fnv_<name><N>(...)` that computes the same
 * expression on N lanes of GCC vectors (`mdh_vt<T, N>`, one per scalar
 * type).  The OpenMP emitter uses it for register tiles kept in vector
 * registers.  Invariants: the vector version performs, per lane, exactly the
 * operations of the scalar version in the same order (integers wrap, floats
 * round the same way, so results are bit-identical under the same
 * contraction flags); functions outside the subset (branches, integer
 * division, records) are reported as not vectorisable rather than
 * approximated.
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
