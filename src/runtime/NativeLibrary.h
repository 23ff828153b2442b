/** \file
 * Building generated C++ with the system compiler (or generated CUDA with
 * nvcc) into a shared library and loading its entry points.
 *
 * Used by `mdhc run`, the differential tester and the tuner.  Invariants: a
 * failed compile or load returns an error message (the compiler's output),
 * never throws; the library is unloaded when the object dies; builds happen
 * in a private temporary directory that is removed afterwards (unless
 * `keepDir`).
 */
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace mdh::runtime {

using GenericEntry = int (*)(const int64_t *sizes, void *const *buffers);

/// What compiles the source: the host C++ compiler (OpenMP and OpenCL host
/// code) or nvcc (a .cu file, kernels and host code).
enum class Toolchain { HostCxx, Cuda };

/// Why build() returned nullptr.  Interrupted: the compiler died of Ctrl-C or
/// SIGTERM (std::system ignores SIGINT in the caller while the compiler runs,
/// so the caller learns of a Ctrl-C only this way, and should stop as if it
/// had received it rather than report a compiler failure).
enum class BuildFailure { None, Setup, Compile, Interrupted, Load };

class NativeLibrary {
public:
  ~NativeLibrary();
  NativeLibrary(const NativeLibrary &) = delete;
  NativeLibrary &operator=(const NativeLibrary &) = delete;

  /// Compiles `source` with `flags` (plus -shared -fPIC; HostCxx also adds
  /// -std=c++17) and loads it.
  static std::unique_ptr<NativeLibrary> build(const std::string &source, const std::string &flags, std::string &error,
                                              const std::string &keepDir = "", Toolchain toolchain = Toolchain::HostCxx,
                                              BuildFailure *failure = nullptr);
  /// The generic `<name>_run` entry, or nullptr.
  GenericEntry entry(const std::string &name) const;
  /// Any exported symbol, or nullptr.
  void *symbol(const std::string &name) const;

private:
  NativeLibrary() = default;
  void *handle_ = nullptr;
  std::string dir_;
  bool removeDir_ = true;
};

/// The C++ compiler used for generated code: $MDH_CXX, else $CXX, else c++.
std::string hostCompiler();

} // namespace mdh::runtime
