/** \file
 * The built-in abstract system models and their capacities.
 */
#include "ll/AsmModel.h"

#include <cstdlib>
#include <fstream>
#include <string>
#include <tuple>
#include <unistd.h>

namespace mdh::ll {

std::vector<const AsmLayer *> AsmModel::memoryLayers() const {
  std::vector<const AsmLayer *> out;
  for (const auto &l : layers)
    if (l.kind == LayerKind::Memory) out.push_back(&l);
  return out;
}

std::vector<const AsmLayer *> AsmModel::coreLayers() const {
  std::vector<const AsmLayer *> out;
  for (const auto &l : layers)
    if (l.kind == LayerKind::Core) out.push_back(&l);
  return out;
}

const AsmLayer *AsmModel::layer(const std::string &n) const {
  for (const auto &l : layers)
    if (l.name == n) return &l;
  return nullptr;
}

std::pair<int, int> AsmModel::shape() const {
  return {int(memoryLayers().size()), int(coreLayers().size())};
}

namespace {
/// The size of cpu0's data or unified cache of `level` as the kernel reports
/// it (sysfs), 0 if unknown.  Preferred to sysconf, whose glibc answer on an
/// AMD EPYC virtual machine was the host's 320 MiB L3 where the guest has 32.
uint64_t sysfsCacheBytes(int level) {
  for (int i = 0; i < 8; ++i) {
    const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(i) + "/";
    std::ifstream lv(dir + "level"), ty(dir + "type"), sz(dir + "size");
    int l = 0;
    std::string type, size;
    if (!(lv >> l) || !(ty >> type) || !(sz >> size)) continue;
    if (l != level || type == "Instruction" || size.empty()) continue;
    uint64_t scale = 1;
    const char unit = size.back();
    if (unit == 'K') scale = 1u << 10;
    else if (unit == 'M') scale = 1u << 20;
    else if (unit == 'G') scale = 1u << 30;
    try {
      return std::stoull(size) * scale;
    } catch (...) {
      return 0;
    }
  }
  return 0;
}

uint64_t cacheBytes(int level, int name, uint64_t fallback) {
  if (uint64_t b = sysfsCacheBytes(level)) return b;
#ifdef _SC_LEVEL1_DCACHE_SIZE
  long v = sysconf(name);
  if (v > 0) return uint64_t(v);
#endif
  (void)name;
  return fallback;
}
} // namespace

std::pair<int, int> hostVectorUnit() {
  if (const char *env = std::getenv("MDH_VECTOR_BYTES")) {
    const std::string v = env;
    if (v == "64") return {64, 32};
    if (v == "32") return {32, 16};
    if (v == "16") return {16, 16};
  }
#if defined(__x86_64__) && defined(__GNUC__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) return {64, 32};
  if (__builtin_cpu_supports("avx2") || __builtin_cpu_supports("avx")) return {32, 16};
  return {16, 16};
#elif defined(__aarch64__)
  return {16, 32};
#else
  return {64, 32};
#endif
}

AsmModel openmpModel() {
  AsmModel m;
  m.name = "openmp";
  std::tie(m.vectorBytes, m.vectorRegisters) = hostVectorUnit();
  long cores = sysconf(_SC_NPROCESSORS_ONLN);
  m.layers = {
      {"MM", LayerKind::Memory, 0, 0, {}},
      {"L3", LayerKind::Memory, cacheBytes(3, _SC_LEVEL3_CACHE_SIZE, 32u << 20), 0, {}},
      {"L2", LayerKind::Memory, cacheBytes(2, _SC_LEVEL2_CACHE_SIZE, 1u << 20), 0, {}},
      {"L1", LayerKind::Memory, cacheBytes(1, _SC_LEVEL1_DCACHE_SIZE, 32u << 10), 0, {}},
      // 32 vector registers of 64 bytes on AVX-512 (16 of 32 on AVX2), the same on every
      // host: whether a configuration is valid does not depend on where it is checked.
      {"RM", LayerKind::Memory, 2048, 0, {}},
      // Threads combine partial results in main memory (thread-private
      // partials, combined after the parallel loop).
      {"COR", LayerKind::Core, 0, uint64_t(cores > 0 ? cores : 1) * 64, {"MM", "L3", "L2"}},
      {"SIMD", LayerKind::Core, 0, 64, {"RM"}},
  };
  return m;
}

AsmModel openmpModelPaper() {
  AsmModel m;
  m.name = "openmp-paper";
  m.layers = {
      {"MM", LayerKind::Memory, 0, 0, {}},
      {"L2", LayerKind::Memory, cacheBytes(2, _SC_LEVEL2_CACHE_SIZE, 1u << 20), 0, {}},
      {"L1", LayerKind::Memory, cacheBytes(1, _SC_LEVEL1_DCACHE_SIZE, 32u << 10), 0, {}},
      {"COR", LayerKind::Core, 0, 0, {"MM"}},
  };
  return m;
}

AsmModel cudaModel(int smArch, bool warps) {
  AsmModel m;
  m.name = "cuda";
  // Shared memory per block: sm_80 up to 163 KiB (opt-in), sm_90 up to 227 KiB.
  uint64_t shared = smArch >= 90 ? 227u * 1024 : 163u * 1024;
  // Registers: 255 per thread of 4 bytes.
  m.layers = {
      {"DM", LayerKind::Memory, 0, 0, {}},
      {"SM", LayerKind::Memory, shared, 0, {}},
      {"RM", LayerKind::Memory, 255 * 4, 0, {}},
      {"BLK", LayerKind::Core, 0, uint64_t(1) << 31, {"DM"}},
      {"THR", LayerKind::Core, 0, 1024, warps ? std::vector<std::string>{"DM", "SM", "RM"} : std::vector<std::string>{"DM", "SM"}},
  };
  if (warps) m.layers.push_back({"WRP", LayerKind::Core, 0, 32, {"DM", "SM"}});
  return m;
}

AsmModel openclModel(uint64_t localMemBytes, uint64_t maxWorkGroupSize, bool cpuDevice) {
  AsmModel m;
  m.name = "opencl";
  m.cpuDevice = cpuDevice;
  m.layers = {
      {"GM", LayerKind::Memory, 0, 0, {}},
      {"LM", LayerKind::Memory, localMemBytes, 0, {}},
      {"PM", LayerKind::Memory, 1024, 0, {}},
      {"WG", LayerKind::Core, 0, uint64_t(1) << 31, {"GM"}},
      {"WI", LayerKind::Core, 0, maxWorkGroupSize, {"GM", "LM"}},
  };
  return m;
}

std::optional<AsmModel> modelByName(const std::string &name) {
  if (name == "openmp") return openmpModel();
  if (name == "openmp-paper") return openmpModelPaper();
  if (name == "cuda" || name == "cuda-sm80") return cudaModel(80);
  if (name == "cuda-sm90") return cudaModel(90);
  if (name == "opencl") return openclModel();
  return std::nullopt;
}

} // namespace mdh::ll
