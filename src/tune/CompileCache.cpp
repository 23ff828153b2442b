/** \file
 * The compile cache.
 */
#include "tune/CompileCache.h"

#include "runtime/CompilerWorkarounds.h"
#include "runtime/CudaDevice.h"
#include "runtime/NativeLibrary.h"
#include "tune/ChildProcess.h"
#include "tune/Hash.h"
#include "tune/Interrupt.h"

#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <unistd.h>

namespace fs = std::filesystem;

namespace mdh::tune {
namespace {

/// How a timed-out compile's error starts (Entry::timedOut, also for a cached one).
constexpr const char *kTimedOut = "the compiler ran longer than";

std::string readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), {});
}

bool writeFile(const std::string &path, const std::string &text) {
  std::ofstream o(path, std::ios::binary);
  o << text;
  return bool(o);
}

} // namespace

std::string compilerVersion(const std::string &compiler, bool lastLine) {
  std::string cmd = compiler + " --version 2>/dev/null";
  std::string line;
  if (FILE *p = popen(cmd.c_str(), "r")) {
    char buf[512];
    while (fgets(buf, sizeof buf, p)) {
      if (buf[0] != '\n' && (line.empty() || lastLine)) line = buf;
      if (!lastLine) break;
    }
    pclose(p);
  }
  while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.pop_back();
  return line.empty() ? compiler : line;
}

std::string CompileCache::defaultDir() {
  if (const char *d = std::getenv("MDH_CACHE_DIR"); d && *d) return d;
  if (const char *x = std::getenv("XDG_CACHE_HOME"); x && *x) return std::string(x) + "/mdh";
  if (const char *h = std::getenv("HOME"); h && *h) return std::string(h) + "/.cache/mdh";
  return (fs::temp_directory_path() / "mdh-cache").string();
}

CompileCache::CompileCache(std::string dir, runtime::Toolchain toolchain)
    : dir_(dir.empty() ? defaultDir() : std::move(dir)), toolchain_(toolchain) {
  const bool cuda = toolchain_ == runtime::Toolchain::Cuda;
  compiler_ = cuda ? runtime::cudaCompiler() : runtime::hostCompiler();
  compilerId_ = compiler_.empty() ? "nvcc (not found)" : compiler_ + " | " + compilerVersion(compiler_, cuda);
  // Part of the identity, so that libraries built without them are not reused.
  if (!cuda && !compiler_.empty()) workaroundFlags_ = runtime::hostCompilerWorkaroundFlags(compiler_);
  compilerId_ += workaroundFlags_;
  std::error_code ec;
  fs::create_directories(dir_ + "/so", ec);
  if (ec || access((dir_ + "/so").c_str(), W_OK) != 0) {
    std::string tmpl = (fs::temp_directory_path() / "mdh-cache-XXXXXX").string();
    std::vector<char> buf(tmpl.begin(), tmpl.end());
    buf.push_back(0);
    if (mkdtemp(buf.data())) {
      fmt::print(stderr, "warning: cannot use the compile cache `{}`; compiling into a temporary directory "
                         "(set MDH_CACHE_DIR to a writable directory)\n", dir_);
      dir_ = buf.data();
      temporary_ = true;
      fs::create_directories(dir_ + "/so", ec);
    }
  }
}

CompileCache::~CompileCache() {
  std::error_code ec;
  if (temporary_) fs::remove_all(dir_, ec);
}

std::string CompileCache::key(const std::string &source, const std::string &flags) const {
  return stableHash(compilerId_ + '\0' + flags + '\0' + source);
}

