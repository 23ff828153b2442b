/** \file
 * All-or-nothing writing of a set of output files.
 *
 * Each file is first written completely to a temporary file in the
 * directory of its target (so the final rename stays on one file system);
 * only when every temporary file is complete are they renamed over their
 * targets.  A run that fails before commit() therefore never leaves a
 * half-written file or clobbers an existing one: the destructor removes
 * uncommitted temporaries.
 *
 * What a target is decides how it is replaced (OutputTarget.h):
 *  - through a symbolic link, the file at its end is replaced and the link
 *    kept;
 *  - a replaced file keeps its permission bits (and its owner and group
 *    where the process may set them); a file the user may not write is
 *    refused, as the shell's `>` refuses it;
 *  - a regular file with several hard links, a device or FIFO (`/dev/null`)
 *    and a path through a descriptor link (`/dev/stdout`, appended to) are
 *    written through at commit(), after the renames, which is not atomic but
 *    keeps the links and the device (a hard-linked file's space is reserved
 *    before it is overwritten, so a full disk keeps its old contents);
 *  - a directory and a socket are refused, and so is a missing directory or
 *    one the user may not write, before anything is computed.
 * Two outputs that name one file under different spellings (`x.npy`,
 * `./x.npy`, a link to it), and an output that is a protected file (the
 * program's source), are refused when staged.
 */
#pragma once

#include "data/OutputTarget.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace mdh::data {

class AtomicFileSet {
public:
  AtomicFileSet() = default;
  AtomicFileSet(const AtomicFileSet &) = delete;
  AtomicFileSet &operator=(const AtomicFileSet &) = delete;
  ~AtomicFileSet();

  /// No output staged after this may overwrite one of `paths`; `role` says
  /// what they are in the message (`a source file of the program`).  Paths
  /// that do not exist are ignored.
  void protect(const std::vector<std::string> &paths, const std::string &role);
  /// What stage() checks before it writes anything: throws DataError when
  /// `path` cannot be an output of this set (so a long run can fail early).
  OutputTarget checkOutput(const std::string &path) const;
  /// Writes `bytes` to a temporary next to `path` (or keeps them for a
  /// target written through); throws DataError on failure.
  void stage(const std::string &path, const std::vector<uint8_t> &bytes);
  /// stage(), except that a regular file that already holds exactly `bytes`
  /// is left alone (not even its modification time changes), so that a build
  /// tool that compares times (Ninja's restat, which CMake sets for custom
  /// commands) does not rebuild what depends on it. Generated sources use it:
  /// a comment-only edit of a .mdh file regenerates the same code.
  void stageUnlessSame(const std::string &path, const std::vector<uint8_t> &bytes);
  /// Renames every staged file onto its target, then writes the targets
  /// written through; throws DataError on failure.
  void commit();

private:
  struct Staged {
    OutputTarget target;
    bool writtenThrough = false; ///< at commit(), from `bytes`; else renamed from `temporary`
    std::string temporary;
    std::vector<uint8_t> bytes;
  };
  std::vector<Staged> staged_;
  std::vector<std::pair<OutputTarget, std::string>> protected_; ///< (file, role)
};

} // namespace mdh::data
