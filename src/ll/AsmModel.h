/** \file
 * Abstract system models (the paper's ASM, §3.2) as data.
 *
 * An ASM is a list of memory layers and core layers.  Each backend has one
 * model; the configuration space, the model constraints of the paper's
 * Tables 2–4 and the capacity constraints the paper omits are all derived
 * from this data, not from code paths.  Invariants: memory layers are listed
 * from the slowest/largest to the fastest/smallest; a capacity of 0 means
 * "unbounded" (main memory).
 */
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mdh::ll {

enum class LayerKind { Memory, Core };

struct AsmLayer {
  std::string name;      ///< MM, L3, L2, L1, RM, COR, SIMD; DM, SM, RM, BLK, THR, WRP; GM, LM, PM, WG, WI
  LayerKind kind = LayerKind::Memory;
  uint64_t capacityBytes = 0; ///< per instance (per core / block / work-group); 0 = unbounded
  uint64_t maxParallelism = 0; ///< core layers: max product of parts (0 = unbounded)
  /// Core layers: the memory layers in which results of a reduction across
  /// this layer's parts may be combined (Tables 2–4).
  std::vector<std::string> combineIn;
};

struct AsmModel {
  std::string name;  ///< "openmp", "cuda", "opencl"
  std::vector<AsmLayer> layers;
  /// OpenCL: the device is a CPU (CL_DEVICE_TYPE_CPU, e.g. PoCL), which runs a
  /// work-group's work-items as loops on one core: the default configuration
  /// gives each work-item a long contiguous row instead of one cell per lane.
  bool cpuDevice = false;
  /// CPU models: the widest vector unit the generated code is compiled for (bytes) and its
  /// number of vector registers. The default configuration sizes register tiles in
  /// vectors and accumulators from them; the emitted code itself picks its vector width
  /// when it is compiled (MDH_VBYTES), so the two agree when the kernel is built for the
  /// host, as `mdhc run`, the tuner and the benchmarks build it (-march=native).
  int vectorBytes = 64;
  int vectorRegisters = 32;

  std::vector<const AsmLayer *> memoryLayers() const;
  std::vector<const AsmLayer *> coreLayers() const;
  const AsmLayer *layer(const std::string &n) const;
  /// (NUM_MEM_LYRs, NUM_COR_LYRs) as the paper writes it.
  std::pair<int, int> shape() const;
};

/// The host's vector unit for CPU models: (vector bytes, vector registers), AVX-512 (64, 32),
/// AVX2 or AVX (32, 16), other x86-64 (16, 16), AArch64 (16, 32); `MDH_VECTOR_BYTES=64|32|16`
/// in the environment plans for that unit instead (32 registers at 64 bytes, else 16), e.g.
/// for a kernel built for another machine; any other value of it is ignored.
std::pair<int, int> hostVectorUnit();

/// OpenMP on a multi-core CPU: MM, L3, L2, L1, RM | COR, SIMD.
/// Capacities and the vector unit come from the host (sysfs, sysconf, hostVectorUnit).
AsmModel openmpModel();
/// The paper's smaller OpenMP model: MM, L2, L1 | COR.
AsmModel openmpModelPaper();
/// CUDA: DM, SM, RM | BLK, THR (+ WRP when `warps`), with per-architecture
/// capacities for sm_80 / sm_90 (no GPU is here to ask).
AsmModel cudaModel(int smArch = 80, bool warps = false);
/// OpenCL: GM, LM, PM | WG, WI with capacities given by the device query.
AsmModel openclModel(uint64_t localMemBytes = 64 * 1024, uint64_t maxWorkGroupSize = 1024, bool cpuDevice = false);

std::optional<AsmModel> modelByName(const std::string &name);

} // namespace mdh::ll
