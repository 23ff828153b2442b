/** \file
 * User names in generated C, C++, OpenCL C and CUDA text.
 *
 * MDH identifiers may be words the target languages reserve (`class`,
 * `float`, `global`, `half`) or names the generated code's headers already
 * declare (`main`, `memcpy`, `sin`, `clFinish`).  Record and field names that
 * collide get a trailing underscore; an entry whose instance name collides
 * gets the symbol `mdh_entry_<name>` by default (not `mdh_<name>`: the
 * generated helpers are mdh_min, mdh_sqrt, ...).  Invariant: a name that does not
 * collide is emitted unchanged, so documented symbols and record layouts stay
 * what the user wrote.
 */
#pragma once

#include "hl/HLIR.h"

#include <string>

namespace mdh::codegen {

/// A keyword or reserved word of C, C++, OpenCL C or CUDA C++, or a type name
/// the generated code's headers define (`int32_t`, `size_t`, ...).
bool isReservedWord(const std::string &name);

/// Reserved words plus functions and prefixes of the libraries the generated
/// code includes or links (the C and math libraries, OpenMP, OpenCL, CUDA),
/// `main`, and our own `mdh_` prefix: not usable as an external symbol.
bool isReservedSymbol(const std::string &name);

/// A record type or field name as written in the generated code.
std::string cMember(const std::string &name);

/// The default entry symbol of an instantiation: its instance name, or
/// `mdh_entry_<instance name>` when that is a reserved symbol.
std::string defaultSymbol(const hl::Program &p);

} // namespace mdh::codegen
