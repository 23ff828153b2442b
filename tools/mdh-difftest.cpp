// mdh-difftest — differential testing of mdhc's generated code against the
// reference interpreter, on a given program or on randomly generated ones.
// A thin front end on src/testing.
#include "driver/CliSupport.h"
#include "support/CliChecks.h"
#include "driver/Compilation.h"
#include "ll/Config.h"
#include "runtime/CudaDevice.h"
#include "testing/DiffTest.h"
#include "testing/ProgramGenerator.h"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <fmt/format.h>
#include <unistd.h>

using namespace mdh;

namespace {

/// Whether files can be made in `dir` (created if missing); the reason otherwise.
bool usableDirectory(const std::string &dir, std::string &reason) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    reason = fmt::format("cannot create the directory: {}", ec.message());
    return false;
  }
  if (!std::filesystem::is_directory(dir, ec)) {
    reason = "it is not a directory";
    return false;
  }
  if (::access(dir.c_str(), W_OK | X_OK) != 0) {
    reason = fmt::format("cannot write into it: {}", std::strerror(errno));
    return false;
  }
  return true;
}

} // namespace

int main(int argc, char **argv) {
  CLI::App app{"mdh-difftest — generated code against the reference interpreter"};
  std::string file, entry;
  std::vector<std::string> sets, includes, extraConfigs;
  int generate = 0, configs = 8;
  uint64_t seed = 1;
  double tol = 0, timeout = 300;
  bool verbose = false;
  std::string opt = "-O1", keep, backend = "openmp";
  app.add_option("file", file, ".mdh program (omit with --generate)");
  app.add_option("-e,--entry", entry, "mdh to instantiate");
  app.add_option("-s,--set", sets, "meta-parameter values and run-time sizes, e.g. T=i32,N=17")->allow_extra_args(false);
  app.add_option("-I,--include", includes, "import search directory")->allow_extra_args(false);
  app.add_option("--generate", generate, "test N randomly generated programs")->check(atLeast(1));
  app.add_option("--configs", configs, "random configurations per program (plus the default)")->check(atLeast(0));
  app.add_option("--config", extraConfigs,
                 "a configuration to test besides the random ones: a JSON file or JSON text (partial ones completed by the default); repeatable")
      ->allow_extra_args(false);
  app.add_option("--seed", seed, "seed of inputs, configurations and generated programs")->check(atLeast(0));
  app.add_option("--float-tolerance", tol, "relative tolerance for float results (0: bit-exact)");
  app.add_option("--timeout", timeout, "seconds one OpenMP kernel run may take (it runs in a child process; past this, a mismatch)")
      ->check(above(0));
  app.add_option("--opt", opt, "flags for the generated code (OpenMP: after -march=native, e.g. \"-O3 -mno-avx512f\")");
  app.add_option("--keep", keep, "keep the generated source in this directory (made if missing)")
      ->check(nonEmpty("omit --keep to keep nothing"));
  app.add_flag("-v,--verbose", verbose, "print every configuration");
  app.add_option("--backend", backend,
                 "openmp | opencl (the GPU kernels on the default OpenCL device) | cuda (the same kernels built by nvcc, on CUDA "
                 "device 0)")
      ->check(CLI::IsMember({"openmp", "opencl", "cuda"}));
  if (int rc = parseCommandLine(app, argc, argv); rc >= 0) return rc;
  if (backend == "cuda") {
    // Said once, before any program is generated or run.
    std::string why;
    auto device = runtime::queryCudaDevice(why);
    if (!device) {
      fmt::print(stderr, "error: --backend cuda: {}; without an NVIDIA GPU, test the same kernels with --backend opencl\n", why);
      return 2;
    }
    const std::string nvcc = runtime::cudaCompiler();
    if (nvcc.empty()) {
      fmt::print(stderr, "error: --backend cuda: nvcc not found (looked at $NVCC, PATH, $CUDA_HOME/bin, /usr/local/cuda/bin): "
                         "install the CUDA toolkit or set NVCC\n");
      return 2;
    }
    fmt::print("difftest: CUDA device 0: {} (compute capability {}.{}), built by {}\n", device->name, device->major, device->minor,
               nvcc);
  }

  testing::DiffTestOptions o;
  o.randomConfigs = configs;
  for (const auto &arg : extraConfigs) {
    // Malformed configurations are the command line's fault, found before any testing.
    nlohmann::json j;
    std::string err;
    ll::Config parsed;
    if (!readConfigJson(arg, j, err)) {
      fmt::print(stderr, "error: {}\n", err);
      return 2;
    }
    if (!ll::fromJson(j, parsed, err)) {
      fmt::print(stderr, "error: --config {}: {}\n", configArgumentName(arg), err);
      return 2;
    }
    o.extraConfigs.push_back(j.dump());
  }
  if (!keep.empty()) {
    std::string err;
    if (!usableDirectory(keep, err)) {
      fmt::print(stderr, "error: --keep {}: {}\n", keep, err);
      return 2;
    }
  }
  o.optFlags = opt;
  o.floatTolerance = tol;
  o.timeoutSeconds = timeout;
  o.verbose = verbose;
  o.keepDir = keep;
  o.backend = backend;
  int programs = 0, totalConfigs = 0, failed = 0, passed = 0, unusable = 0;
  bool interrupted = false;
  auto start = std::chrono::steady_clock::now();
  auto runOne = [&](const std::string &path, const std::string &text, const std::string &ent, const MetaSettings &settings,
                    uint64_t s, const std::string &label) {
    CompilationOptions co;
    co.includeDirs = includes;
    Compilation comp(co);
    if (text.empty()) comp.addFile(path);
    else comp.addSource(path, text);
    comp.analyze();
    // --set also gives run-time sizes (`*`), as in `mdhc run` and `mdhi run`.
    MetaSettings meta;
    std::map<std::string, std::string> runtimeSizes;
    splitRunTimeSizes(comp.diags().hasErrors() ? nullptr : comp.sema().lookup(ent), settings, meta, runtimeSizes);
    std::unique_ptr<hl::Program> prog;
    if (!comp.diags().hasErrors()) prog = comp.sema().instantiate(ent, meta);
    if (!prog) {
      printDiagnostics(comp, stderr);
      fmt::print("FAIL {}: does not instantiate\n{}\n", label, text);
      ++failed;
      return;
    }
    o.runtimeSizes.clear();
    Diagnostic problem;
    if (!readRunTimeSizes(ent, *prog, runtimeSizes, o.runtimeSizes, problem, comp.sema().lookup(ent))) {
      // A value no run can take (0, `3abc`): nothing tested, like sizes the interpreter rejects.
      fmt::print(stderr, "{}", renderDiagnostic(comp.sources(), problem, isTerminal(stderr)));
      ++unusable;
      return;
    }
    std::string labelWithSizes = label;
    for (const auto &[k, n] : o.runtimeSizes) labelWithSizes += fmt::format(" {}={}", k, n);
    o.seed = s;
    auto r = testing::diffTest(*prog, text.empty() ? path : "\n" + text, o);
    if (r.interrupted) {
      interrupted = true;
      return;
    }
    if (!r.unusable.empty()) {
      fmt::print(stderr, "error: {}: {}\n", labelWithSizes, r.unusable);
      ++unusable;
      return;
    }
    ++programs;
    totalConfigs += r.configurations;
    if (r.mismatches) {
      ++failed;
      fmt::print("FAIL {} ({} of {} configurations)\n{}", labelWithSizes, r.mismatches, r.configurations, r.report);
    } else {
      ++passed;
      if (verbose) fmt::print("ok   {} ({} configurations){}\n", labelWithSizes, r.configurations, r.report.empty() ? "" : " — " + r.report);
    }
  };
  if (generate > 0) {
    for (int i = 0; i < generate && !interrupted; ++i) {
      uint64_t s = seed * 1000003 + uint64_t(i);
      auto g = testing::generateProgram(s);
      if (verbose) fmt::print("--- generated #{} (seed {}): {}\n{}", i, s, g.summary, g.source);
      std::fflush(stdout);
      MetaSettings sizes;
      std::string err;
      if (!g.runtimeSizes.empty() && !parseMetaSettings({g.runtimeSizes}, sizes, err)) {
        fmt::print("FAIL generated #{} (seed {}): its run-time sizes `{}`: {}\n", i, s, g.runtimeSizes, err);
        ++failed;
        continue;
      }
      runOne("generated.mdh", g.source, g.entry, sizes, s, fmt::format("generated #{} (seed {}): {}", i, s, g.summary));
      // A run stopped by a timeout keeps every report printed so far, and a long one says how far it got.
      std::fflush(stdout);
      if ((i + 1) % 25 == 0 && i + 1 < generate)
        fmt::print(stderr, "difftest: {} of {} programs, {} failing, {:.0f} s\n", i + 1, generate, failed,
                   std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
  } else {
    if (file.empty() || entry.empty()) {
      fmt::print(stderr, "error: give FILE --entry NAME [--set ...], or --generate N\n");
      return 2;
    }
    MetaSettings settings;
    std::string err;
    if (!parseMetaSettings(sets, settings, err)) {
      fmt::print(stderr, "error: {}\n", err);
      return 2;
    }
    runOne(file, "", entry, settings, seed, fmt::format("{} {}", file, entry));
  }
  if (interrupted) {
    // Ctrl-C while the generated code was compiling (the compiler died of it).
    std::fflush(stdout);
    fmt::print(stderr, "difftest: interrupted after {} programs ({} failing)\n", programs, failed);
    return 130;
  }
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  fmt::print("difftest: {} programs, {} configurations, {} failing programs, {:.1f} s\n", programs, totalConfigs, failed, secs);
  fmt::print("{} passed, {} failed\n", passed, failed);
  return failed ? 1 : unusable ? 2 : 0;
}
