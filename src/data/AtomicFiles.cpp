/** \file
 * Temporary-file-and-rename output writing (AtomicFiles.h).
 */
#include "data/AtomicFiles.h"

#include "data/DataError.h"

#include <fmt/format.h>
#include <fstream>
#include <iterator>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <optional>
#include <sys/stat.h>
#include <unistd.h>

namespace mdh::data {

namespace {

/// Writes all of `bytes` to `fd` (then cuts the file at `truncateTo`, if
/// given) and closes it; throws DataError naming `path`.
void writeAndClose(int fd, const std::vector<uint8_t> &bytes, const std::string &path,
                   std::optional<size_t> truncateTo = std::nullopt) {
  int err = 0;
  for (size_t done = 0; done < bytes.size() && !err;) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno != EINTR) err = errno;
    if (n == 0) err = EIO; // no progress and no reason: never loop on it
    if (n > 0) done += size_t(n);
  }
  // A file rewritten in place ends where the new contents end.
  if (!err && truncateTo && ::ftruncate(fd, off_t(*truncateTo)) != 0) err = errno;
  if (::close(fd) != 0 && !err) err = errno; // a full disk may show only here (NFS)
  if (err) throw DataError(fmt::format("cannot write `{}`: {}", path, std::strerror(err)));
}

/// Opens the temporary for `t` beside the file its links end at, with the
/// permissions of the file it replaces (new files get 0666 less the umask,
/// as the shell's `>` gives them).  Returns the descriptor, or -1 with errno.
int createTemporary(const OutputTarget &t, size_t serial, std::string &name) {
  for (int attempt = 0; attempt < 100; ++attempt) {
    name = fmt::format("{}.tmp.{}.{}", t.resolved, getpid(), serial + size_t(attempt) * 1000);
    const int fd = ::open(name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0 && errno == EEXIST) continue;
    if (fd >= 0 && t.kind == OutputTarget::Kind::Regular) {
      // Owner first: changing it may clear set-id bits.  Only root may give a
      // file away; otherwise the replacement is the user's (with the old
      // group where the user is in it).
      if (::fchown(fd, t.owner, t.group) != 0) (void)::fchown(fd, geteuid(), t.group);
      (void)::fchmod(fd, t.mode);
    }
    return fd;
  }
  errno = EEXIST;
  return -1;
}

} // namespace

AtomicFileSet::~AtomicFileSet() {
  for (const auto &s : staged_)
    if (!s.temporary.empty()) std::remove(s.temporary.c_str());
}

void AtomicFileSet::protect(const std::vector<std::string> &paths, const std::string &role) {
  for (const auto &path : paths) try {
      OutputTarget t = inspectOutputTarget(path);
      if (t.exists()) protected_.push_back({std::move(t), role});
    } catch (const DataError &) {
      // A path that cannot be reached cannot be overwritten either.
    }
}

OutputTarget AtomicFileSet::checkOutput(const std::string &path) const {
  OutputTarget t = inspectOutputTarget(path);
  for (const auto &s : staged_) {
    // Streams are written one after the other (`--out A=/dev/stdout --out B=/dev/stdout`).
    if (s.target.kind == OutputTarget::Kind::Stream && t.kind == OutputTarget::Kind::Stream) continue;
    if (s.target.path == path) throw DataError(fmt::format("`{}` is given as the output file of two buffers", path));
    if (sameFile(s.target, t))
      throw DataError(fmt::format("`{}` and `{}` are the same file; give each output its own file", s.target.path, path));
  }
  for (const auto &[file, role] : protected_)
    if (sameFile(file, t))
      throw DataError(fmt::format("cannot write `{}`: it is {} (`{}`); choose another output file", path, role, file.path));
  if (t.kind == OutputTarget::Kind::Directory) throw DataError(fmt::format("cannot write `{}`: it is a directory", path));
  if (t.kind == OutputTarget::Kind::Socket)
    throw DataError(fmt::format("cannot write `{}`: it is a socket, which cannot be opened as a file", path));
  if (t.kind == OutputTarget::Kind::Regular && ::access(t.resolved.c_str(), W_OK) != 0)
    throw DataError(fmt::format("cannot write `{}`: {}", path, std::strerror(errno)));
  if (t.kind == OutputTarget::Kind::Missing || (t.kind == OutputTarget::Kind::Regular && t.links <= 1)) {
    // The temporary file and the rename need the directory: asked now, so a
    // long run does not fail at its end.
    const std::filesystem::path resolved = t.resolved;
    const std::string dir = resolved.has_parent_path() ? resolved.parent_path().string() : ".";
    if (::access(dir.c_str(), W_OK | X_OK) != 0) {
      if (errno == ENOENT || errno == ENOTDIR)
        throw DataError(fmt::format("cannot write `{}`: the directory `{}` does not exist; create it first", path, dir));
      throw DataError(fmt::format("cannot write `{}`: cannot create files in the directory `{}`: {}", path, dir,
                                  std::strerror(errno)));
    }
    // access() answers for the permission bits only (root passes it for /proc): the
    // temporary file itself is the proof.
    std::string probe;
    const int fd = createTemporary(t, size_t(1) << 20, probe);
    if (fd < 0)
      throw DataError(fmt::format("cannot write `{}`: cannot create a temporary file beside `{}`: {}", path, t.resolved,
                                  std::strerror(errno)));
    ::close(fd);
    std::remove(probe.c_str());
  }
  return t;
}

