/** \file
 * Temporary-file-and-rename output writing.
 */
#include "data/AtomicFiles.h"

#include "data/DataError.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <unistd.h>

namespace mdh::data {

AtomicFileSet::~AtomicFileSet() {
  for (const auto &[tmp, target] : staged_) std::remove(tmp.c_str());
}

void AtomicFileSet::stage(const std::string &path, const std::vector<uint8_t> &bytes) {
  for (const auto &[tmp, target] : staged_)
    if (target == path) throw DataError(fmt::format("`{}` is given as the output file of two buffers", path));
  std::string tmp = fmt::format("{}.tmp.{}.{}", path, getpid(), staged_.size());
  FILE *f = std::fopen(tmp.c_str(), "wb");
  if (!f) throw DataError(fmt::format("cannot write `{}`: {}", path, std::strerror(errno)));
  bool ok = bytes.empty() || std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
  ok &= std::fflush(f) == 0;
  ok &= std::fclose(f) == 0;
  if (!ok) {
    int err = errno;
    std::remove(tmp.c_str());
    throw DataError(fmt::format("cannot write `{}`: {}", path, std::strerror(err)));
  }
  staged_.push_back({tmp, path});
}

void AtomicFileSet::commit() {
  for (size_t i = 0; i < staged_.size(); ++i) {
    const auto &[tmp, target] = staged_[i];
    if (std::rename(tmp.c_str(), target.c_str()) != 0) {
      int err = errno;
      throw DataError(fmt::format("cannot replace `{}`: {}", target, std::strerror(err)));
    }
    staged_[i].first.clear(); // committed: nothing to clean up
  }
  staged_.clear();
}

} // namespace mdh::data
