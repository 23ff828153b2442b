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

/// Where `path`'s symbolic links end, dangling ones included (writing through
/// a dangling link creates its target, as the shell's `>` does).
struct LinkChain {
  std::string end;
  /// A link on the way lies in a procfs directory: a descriptor link
  /// (`/dev/stdout` -> `/proc/self/fd/1`), whose target names the file the
  /// descriptor holds (`/x/log.txt`, `/x/log.txt (deleted)`, `pipe:[…]`),
  /// which replacing by name would take from the descriptor.
  bool throughDescriptor = false;
};

LinkChain followLinks(const std::string &path) {
  constexpr long kProcSuperMagic = 0x9fa0; // <linux/magic.h>
  LinkChain chain;
  std::filesystem::path p = path;
  for (int hops = 0; hops < 40; ++hops) { // the kernel's own limit (ELOOP)
    struct stat st {};
    if (::lstat(p.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) {
      chain.end = p.string();
      return chain;
    }
    struct statfs fs {};
    const std::filesystem::path dir = p.has_parent_path() ? p.parent_path() : std::filesystem::path(".");
    if (::statfs(dir.c_str(), &fs) == 0 && long(fs.f_type) == kProcSuperMagic) {
      chain.throughDescriptor = true;
      chain.end = p.string();
      return chain;
    }
    std::error_code ec;
    std::filesystem::path target = std::filesystem::read_symlink(p, ec);
    if (ec) throw DataError(fmt::format("cannot write `{}`: cannot read the link `{}`: {}", path, p.string(), ec.message()));
    p = target.is_absolute() ? target : p.parent_path() / target;
  }
  throw DataError(fmt::format("cannot write `{}`: {}", path, std::strerror(ELOOP)));
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
    // Streams are written through the path as given: `/dev/fd/3` may link to
    // `pipe:[…]`, which is no path.
    t.kind = OutputTarget::Kind::Stream;
    if (!S_ISREG(st.st_mode)) return t;
    const LinkChain chain = followLinks(path);
    if (chain.throughDescriptor) {
      t.append = true;
      return t;
    }
    t.kind = OutputTarget::Kind::Regular;
    t.resolved = chain.end;
    t.mode = st.st_mode & 07777;
    t.owner = st.st_uid;
    t.group = st.st_gid;
    t.links = st.st_nlink;
    return t;
  }
  if (errno != ENOENT) throw DataError(fmt::format("cannot write `{}`: {}", path, std::strerror(errno)));
  t.resolved = followLinks(path).end;
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
