/** \file
 * Reading input files with a size limit.
 *
 * Whatever a path names — a regular file, a FIFO, `/dev/stdin`, `/dev/zero`
 * — a read never takes more than the caller's limit of bytes, so an endless
 * or huge input ends with an error instead of exhausting memory; errors
 * carry the operating system's reason (`it is a directory` for a directory,
 * which opens but cannot be read).
 */
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace mdh {

class InputFile {
public:
  InputFile() = default;
  InputFile(const InputFile &) = delete;
  InputFile &operator=(const InputFile &) = delete;
  ~InputFile();

  /// Opens `path`; false with the reason in `error`.
  bool open(const std::string &path, std::string &error);
  /// Reads up to `n` bytes into `dst`; fewer only at the end of the input.
  /// Returns the count, or false with the reason in `error`.
  bool read(void *dst, size_t n, size_t &count, std::string &error);
  /// Whether it is a regular file (whose size() is known).
  bool isRegular() const { return regular_; }
  /// The size of a regular file.
  uint64_t size() const { return size_; }

private:
  int fd_ = -1;
  bool regular_ = false;
  uint64_t size_ = 0;
};

/// The outcome of readBoundedFile().
enum class BoundedRead { Complete, TooLarge, Failed };

/// Reads all of `path` into `text` when it holds at most `maxBytes` bytes
/// (TooLarge otherwise, `text` then holds the first `maxBytes`).  Failed
/// comes with the reason in `error`.
BoundedRead readBoundedFile(const std::string &path, size_t maxBytes, std::string &text, std::string &error);

/// The bytes to read of a source file limited to `maxCodePoints` (E0010):
/// enough that a larger file still shows more code points than allowed once
/// cut there, however it is encoded (at most 4 bytes per code point, a BOM).
inline size_t sourceByteLimit(size_t maxCodePoints) { return 4 * maxCodePoints + 4; }

} // namespace mdh
