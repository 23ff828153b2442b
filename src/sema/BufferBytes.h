/** \file
 * The largest buffer any stage handles, and the check against it.
 *
 * The generated code and the interpreter address a buffer with signed 64-bit
 * byte offsets, so a buffer may take at most 2^63 - 1 bytes: its element
 * count times its element size, multiplied without wrapping (a wrapped
 * product once allocated 0 bytes for 2^62 `f32` outputs, and the kernel
 * wrote past them).  Sema checks static shapes (E0415); shapes that depend
 * on run-time sizes are checked when those are known (E0905).
 */
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

namespace mdh {

constexpr uint64_t kMaxBufferBytes = uint64_t(INT64_MAX);

/// Bytes of a buffer of `shape` whose elements take `elemBytes` bytes, or
/// nullopt when that is more than kMaxBufferBytes (or an extent is negative).
inline std::optional<uint64_t> bufferBytes(const std::vector<int64_t> &shape, uint64_t elemBytes) {
  uint64_t bytes = elemBytes;
  for (int64_t extent : shape) {
    if (extent < 0 || __builtin_mul_overflow(bytes, uint64_t(extent), &bytes) || bytes > kMaxBufferBytes)
      return std::nullopt;
  }
  if (bytes > kMaxBufferBytes) return std::nullopt;
  return bytes;
}

} // namespace mdh
