/** \file
 * C/C++ text for the scalar level: type declarations (records, tuples), the
 * runtime helpers that give integers wrap-around semantics and defined
 * division by zero (docs/language.md §14), and the user's scalar functions.
 *
 * Shared by every backend that emits C-like code; a Dialect says how
 * functions are qualified and which language subset is written: C++17
 * templates (OpenMP), or the "GPU C" subset that is valid both as OpenCL C
 * and as CUDA C++ (per-type overloaded helpers through the MDH_FN macro,
 * no templates, no brace initialisation, no std::).  Invariants: the emitted helpers implement
 * exactly the rules the interpreter implements (wrap-around through
 * unsigned types, x/0 == 0, shift counts modulo the width, saturating
 * float-to-int casts with NaN -> 0, fmax/fmin for floats).
 */
#pragma once

#include "codegen/CNames.h"
#include "hl/HLIR.h"

#include <string>
#include <vector>

namespace mdh::codegen {

struct Dialect {
  std::string fnQualifier = "static inline"; ///< e.g. "__device__ static inline"
  /// GPU C: the subset shared by OpenCL C and CUDA C++ (see GpuKernelWriter.h).
  bool gpuC = false;
};

/// The GPU C dialect: functions qualified by the MDH_FN macro.
Dialect gpuDialect();

/// Every record and tuple type within `t` (itself included), element types
/// first, each once: appended to `out` unless there already.
void collectAggregateTypes(const Type &t, std::vector<Type> &out);
/// Every record and tuple type the program uses (buffers, functions), element types first.
std::vector<Type> programAggregateTypes(const hl::Program &p);

/// Struct declarations of every record and tuple type the program uses.
std::string emitTypeDecls(const hl::Program &p, const Dialect &d = {});
/// The helper functions (mdh_add, mdh_div, ...), as C++ templates, or in
/// GPU C as overloads for every primitive type plus the casts and record
/// constructors the program uses.
std::string emitHelpers(const Dialect &d);
/// GPU C helpers for program `p` (emitHelpers(gpuDialect()) has no program).
std::string emitGpuHelpers(const hl::Program &p);
/// Every scalar function of the program, callees first.
std::string emitFunctions(const hl::Program &p, const Dialect &d);
/// Name of the C function for a scalar function.
std::string fnName(const hl::ScalarFunction &f);

/// A C expression applying binary operator `op` to two C expressions.
std::string applyBinary(const hl::BinaryOperator &op, const std::string &a, const std::string &b, const Dialect &d = {});
/// The identity element of `op` as a C expression, or "" when it has none
/// (user operators): accumulators then start from the first value.
std::string identityOf(const hl::BinaryOperator &op, const Dialect &d = {});
/// GPU C: the constructor function of a record or tuple type.
std::string makeFn(const Type &t);

} // namespace mdh::codegen
