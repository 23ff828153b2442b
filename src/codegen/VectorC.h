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
 * approximated.  Combine operators get the same treatment (vectorBinary),
 * and in-register inclusive scans are built on it (vectorScanHelpers).
 * The md_hom's f, when its integer result is bounded (hl/ResultRange.h),
 * also gets a narrow variant that adds its value to a counter in lanes of a
 * narrower signed integer; exact as long as the caller widens the counters
 * before they can overflow.
 */
#pragma once

#include "hl/HLIR.h"

#include <string>

namespace mdh::codegen {

/// Whether `f` has a lane-wise vector version (see the file comment).
bool isVectorizable(const hl::ScalarFunction &f);
/// Name of the vector template of a vectorisable function.
std::string vectorFnName(const hl::ScalarFunction &f);
/// Name of the narrow variant `mdh_fnn_<name><W, N>` of the md_hom's f: its
/// bounded integer results in lanes of the signed integer W (hl/ResultRange.h).
std::string narrowVectorFnName(const hl::ScalarFunction &f);
/// Vector templates of every vectorisable function of the program (callees
/// first), the md_hom's f's narrow variant where it has one, plus the helpers
/// mdh_vsplat / mdh_vload they and the emitters use.
std::string emitVectorFunctions(const hl::Program &p);

/// ⊕ applied lane-wise to vectors `a` and `b` of type `vec` (an
/// `mdh_vt<T, lanes>`), giving per lane exactly the scalar ⊕'s result; ""
/// when ⊕ has no such form (tuples, bools, float min/max, whose NaN and
/// signed-zero rules are scalar code, user operators outside the subset).
std::string vectorBinary(const hl::BinaryOperator &op, const std::string &a, const std::string &b, const std::string &vec,
                         const std::string &lanes);

/// Helpers for in-register inclusive scans (needs emitVectorFunctions()'s
/// helpers first): mdh_vscan(x, op) gives lane l = x[0] op ... op x[l]
/// (log2(lanes) shifted combines, earlier lanes on the left: associativity
/// suffices), mdh_vlast(x) broadcasts the last lane.
std::string vectorScanHelpers();

} // namespace mdh::codegen
