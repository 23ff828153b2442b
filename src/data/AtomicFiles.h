/** \file
 * All-or-nothing writing of a set of output files.
 *
 * Each file is first written completely to a temporary file in the same
 * directory (so the final rename stays on one file system); only when every
 * temporary file is complete are they renamed over their targets.  A run
 * that fails before commit() therefore never leaves a half-written file or
 * clobbers an existing one: the destructor removes uncommitted temporaries.
 */
#pragma once

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

  /// Writes `bytes` to a temporary next to `path`; throws DataError on failure.
  void stage(const std::string &path, const std::vector<uint8_t> &bytes);
  /// Renames every staged file onto its target; throws DataError on failure.
  void commit();

private:
  std::vector<std::pair<std::string, std::string>> staged_; ///< (temporary, target)
};

} // namespace mdh::data
