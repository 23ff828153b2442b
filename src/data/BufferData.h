/** \file
 * The contents of one MDH buffer in host memory: element type, shape and
 * the raw bytes in C order with the C layout of the element type — the
 * same bytes a `.npy` file holds after its header and a generated kernel
 * receives.  Invariant: bytes.size() == product(shape) * elem.size()
 * (a 0-D buffer has shape {} and one element).
 */
#pragma once

#include "sema/Type.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace mdh::data {

struct BufferData {
  Type elem;
  std::vector<int64_t> shape;
  std::vector<uint8_t> bytes;

  size_t elementCount() const {
    size_t n = 1;
    for (int64_t s : shape) n *= size_t(s);
    return n;
  }
  size_t elementSize() const { return elem.size(); }
  const uint8_t *element(size_t linear) const { return bytes.data() + linear * elementSize(); }
  uint8_t *element(size_t linear) { return bytes.data() + linear * elementSize(); }
};

/// Buffers by name (an entry point's inputs or outputs).
using BufferSet = std::map<std::string, BufferData>;

/// `[4, 3]`, or `[]` for a 0-D buffer.
std::string shapeString(const std::vector<int64_t> &shape);

/// Number of elements of a shape, or an error message when it is negative or
/// does not fit in memory (more than 2^40 bytes at `elemSize`).
bool checkedElementCount(const std::vector<int64_t> &shape, size_t elemSize, size_t &count, std::string &error);

} // namespace mdh::data
