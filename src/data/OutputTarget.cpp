/** \file
 * Inspecting output paths with POSIX calls (stat, lstat, readlink).
 */
#include "data/OutputTarget.h"

#include "data/DataError.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

namespace mdh::data {

namespace {

/// The name at the end of `path`'s symbolic links, dangling ones included
/// (writing through a dangling link creates its target, as the shell's `>` does).
std::string followLinks(const std::string &path) {
  std::filesystem::path p = path;
  for (int hops = 0; hops < 40; ++hops) { // the kernel's own limit (ELOOP)
    struct stat st {};
    if (::lstat(p.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return p.string();
    std::error_code ec;
    std::filesystem::path target = std::filesystem::read_symlink(p, ec);
    if (ec) throw DataError(fmt::format("cannot write `{}`: cannot read the link `{}`: {}", path, p.string(), ec.message()));
    p = target.is_absolute() ? target : p.parent_path() / target;
  }
  throw DataError(fmt::format("cannot write `{}`: {}", path, std::strerror(ELOOP)));
}

/// Whether `path` reaches its file through a procfs descriptor link
/// (`/dev/stdout` -> `/proc/self/fd/1` -> the file fd 1 holds): a link
/// whose directory is on procfs.  Its target names the file the descriptor
/// holds (`/x/log.txt`, `/x/log.txt (deleted)`, `pipe:[…]`), which replacing
/// by name would take from the descriptor.
bool throughDescriptorLink(const std::string &path) {
  constexpr long kProcSuperMagic = 0x9fa0; // <linux/magic.h>
  std::filesystem::path p = path;
  for (int hops = 0; hops < 40; ++hops) {
    struct stat st {};
    if (::lstat(p.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return false;
    struct statfs fs {};
    const std::filesystem::path dir = p.has_parent_path() ? p.parent_path() : std::filesystem::path(".");
    if (::statfs(dir.c_str(), &fs) == 0 && long(fs.f_type) == kProcSuperMagic) return true;
    std::error_code ec;
    std::filesystem::path target = std::filesystem::read_symlink(p, ec);
    if (ec) return false;
    p = target.is_absolute() ? target : p.parent_path() / target;
  }
  return false;
}

} // namespace

OutputTarget inspectOutputTarget(const std::string &path) {
  OutputTarget t;
  t.path = path;
  t.resolved = path;
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) {
    t.device = st.st_dev;
    t.inode = st.st_ino;
    if (S_ISDIR(st.st_mode)) {
      t.kind = OutputTarget::Kind::Directory;
      return t;
    }
    if (S_ISSOCK(st.st_mode)) {
      t.kind = OutputTarget::Kind::Socket;
      return t;
    }
    if (!S_ISREG(st.st_mode) || throughDescriptorLink(path)) {
      // Written through the path as given: `/dev/fd/3` may link to `pipe:[…]`, which is no path.
      t.kind = OutputTarget::Kind::Stream;
      t.append = S_ISREG(st.st_mode);
      return t;
    }
    t.kind = OutputTarget::Kind::Regular;
    t.mode = st.st_mode & 07777;
    t.owner = st.st_uid;
    t.group = st.st_gid;
    t.links = st.st_nlink;
  } else if (errno != ENOENT) {
    throw DataError(fmt::format("cannot write `{}`: {}", path, std::strerror(errno)));
  }
  t.resolved = followLinks(path);
  return t;
}

bool sameFile(const OutputTarget &a, const OutputTarget &b) {
  if (a.exists() || b.exists()) return a.exists() && b.exists() && a.device == b.device && a.inode == b.inode;
  // Absolute first: weakly_canonical keeps `x.npy` relative but resolves `./x.npy`.
  std::error_code ea, eb;
  const auto ca = std::filesystem::weakly_canonical(std::filesystem::absolute(a.resolved, ea), ea);
  const auto cb = std::filesystem::weakly_canonical(std::filesystem::absolute(b.resolved, eb), eb);
  return ea || eb ? a.resolved == b.resolved : ca == cb;
}

} // namespace mdh::data
