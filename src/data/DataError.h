/** \file
 * The error raised by the data layer (NumPy files, buffer checks, random
 * inputs).  Data problems are not tied to a source location, so they are
 * plain exceptions with a complete, user-facing message that names the file
 * or buffer, what was expected and what was found.
 */
#pragma once

#include <stdexcept>
#include <string>

namespace mdh::data {

struct DataError : std::runtime_error {
  explicit DataError(const std::string &message) : std::runtime_error(message) {}
};

} // namespace mdh::data
