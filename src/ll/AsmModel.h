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

  std::vector<const AsmLayer *> memoryLayers() const;
  std::vector<const AsmLayer *> coreLayers() const;
  const AsmLayer *layer(const std::string &n) const;
  /// (NUM_MEM_LYRs, NUM_COR_LYRs) as the paper writes it.
  std::pair<int, int> shape() const;
};

/// OpenMP on a multi-core CPU: MM, L3, L2, L1, RM | COR, SIMD.
/// Capacities come from the host (sysconf) where available.
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
