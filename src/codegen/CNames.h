/** \file
 * Every C identifier that generated code derives from a user name: one
 * scheme, injective over what a program can declare.
 *
 * The implementation (the .cpp, the .cu, the embedded OpenCL C) never uses a
 * user name as an identifier of its own: records, tuples and functions are
 * named in the `mdh_` namespace by an injective encoding of the user's names
 * (typeCode: `f32`, `r8Particle` — length-prefixed, so `A_i32` and `A`+`i32`
 * differ —, `t2_f32_r1A`), and record fields by position plus name (`_0_x`).
 * So no keyword, macro, library name or local of the generated code can
 * clash there, and two different declarations never share a C name.
 *
 * The generated header shows the user's own names: entry symbols, record
 * names and field names.  Those are checked against everything the target
 * languages reserve and the generated code's headers and libraries declare
 * (keywords, LibraryNames.h, prefixes such as `_`, `cl_`, `cuda`, `mdh_`);
 * one that clashes gets a prefix in the `mdh_` namespace, which user names
 * never keep, so renaming stays injective: `mdh_entry_<name>`,
 * `mdh_record_<name>`, `mdh_field_<name>`.  A name that does not clash is
 * emitted unchanged.
 */
#pragma once

#include "hl/HLIR.h"

#include <string>
#include <vector>

namespace mdh::codegen {

// ---- what a user name must not be --------------------------------------------------------------

/// A keyword or reserved word of C, C++, OpenCL C or CUDA C++, or a type name
/// the generated code's headers define (`int32_t`, `size_t`, `float4`, ...).
bool isReservedWord(const std::string &name);

/// Not usable as a struct member in a generated header: reserved words,
/// library macros, names the implementation reserves (`_X`, `__x`), and our
/// own `mdh_`/`MDH_` namespace.
bool isReservedMember(const std::string &name);

/// Not usable as an external symbol or a global name of a generated header:
/// reserved members plus every name the headers and libraries of the
/// generated code declare or export (`main`, `memcpy`, `select`, `cl_mem`,
/// `clFinish`, `cudaStream_t`, `omp_lock_t`, ...) and their prefixes.
bool isReservedSymbol(const std::string &name);

// ---- names in the implementation -----------------------------------------------------------------

/// Injective code of a type: primitives by name (`f32`, `bool`), records
/// `r<length><name>`, tuples `t<count>` then `_<code>` per element.
std::string typeCode(const Type &t);

/// The C type of a value in the implementation: `float`, `int32_t`, ...,
/// `mdh_<typeCode>` for records and tuples.
std::string cType(const Type &t);

/// The implementation's member name of field `i` of a record: `_<i>_<name>`.
std::string implFieldName(const RecordInfo &r, size_t i);

/// Injective code of a scalar function: `<length><source name>` plus the
/// instance's type arguments as the front end spells them (`1w_f32` for `w`
/// at f32, `5w_f32` for a function named `w_f32`); the synthesised function of
/// a built-in operator is coded by its instance name (`add_f32`).
std::string functionCode(const hl::ScalarFunction &f);

// ---- names in the generated header ---------------------------------------------------------------

/// A field as the header declares it: `name`, or `mdh_field_<name>` when reserved.
std::string headerFieldName(const std::string &name);

/// A record as the header declares it: `name`, or `mdh_record_<name>` when it
/// is a reserved symbol or one of the header's own entry symbols.
std::string headerRecordName(const std::string &name, const std::vector<std::string> &headerSymbols);

/// The default entry symbol of an instantiation: its instance name, or
/// `mdh_entry_<instance name>` when that is a reserved symbol.
std::string defaultSymbol(const hl::Program &p);

} // namespace mdh::codegen
