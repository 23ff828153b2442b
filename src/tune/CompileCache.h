/** \file
 * The compile cache: shared libraries of generated code, keyed by a hash of
 * (source text, compiler flags, compiler identity), so that a resumed or
 * repeated tuning run does not compile a candidate batch twice.
 *
 * Location: $MDH_CACHE_DIR, else $XDG_CACHE_HOME/mdh, else ~/.cache/mdh
 * (libraries under `so/`).  Invariants: an entry appears only complete (it
 * is compiled in a private temporary directory and renamed into place), so
 * a crash mid-compile never leaves a broken library; compile errors are
 * cached too (`<key>.err`), so a failing source is not recompiled.  Entries
 * are never evicted: delete the directory to reclaim space.
 *
 * Toolchains: the host C++ compiler (`.cpp`, -std=c++17 -shared -fPIC) or
 * nvcc (`.cu`, -shared -Xcompiler -fPIC); its identity is part of every key.
 */
#pragma once

#include "runtime/NativeLibrary.h"

#include <string>
#include <vector>

namespace mdh::tune {

class CompileCache {
public:
  /// `dir` empty: defaultDir().  With Toolchain::Cuda and no nvcc,
  /// compilerMissing() is true and every build fails with that message.
  explicit CompileCache(std::string dir = "", runtime::Toolchain toolchain = runtime::Toolchain::HostCxx);
  ~CompileCache();
  CompileCache(const CompileCache &) = delete;
  CompileCache &operator=(const CompileCache &) = delete;

  static std::string defaultDir();
  /// The compiler command and the first line of its `--version`.
  const std::string &compilerId() const { return compilerId_; }
  bool compilerMissing() const { return compiler_.empty(); }

  struct Entry {
    std::string library; ///< path of the .so (empty on error)
    std::string error;   ///< the compiler's complaint
    bool cached = false; ///< found, not compiled now
    bool timedOut = false; ///< stopped by the compile timeout (now, or when it was cached)
  };
  /// Libraries for `sources` compiled with `flags`; the missing ones are
  /// compiled concurrently, at most `jobs` at a time.  A compiler still
  /// running after `timeoutSeconds` (> 0) is stopped and the source recorded
  /// as failed (cached like a compile error: the same source is not retried).
  std::vector<Entry> build(const std::vector<std::string> &sources, const std::string &flags, int jobs,
                           double timeoutSeconds = 0);
  /// The cache key of one source.
  std::string key(const std::string &source, const std::string &flags) const;

private:
  std::string dir_;
  bool temporary_ = false; ///< the cache directory could not be used: a private one, removed at the end
  runtime::Toolchain toolchain_;
  std::string compiler_, compilerId_;
  std::string workaroundFlags_; ///< runtime::hostCompilerWorkaroundFlags, in every host compile and in compilerId_
};

/// The first line of `<compiler> --version` (or the compiler's name); with
/// `lastLine`, its last line (nvcc's first line names no version).
std::string compilerVersion(const std::string &compiler, bool lastLine = false);

} // namespace mdh::tune
