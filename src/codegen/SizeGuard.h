/** \file
 * The run-time size check at the top of every generated host entry.
 *
 * mdhc and mdhi check run-time (`*`) sizes before they run anything (E0905,
 * E0906), but a caller of generated code passes them itself.  Each host
 * entry therefore checks them before it computes a buffer size or touches a
 * buffer: every size must be at least 1, every buffer must fit in 2^63 - 1
 * bytes, and every input and output access must stay inside its buffer
 * (docs/language.md §12.5: `(i) -> (i + 3 - N)` is negative once N > 3).
 * Index functions are affine with constant coefficients, so each check is
 * O(terms): a component's extremes over the index box lie at its corners;
 * components sema proves in range for every size are not checked again.
 * All arithmetic is checked, so sizes too large for 64 bits fail cleanly
 * too.  A failed check prints the entry, the sizes and what went wrong on
 * stderr and takes the backend's failure path, leaving every output
 * unchanged.
 */
#pragma once

#include "hl/HLIR.h"

#include <string>
#include <vector>

namespace mdh::codegen {

/// The definition of `static bool mdh_sizes_ok_<entry>(int64_t sz_<name>...)`
/// (one parameter per run-time size, in declaration order), which does the
/// checks, prints "mdh (<backend>): <entry>: ..." on failure and returns
/// false.  Emitted before the entries that call it; empty when the program
/// has no run-time sizes.  Needs <cstdio> and <cstdint>.
std::string runTimeSizeCheck(const hl::Program &p, const std::string &backend, const std::string &entry);

/// The call `mdh_sizes_ok_<entry>(args...)`, one argument per run-time size.
std::string runTimeSizeCheckCall(const std::string &entry, const std::vector<std::string> &sizeArgs);

/// C++ statements (indented by two spaces) for the top of an entry whose
/// run-time sizes are the parameters `sz_<name>`: the check, and on failure
/// `onFailure` (e.g. `return;` or `return CL_INVALID_VALUE;`).  Empty when
/// the program has no run-time sizes.
std::string runTimeSizeGuard(const hl::Program &p, const std::string &entry, const std::string &onFailure);

} // namespace mdh::codegen