void AtomicFileSet::stage(const std::string &path, const std::vector<uint8_t> &bytes) {
  const OutputTarget t = checkOutput(path);
  Staged s;
  s.target = t;
  s.writtenThrough = t.kind == OutputTarget::Kind::Stream || (t.kind == OutputTarget::Kind::Regular && t.links > 1);
  if (s.writtenThrough) {
    s.bytes = bytes;
    staged_.push_back(std::move(s));
    return;
  }
  const int fd = createTemporary(t, staged_.size(), s.temporary);
  if (fd < 0)
    throw DataError(fmt::format("cannot write `{}`: cannot create a temporary file beside `{}`: {}", path, t.resolved,
                                std::strerror(errno)));
  try {
    writeAndClose(fd, bytes, path);
  } catch (const DataError &) {
    std::remove(s.temporary.c_str());
    throw;
  }
  staged_.push_back(std::move(s));
}

void AtomicFileSet::stageUnlessSame(const std::string &path, const std::vector<uint8_t> &bytes) {
  const OutputTarget t = checkOutput(path);
  std::error_code ec;
  if (t.kind == OutputTarget::Kind::Regular && std::filesystem::file_size(t.resolved, ec) == bytes.size() && !ec) {
    std::ifstream in(t.resolved, std::ios::binary);
    std::vector<uint8_t> held;
    if (in) held.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    if (in.good() || in.eof())
      if (held == bytes) return;
  }
  stage(path, bytes);
}

void AtomicFileSet::commit() {
  for (auto &s : staged_) {
    if (s.writtenThrough) continue;
    if (std::rename(s.temporary.c_str(), s.target.resolved.c_str()) != 0)
      throw DataError(fmt::format("cannot replace `{}`: {}", s.target.path, std::strerror(errno)));
    s.temporary.clear(); // committed: nothing to clean up
  }
  for (const auto &s : staged_) {
    if (!s.writtenThrough) continue;
    // A hard-linked file is rewritten in place so that every name sees the
    // new contents: its blocks are reserved first, so that a full disk fails
    // before a byte of the old contents is overwritten, and it is cut to the
    // new length last.  A device or FIFO is written as it is; a file behind
    // a descriptor link is appended to, after what this process printed.
    const bool inPlace = s.target.kind == OutputTarget::Kind::Regular;
    if (s.target.append) {
      std::fflush(stdout);
      std::fflush(stderr);
    }
    const int fd = ::open(s.target.resolved.c_str(), O_WRONLY | O_CLOEXEC | (s.target.append ? O_APPEND : 0));
    if (fd < 0) throw DataError(fmt::format("cannot write `{}`: {}", s.target.path, std::strerror(errno)));
    if (inPlace && !s.bytes.empty()) {
      const int err = ::posix_fallocate(fd, 0, off_t(s.bytes.size()));
      if (err == ENOSPC || err == EDQUOT || err == EFBIG) {
        ::close(fd);
        throw DataError(fmt::format("cannot write `{}`: {} (its old contents are kept)", s.target.path, std::strerror(err)));
      }
    }
    writeAndClose(fd, s.bytes, s.target.path, inPlace ? std::optional<size_t>(s.bytes.size()) : std::nullopt);
  }
  staged_.clear();
}

} // namespace mdh::data
