/** \file
 * Loading a buffer from a `.npy` file with its element type checked, and
 * encoding a buffer (and a definedness mask) as `.npy` bytes.
 *
 * Shapes are checked later, against the program's derived shapes (they may
 * depend on run-time sizes solved from these very files).
 */
#pragma once

#include "data/BufferData.h"

#include <string>
#include <vector>

namespace mdh::data {

/// Reads `path` as the data of buffer `buffer` with element type `elem`.
/// Throws DataError naming the buffer, the file, the expected and the found
/// dtype, or the first bool element (field) whose byte is neither 0 nor 1.
BufferData loadBufferFile(const std::string &path, const std::string &buffer, const Type &elem);

/// `.npy` bytes of a buffer.
std::vector<uint8_t> encodeBuffer(const BufferData &b);

/// `.npy` bytes of a bool array of the buffer's shape (true = defined).
std::vector<uint8_t> encodeMask(const std::vector<int64_t> &shape, const std::vector<uint8_t> &defined);

/// The mask file written next to `path` by `--allow-undefined`:
/// `w.npy` -> `w.defined.npy`.
std::string maskPathFor(const std::string &path);

} // namespace mdh::data
