/** \file
 * NativeLibrary: compile with the host compiler or nvcc, dlopen, dlsym.
 */
#include "runtime/NativeLibrary.h"

#include "runtime/CompilerWorkarounds.h"
#include "runtime/CudaDevice.h"

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
                                                    const std::string &keepDir, Toolchain toolchain) {
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
  std::string cmd = cuda ? fmt::format("'{}' {} -shared -Xcompiler -fPIC -o '{}' '{}' > '{}' 2>&1", nvcc, flags, so, src, log)
                         : fmt::format("{} -std=c++17 {}{} -shared -fPIC -o '{}' '{}' > '{}' 2>&1", hostCompiler(), flags,
                                       hostCompilerWorkaroundFlags(hostCompiler()), so, src, log);
  int rc = std::system(cmd.c_str());
  if (rc != 0) {
    std::ifstream in(log);
    std::string text((std::istreambuf_iterator<char>(in)), {});
    if (text.size() > 4000) text = text.substr(0, 4000) + "\n...";
    error = fmt::format("compiling the generated code failed ({}):\n{}", cmd, text);
    return nullptr;
  }
  // Pin the OpenMP runtime: when the last kernel library is unloaded, its
  // worker threads must not lose their code (RTLD_NODELETE keeps it mapped).
  dlopen("libgomp.so.1", RTLD_NOW | RTLD_GLOBAL | RTLD_NODELETE);
  lib->handle_ = dlopen(so.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!lib->handle_) {
    error = fmt::format("cannot load {}: {}", so, dlerror());
    return nullptr;
  }
  return lib;
}

GenericEntry NativeLibrary::entry(const std::string &name) const {
  return reinterpret_cast<GenericEntry>(dlsym(handle_, (name + "_run").c_str()));
}

} // namespace mdh::runtime
