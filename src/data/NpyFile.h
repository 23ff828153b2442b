/** \file
 * NumPy `.npy` files: reading (format versions 1.0, 2.0 and 3.0) and
 * encoding (1.0, or 2.0 when the header needs it), C order only.
 *
 * Invariants: a decoded array's data size equals product(shape) * itemsize
 * (truncated or oversized files are errors); every error message names the
 * file and says what is wrong; nothing is ever read past the end of the
 * input, and reading takes no more than the header announces (an endless
 * input such as `/dev/zero` is refused, not read).  Encoded headers are padded with spaces so the data starts at a
 * multiple of 64 bytes, as NumPy does.
 */
#pragma once

#include "data/NumpyDtype.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mdh::data {

struct NpyArray {
  NumpyDtype dtype;
  std::vector<int64_t> shape;
  std::vector<uint8_t> data; ///< C order, little-endian (as stored)
};

/// Decodes the bytes of a `.npy` file; `what` names it in messages.
NpyArray decodeNpy(const std::vector<uint8_t> &bytes, const std::string &what);
/// Reads and decodes a `.npy` file; throws DataError.
NpyArray readNpy(const std::string &path);
/// The bytes of a `.npy` file holding `data` with the given dtype and shape.
std::vector<uint8_t> encodeNpy(const NumpyDtype &dtype, const std::vector<int64_t> &shape, const std::vector<uint8_t> &data);

} // namespace mdh::data
