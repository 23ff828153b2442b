/** \file
 * What writing to a path reaches: the file at the end of its symbolic links
 * and what kind of file that is, so that an output replaces the right file
 * the right way (AtomicFiles.h):
 *
 *  - a regular file, or a name that does not exist yet: replaced (created)
 *    atomically at the end of the links (`out.npy -> data/out.npy` keeps the
 *    link and replaces `data/out.npy`);
 *  - a character or block device or a FIFO (`/dev/null`, a named pipe): written
 *    through, as `cat > /dev/null` would;
 *  - a path through a descriptor link (`/dev/stdout`, `/dev/fd/N`,
 *    `/proc/self/fd/N`), whatever file the descriptor holds: written through
 *    and appended, as the process's own descriptor would write it (`mdhi …
 *    --out O=/dev/stdout >> log` appends to log, never replaces it);
 *  - a socket: refused (it cannot be opened by name);
 *  - a directory: refused.
 *
 * Two paths name the same file when they reach the same inode, or, for
 * files that do not exist yet, the same canonical path (`x.npy`, `./x.npy`).
 */
#pragma once

#include <sys/types.h>

#include <string>

namespace mdh::data {

struct OutputTarget {
  enum class Kind { Missing, Regular, Stream, Directory, Socket };
  Kind kind = Kind::Missing;
  std::string path;     ///< as given
  std::string resolved; ///< where its symbolic links end (Stream: the path as given)
  bool append = false;  ///< Stream: opened to append (a file behind a descriptor link)
  mode_t mode = 0;      ///< Regular: permission bits to keep
  uid_t owner = 0;
  gid_t group = 0;
  nlink_t links = 0;    ///< Regular: hard links to it
  dev_t device = 0;     ///< identity of an existing file
  ino_t inode = 0;

  bool exists() const { return kind != Kind::Missing; }
};

/// Looks at `path`; throws DataError when it cannot be reached (a loop of
/// links, a directory on the way that cannot be searched).
OutputTarget inspectOutputTarget(const std::string &path);

/// Whether two inspected paths name the same file.
bool sameFile(const OutputTarget &a, const OutputTarget &b);

} // namespace mdh::data
