/** \file
 * The CUDA device and toolchain that `--backend cuda` runs on: the NVIDIA
 * driver asked (through libcuda.so.1, loaded at run time) for the device's
 * compute capability, and the nvcc that builds the generated .cu files.
 *
 * mdh neither links the CUDA runtime nor needs the CUDA headers: without a
 * driver, a device or nvcc these return a message saying which is missing,
 * never throw.  The device is the one the generated host code uses: device 0
 * of the driver's enumeration (CUDA_VISIBLE_DEVICES selects it).
 */
#pragma once

#include "ll/AsmModel.h"

#include <cstdint>
#include <optional>
#include <string>

namespace mdh::runtime {

struct CudaDeviceInfo {
  std::string name;
  int major = 0, minor = 0;          ///< compute capability
  uint64_t sharedBytesPerBlock = 0;  ///< with the opt-in of cudaFuncSetAttribute
  uint64_t maxThreadsPerBlock = 0;
};

/// Device 0 of the NVIDIA driver, or nullopt and the reason in `error`.
std::optional<CudaDeviceInfo> queryCudaDevice(std::string &error);

/// The nvcc that builds generated CUDA code: $NVCC, else `nvcc` on PATH,
/// else $CUDA_HOME/bin/nvcc, else /usr/local/cuda/bin/nvcc; "" when none is
/// an executable file.
std::string cudaCompiler();
/// What to say when cudaCompiler() finds none: where it looked, how to fix it.
const char *cudaCompilerMissing();

/// The `cuda` model with the device's shared memory per block and threads
/// per block.
ll::AsmModel cudaModelForDevice(const CudaDeviceInfo &device);

/// nvcc's flag that builds for exactly this device, e.g. `-arch=sm_90`.
std::string cudaArchFlag(const CudaDeviceInfo &device);

} // namespace mdh::runtime
