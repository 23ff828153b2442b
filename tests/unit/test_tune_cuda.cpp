// The CUDA measurement backend without a GPU: candidates compile with nvcc
// for a given device into libraries that export the tuner's timing entry,
// equal batches hit the compile cache, a configuration that cannot be
// emitted fails alone, and running a candidate where no device exists is a
// failed measurement with CUDA's reason, not a crash.  (ctest runs these
// cases as unit/cuda-tuner, label gpu; where nvcc is missing they say so
// and check nothing.)
#include "TestPrograms.h"

#include "ll/Config.h"
#include "runtime/CudaDevice.h"
#include "tune/CompileCache.h"
#include "tune/CudaBackend.h"
#include "tune/SearchSpace.h"

#include <dlfcn.h>
#include <unistd.h>
#include <filesystem>
#include <random>

using namespace mdh;
using mdh::testing_support::matmul;

namespace {

std::string cacheDir() {
  auto d = std::filesystem::temp_directory_path() / ("mdh-cuda-tune-" + std::to_string(::getpid()));
  std::filesystem::remove_all(d);
  return d.string();
}

runtime::CudaDeviceInfo sm80() {
  runtime::CudaDeviceInfo d;
  d.name = "test device";
  d.major = 8;
  d.minor = 0;
  d.sharedBytesPerBlock = 163 * 1024;
  d.maxThreadsPerBlock = 1024;
  return d;
}

} // namespace

TEST_CASE("CUDA tuner: candidates compile with nvcc and export their timing entries") {
  if (runtime::cudaCompiler().empty()) {
    MESSAGE("nvcc not found: the CUDA tuner's compile phase is not checked here");
    return;
  }
  Compilation comp;
  auto p = matmul(comp, "T=f32,I=19,J=33,K=17");
  const std::string dir = cacheDir();
  tune::CompileCache cache(dir, runtime::Toolchain::Cuda);
  CHECK(cache.compilerId().find("nvcc") != std::string::npos);
  tune::CudaBackend backend(cache, 2, sm80());
  REQUIRE(backend.unavailable().empty());
  CHECK(backend.name() == "cuda");
  CHECK(backend.model().name == "cuda");
  CHECK(backend.toolchain().find("CUDA device: test device (sm_80)") != std::string::npos);
  // The default and two random configurations of the search space.
  tune::SearchSpace space(*p, backend.model(), {}, {0});
  std::mt19937_64 rng(7);
  // and one that walks K in chunks with both inputs in shared memory (a GEMM's K loop).
  ll::Config chunked = space.start();
  chunked.levels[0].tile = {19, 33, 17};
  chunked.levels[1].tile = {1, 4, 4};
  chunked.chunk = {19, 33, 4};
  chunked.stages = {{"A", "SM", {0, 1}}, {"B", "SM", {0, 1}}};
  REQUIRE(ll::validate(chunked, *p, backend.model()).empty());
  std::vector<ll::Config> configs = {space.start(), space.random(rng), space.random(rng), chunked};
  auto built = backend.build(*p, configs);
  REQUIRE(built.size() == 4);
  for (const auto &b : built) {
    INFO(b.error);
    REQUIRE(b.error.empty());
    void *h = dlopen(b.library.c_str(), RTLD_LAZY | RTLD_LOCAL);
    REQUIRE(h);
    CHECK(dlsym(h, (b.symbol + "_bench").c_str()));
    CHECK(dlsym(h, (b.symbol + "_run").c_str()));
    dlclose(h);
  }
  CHECK(built[0].symbol != built[1].symbol);
  // The same batch again: the same libraries, from the cache.
  auto again = backend.build(*p, configs);
  for (size_t i = 0; i < configs.size(); ++i) CHECK(again[i].library == built[i].library);
  // Run where there may be no GPU: without a device the result is a failure with CUDA's reason.
  std::string why;
  if (!runtime::queryCudaDevice(why)) {
    std::vector<float> a(19 * 17, 1.0f), b(17 * 33, 1.0f);
    tune::RunRequest req;
    req.inputs = {a.data(), b.data()};
    req.outputBytes = {19 * 33 * sizeof(float)};
    req.timeoutSeconds = 60;
    tune::RunResult r = backend.run(built[0], req);
    CHECK(r.status == tune::RunResult::Status::Failed);
    CHECK(r.message.find("CUDA status") != std::string::npos);
  }
  std::filesystem::remove_all(dir);
}

TEST_CASE("CUDA tuner: without nvcc every candidate fails with the reason") {
  const char *old = std::getenv("NVCC");
  std::string saved = old ? old : "";
  ::setenv("NVCC", "/nonexistent/nvcc", 1);
  const std::string dir = cacheDir();
  {
    tune::CompileCache cache(dir, runtime::Toolchain::Cuda);
    CHECK(cache.compilerMissing());
    tune::CudaBackend backend(cache, 1, sm80());
    CHECK(backend.unavailable().find("nvcc not found") != std::string::npos);
    Compilation comp;
    auto p = matmul(comp, "T=f32,I=4,J=4,K=4");
    auto built = backend.build(*p, {ll::defaultConfig(*p, backend.model())});
    REQUIRE(built.size() == 1);
    CHECK(built[0].error.find("nvcc not found") != std::string::npos);
  }
  if (old) ::setenv("NVCC", saved.c_str(), 1);
  else ::unsetenv("NVCC");
  std::filesystem::remove_all(dir);
}
