/** \file
 * Prints a GpuPlan as kernels in "GPU C" — the subset of C that is valid both
 * as OpenCL C and as CUDA C++ — plus the launch sequence the host runs.
 *
 * The text uses a handful of macros that each dialect's prelude defines
 * (dialectPrelude): MDH_KERNEL, MDH_WG(n), MDH_GLOBAL, MDH_GROUP_ID,
 * MDH_LOCAL_ID, MDH_BARRIER(), MDH_SMEM_DECL, MDH_LOCAL_ARRAY(T, name, n,
 * offset), MDH_FN, MDH_STATIC_ASSERT, INT64_C.  Everything else — index
 * arithmetic, staging, accumulation, reductions, scans — is one text, so a
 * kernel that is run and difftested on OpenCL is the kernel CUDA compiles.
 * Invariants: every kernel takes the same parameters (dynamic sizes, inputs,
 * outputs, the temporaries mdh_tmp and mdh_sums), in that order; every
 * work-item reaches every barrier; bool buffers are stored as uint8_t.
 */
#pragma once

#include "codegen/GpuPlan.h"

#include <string>
#include <vector>

namespace mdh::codegen {

enum class GpuDialect { OpenCL, Cuda };

struct GpuLaunch {
  std::string kernel;     ///< kernel symbol
  std::string groups;     ///< host C++ expression: number of work-groups (1-D)
  int64_t groupSize = 1;  ///< work-items per group
  int64_t localBytes = 0; ///< CUDA: dynamic shared memory
  std::string condition;  ///< host C++ condition; empty: always
};

struct GpuKernels {
  std::string kernels;              ///< kernel definitions of this configuration (GPU C)
  std::vector<GpuLaunch> launches;  ///< in order, on one queue / stream
  std::string hostSizes;            ///< host C++ statements: N<d>, mdh_cells, mdh_tmp_elems, mdh_sums_elems, ...
  std::string tempType;             ///< element type of mdh_tmp / mdh_sums
  int64_t tempBytes = 1;            ///< sizeof(tempType)
};

/// Types, helpers and scalar functions of the program in GPU C (shared by
/// every configuration of the program).
std::string gpuCommon(const hl::Program &p);
/// The macros of a dialect; OpenCL's also enables fp64 and defines the
/// fixed-width integer types.
std::string dialectPrelude(GpuDialect d, bool strictFp);
/// Kernels named `<name>_<kernel>` and their launches.
GpuKernels writeGpuKernels(const GpuPlan &plan, const std::string &name);

/// C type of a buffer element at a kernel boundary (bool is stored as uint8_t).
std::string gpuStorageType(const Type &t);

} // namespace mdh::codegen
