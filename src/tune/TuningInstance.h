/** \file
 * The instance `mdhc tune` and `mdhc compile --tune` measure.
 *
 * Measured code runs at concrete sizes, so an entry with run-time sizes
 * (`*`) is tuned at the values given for them with `--set` (N=4096), read
 * as strictly as by `mdhc run`: each must be given, and the buffers they
 * make must be addressable with every access inside its buffer (E0905,
 * E0906, as `mdhc run` and `mdhi run` report them).  The sizes are then
 * fixed in the instance (hl/FixedSizes.h); the configuration found applies
 * to the entry with run-time sizes, for any value (docs/compiler.md,
 * "Tuning").
 */
#pragma once

#include "hl/HLIR.h"
#include "support/Diagnostics.h"

#include <map>
#include <string>

namespace mdh::tune {

/// Fixes every run-time size of `prog` (the instance of `entry`) to its value
/// in `given` (name -> the text given with --set).  Returns false with
/// `problem` filled when a value is malformed or names no run-time size
/// (E0603, E0605), is missing (E0905), or puts an access outside its buffer
/// (E0905, E0906); `prog` is then unchanged.
bool fixRunTimeSizesForTuning(const std::string &entry, hl::Program &prog, const std::map<std::string, std::string> &given,
                              Diagnostic &problem);

} // namespace mdh::tune
