/** \file
 * Helpers for BufferData.
 */
#include "data/BufferData.h"

#include <fmt/format.h>

namespace mdh::data {

std::string shapeString(const std::vector<int64_t> &shape) { return fmt::format("[{}]", fmt::join(shape, ", ")); }

bool checkedElementCount(const std::vector<int64_t> &shape, size_t elemSize, size_t &count, std::string &error) {
  const unsigned __int128 limit = (unsigned __int128)1 << 40;
  unsigned __int128 n = 1;
  for (int64_t s : shape) {
    if (s < 0) {
      error = fmt::format("negative extent in shape {}", shapeString(shape));
      return false;
    }
    n *= (unsigned __int128)s;
    if (n * std::max<size_t>(elemSize, 1) > limit) {
      error = fmt::format("shape {} is too large (more than 2^40 bytes)", shapeString(shape));
      return false;
    }
  }
  count = size_t(n);
  return true;
}

} // namespace mdh::data
