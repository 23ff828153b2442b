/** \file
 * NativeLibrary: compile with the host compiler or nvcc, dlopen, dlsym.
 */
#include "runtime/NativeLibrary.h"

#include "runtime/CompilerWorkarounds.h"
#include "runtime/CudaDevice.h"

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <dlfcn.h>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <sys/wait.h>

namespace fs = std::filesystem;

namespace mdh::runtime {

std::string hostCompiler() {
  if (const char *c = std::getenv("MDH_CXX"); c && *c) return c;
  if (const char *c = std::getenv("CXX"); c && *c) return c;
  return "c++";
}

NativeLibrary::~NativeLibrary() {
  if (handle_) dlclose(handle_);
  std::error_code ec;
  if (removeDir_ && !dir_.empty()) fs::remove_all(dir_, ec);
}

std::unique_ptr<NativeLibrary> NativeLibrary::build(const std::string &source, const std::string &flags, std::string &error,
                                                    const std::string &keepDir, Toolchain toolchain,
                                                    BuildFailure *failure) {
  BuildFailure ignored;
  BuildFailure &why = failure ? *failure : ignored;
  why = BuildFailure::Setup;
  const bool cuda = toolchain == Toolchain::Cuda;
  const std::string nvcc = cuda ? cudaCompiler() : "";
  if (cuda && nvcc.empty()) {
    error = runtime::cudaCompilerMissing();
    return nullptr;
  }
  std::unique_ptr<NativeLibrary> lib(new NativeLibrary());
  std::error_code ec;
  if (!keepDir.empty()) {
    fs::create_directories(keepDir, ec);
    lib->dir_ = keepDir;
    lib->removeDir_ = false;
  } else {
    std::string tmpl = (fs::temp_directory_path(ec) / "mdh-build-XXXXXX").string();
    std::vector<char> buf(tmpl.begin(), tmpl.end());
    buf.push_back(0);
    if (!mkdtemp(buf.data())) {
      error = "cannot create a temporary build directory";
      return nullptr;
    }
    lib->dir_ = buf.data();
  }
  std::string src = lib->dir_ + (cuda ? "/kernel.cu" : "/kernel.cpp"), so = lib->dir_ + "/kernel.so", log = lib->dir_ + "/compile.log";
  {
    std::ofstream o(src, std::ios::binary);
    o << source;
    if (!o) {
      error = fmt::format("cannot write {}", src);
      return nullptr;
    }
  }
  // The command as messages show it: without the redirection into a log that
  // is removed with the build directory once the message is written.
  const std::string shown = cuda ? fmt::format("'{}' {} -shared -Xcompiler -fPIC -o '{}' '{}'", nvcc, flags, so, src)
                                 : fmt::format("{} -std=c++17 {}{} -shared -fPIC -o '{}' '{}'", hostCompiler(), flags,
                                               hostCompilerWorkaroundFlags(hostCompiler()), so, src);
  const std::string cmd = fmt::format("{} > '{}' 2>&1", shown, log);
  int rc = std::system(cmd.c_str());
  // A Ctrl-C reaches the compiler (same process group) and the shell running
  // it: the shell dies of the signal or exits 128 + its number.
  const bool interrupted =
      rc != -1 && ((WIFSIGNALED(rc) && (WTERMSIG(rc) == SIGINT || WTERMSIG(rc) == SIGTERM)) ||
                   (WIFEXITED(rc) && (WEXITSTATUS(rc) == 128 + SIGINT || WEXITSTATUS(rc) == 128 + SIGTERM)));
  if (interrupted) {
    why = BuildFailure::Interrupted;
    error = "interrupted while compiling the generated code";
    return nullptr;
  }
  if (rc != 0) {
    std::ifstream in(log);
    std::string text((std::istreambuf_iterator<char>(in)), {});
    if (text.size() > 4000) text = text.substr(0, 4000) + "\n...";
    why = BuildFailure::Compile;
    error = fmt::format("compiling the generated code failed ({}):\n{}", shown, text);
    return nullptr;
  }
  // Pin the OpenMP runtime: when the last kernel library is unloaded, its
  // worker threads must not lose their code (RTLD_NODELETE keeps it mapped).
  dlopen("libgomp.so.1", RTLD_NOW | RTLD_GLOBAL | RTLD_NODELETE);
  lib->handle_ = dlopen(so.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!lib->handle_) {
    why = BuildFailure::Load;
    error = fmt::format("cannot load {}: {}", so, dlerror());
    return nullptr;
  }
  why = BuildFailure::None;
  return lib;
}

GenericEntry NativeLibrary::entry(const std::string &name) const {
  return reinterpret_cast<GenericEntry>(dlsym(handle_, (name + "_run").c_str()));
}

void *NativeLibrary::symbol(const std::string &name) const { return dlsym(handle_, name.c_str()); }

} // namespace mdh::runtime