std::vector<CompileCache::Entry> CompileCache::build(const std::vector<std::string> &sources, const std::string &flags, int jobs,
                                                     double timeoutSeconds) {
  std::vector<Entry> out(sources.size());
  if (compiler_.empty()) {
    for (auto &e : out)
      e.error = runtime::cudaCompilerMissing();
    return out;
  }
  const bool cuda = toolchain_ == runtime::Toolchain::Cuda;
  const std::string file = cuda ? "kernel.cu" : "kernel.cpp";
  std::vector<size_t> todo;
  for (size_t i = 0; i < sources.size(); ++i) {
    std::string base = dir_ + "/so/" + key(sources[i], flags);
    if (fs::exists(base + ".so")) {
      out[i].library = base + ".so";
      out[i].cached = true;
    } else if (fs::exists(base + ".err")) {
      out[i].error = readFile(base + ".err");
      out[i].timedOut = out[i].error.rfind(kTimedOut, 0) == 0;
      out[i].cached = true;
    } else {
      todo.push_back(i);
    }
  }
  if (jobs < 1) jobs = 1;
  for (size_t first = 0; first < todo.size(); first += size_t(jobs)) {
    if (interruptRequested()) { // Ctrl-C: start no more compilers
      for (size_t k = first; k < todo.size(); ++k) out[todo[k]].error = "compilation was interrupted";
      break;
    }
    std::vector<size_t> group(todo.begin() + long(first), todo.begin() + long(std::min(todo.size(), first + size_t(jobs))));
    std::vector<std::string> cmds, tmpDirs;
    for (size_t i : group) {
      std::string tmp = fmt::format("{}/so/tmp-{}-{}", dir_, getpid(), key(sources[i], flags));
      std::error_code ec;
      fs::create_directories(tmp, ec);
      tmpDirs.push_back(tmp);
      if (!writeFile(tmp + "/" + file, sources[i])) {
        cmds.push_back("false");
        continue;
      }
      // coreutils timeout: exit status 124 when it stopped the compiler. `exec`: the
      // shell becomes `timeout`, which gets runCommands' SIGTERM if the tuner dies.
      std::string limit = timeoutSeconds > 0 ? fmt::format("timeout -k 5 {:.0f} ", std::ceil(timeoutSeconds)) : "";
      cmds.push_back(fmt::format("exec {}{} {} {}{} -shared {} -o '{}/kernel.so' '{}/{}' > '{}/compile.log' 2>&1", limit, compiler_,
                                 cuda ? "" : "-std=c++17", flags, workaroundFlags_, cuda ? "-Xcompiler -fPIC" : "-fPIC", tmp, tmp,
                                 file, tmp));
    }
    auto rcs = runCommands(cmds);
    for (size_t g = 0; g < group.size(); ++g) {
      size_t i = group[g];
      std::string base = dir_ + "/so/" + key(sources[i], flags);
      std::error_code ec;
      if (rcs[g] == 0) {
        fs::rename(tmpDirs[g] + "/kernel.so", base + ".so", ec);
        if (ec) out[i].error = fmt::format("cannot store the compiled library in the cache `{}`: {}", dir_, ec.message());
        else out[i].library = base + ".so";
      } else if (rcs[g] > 0) {
        std::string log = readFile(tmpDirs[g] + "/compile.log");
        if (log.size() > 4000) log = log.substr(0, 4000) + "\n...";
        out[i].timedOut = timeoutSeconds > 0 && (rcs[g] == 124 || rcs[g] == 137);
        if (out[i].timedOut)
          out[i].error = fmt::format("{} {:.0f} s and was stopped ({} {}); a very large unrolled tile or many candidates "
                                     "in one unit", kTimedOut, std::ceil(timeoutSeconds), compiler_, flags);
        else
          out[i].error = fmt::format("compiling the generated code failed ({} {}):\n{}", compiler_, flags, log);
        // Cache the failure (atomically), so a resumed run does not retry it.
        if (writeFile(tmpDirs[g] + "/error", out[i].error)) fs::rename(tmpDirs[g] + "/error", base + ".err", ec);
      } else {
        out[i].error = "compilation was interrupted";
      }
      fs::remove_all(tmpDirs[g], ec);
    }
  }
  return out;
}

} // namespace mdh::tune
