/** \file
 * An instance with its run-time sizes fixed to given values.
 *
 * Tuning measures code, and code runs at concrete sizes: `mdhc tune` and
 * `mdhc compile --tune` on an entry with run-time sizes (`*`) tune the
 * instance whose sizes are the values given with `--set`.  Fixing a size
 * substitutes its value into every size, shape and index function and
 * drops it from the run-time sizes, which is exactly the instance sema
 * would build with that size static.  A configuration found for it applies
 * to the entry with run-time sizes too (remainder tiles: any size runs).
 */
#pragma once

#include "hl/HLIR.h"

#include <cstdint>
#include <map>
#include <string>

namespace mdh::hl {

/// Replaces each run-time size of `p` named in `values` by its value.
void fixRunTimeSizes(Program &p, const std::map<std::string, int64_t> &values);

} // namespace mdh::hl
