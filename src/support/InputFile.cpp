/** \file
 * Bounded reading of input files with POSIX calls (for errno's reasons).
 */
#include "support/InputFile.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace mdh {

InputFile::~InputFile() {
  if (fd_ >= 0) ::close(fd_);
}

bool InputFile::open(const std::string &path, std::string &error) {
  fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd_ < 0) {
    error = std::strerror(errno);
    return false;
  }
  struct stat st {};
  if (::fstat(fd_, &st) != 0) {
    error = std::strerror(errno);
    return false;
  }
  if (S_ISDIR(st.st_mode)) {
    error = "it is a directory";
    return false;
  }
  regular_ = S_ISREG(st.st_mode);
  size_ = regular_ ? uint64_t(st.st_size) : 0;
  return true;
}

bool InputFile::read(void *dst, size_t n, size_t &count, std::string &error) {
  count = 0;
  auto *bytes = static_cast<char *>(dst);
  while (count < n) {
    const ssize_t got = ::read(fd_, bytes + count, n - count);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) {
      error = std::strerror(errno);
      return false;
    }
    if (got == 0) break;
    count += size_t(got);
  }
  return true;
}

BoundedRead readBoundedFile(const std::string &path, size_t maxBytes, std::string &text, std::string &error) {
  InputFile in;
  if (!in.open(path, error)) return BoundedRead::Failed;
  // One byte more than allowed tells a file of exactly maxBytes from a larger
  // one.  A regular file's size is only the first read's length: procfs and
  // sysfs files report 0 or 4096, and a file may grow while it is read.
  const size_t want = maxBytes + 1;
  const size_t firstAsk = in.isRegular() && in.size() < maxBytes ? size_t(in.size()) + 1 : size_t(1) << 16;
  text.clear();
  while (text.size() < want) {
    // Then growing by doubling: a FIFO's size is not known in advance.
    const size_t at = text.size(), ask = std::min(want - at, at == 0 ? firstAsk : std::max<size_t>(at, 1 << 16));
    text.resize(at + ask);
    size_t count = 0;
    if (!in.read(&text[at], ask, count, error)) return BoundedRead::Failed;
    text.resize(at + count);
    if (count < ask) break; // the end of the input
  }
  if (text.size() <= maxBytes) return BoundedRead::Complete;
  text.resize(maxBytes);
  return BoundedRead::TooLarge;
}

} // namespace mdh
