/** \file
 * C/C++ text for the scalar level: type declarations (records, tuples), the
 * runtime helpers that give integers wrap-around semantics and defined
 * division by zero (docs/language.md §14), and the user's scalar functions.
 *
 * Shared by every backend that emits C-like code; a Dialect says how
 * functions are qualified.  Invariants: the emitted helpers implement
 * exactly the rules the interpreter implements (wrap-around through
 * unsigned types, x/0 == 0, shift counts modulo the width, saturating
 * float-to-int casts with NaN -> 0, fmax/fmin for floats).
 */
#pragma once

#include "hl/HLIR.h"

#include <string>

namespace mdh::codegen {

struct Dialect {
  std::string fnQualifier = "static inline"; ///< e.g. "__device__ static inline"
};

/// C type name for a Type (records by name, tuples as generated structs).
std::string cType(const Type &t);

/// Struct declarations of every record and tuple type the program uses.
std::string emitTypeDecls(const hl::Program &p);
/// The helper functions (mdh_add, mdh_div, ...), as C++ templates.
std::string emitHelpers(const Dialect &d);
/// Every scalar function of the program, callees first.
std::string emitFunctions(const hl::Program &p, const Dialect &d);
/// Name of the C function for a scalar function.
std::string fnName(const hl::ScalarFunction &f);

/// A C expression applying binary operator `op` to two C expressions.
std::string applyBinary(const hl::BinaryOperator &op, const std::string &a, const std::string &b);
/// The identity element of `op` as a C expression, or "" when it has none
/// (user operators): accumulators then start from the first value.
std::string identityOf(const hl::BinaryOperator &op);

} // namespace mdh::codegen
