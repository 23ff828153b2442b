/** \file
 * The run-time size check at the top of every generated host entry.
 *
 * MDH sizes are at least 1 (mdhc and mdhi reject smaller ones with E0905), but
 * a caller of generated code passes run-time (`*`) sizes itself. Each host
 * entry therefore checks them before it computes a buffer size or touches a
 * buffer: a size below 1 prints the entry, the size's name and value on stderr
 * and takes the backend's failure path, leaving every output unchanged.
 */
#pragma once

#include "hl/HLIR.h"

#include <string>

namespace mdh::codegen {

/// C++ statements (indented by two spaces) that check `sz_<name>` >= 1 for each
/// run-time size of `p`; on failure they print "mdh (<backend>): <entry>: ..."
/// and run `onFailure` (e.g. `return;` or `return CL_INVALID_VALUE;`). Empty
/// when the program has no run-time sizes. Needs <cstdio>.
std::string runTimeSizeGuard(const hl::Program &p, const std::string &backend, const std::string &entry,
                             const std::string &onFailure);

} // namespace mdh::codegen
