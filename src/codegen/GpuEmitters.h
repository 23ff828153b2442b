/** \file
 * The CUDA and OpenCL backends: kernels from one GpuPlan (GpuKernelWriter)
 * plus host code.
 *
 * Per instantiation `<name>` both emit two entries:
 *  - on host pointers, BLAS-style like the OpenMP entry (dynamic sizes, then
 *    inputs, then outputs): copies in, runs, copies out; returns 0 or the
 *    OpenCL / CUDA status (and prints the reason to stderr);
 *  - on device buffers with a queue / stream (`<name>_cl(cl_command_queue,
 *    ..., cl_mem...)`, `<name>_cuda(cudaStream_t, ..., device pointers)`):
 *    enqueues only, returns the status;
 * plus the generic `<name>_run(const int64_t *sizes, void *const *buffers)`.
 * OpenCL: the kernel source is embedded as a string and built at run time
 * through the ICD loader, once per process and context (a cache guarded by
 * a mutex); the default device is the first GPU of any platform, else the
 * first device (override: MDH_OPENCL_DEVICE=platform:device).  Without a
 * platform or device the entries return CL_DEVICE_NOT_FOUND / -1001 with a
 * clear message, never crash.  CUDA: the runtime API.
 * Invariants: no run-time dependency on mdh; every configuration of a batch
 * shares one kernel source (one OpenCL build per process).
 */
#pragma once

#include "codegen/OpenMPEmitter.h"

#include <string>
#include <vector>

namespace mdh::codegen {

/// One instantiation of a batch: the lowered program and its entry name.
struct GpuUnit {
  const ll::Lowered *lowered = nullptr;
  std::string name;
};

/// OpenCL host C++ (source), header, and the kernel text (`kernel` holds the
/// OpenCL C that is embedded in the source); flags to build the host code.
EmittedKernel emitOpenCL(const std::vector<GpuUnit> &batch, int64_t maxGroupSize = 1024);
EmittedKernel emitOpenCL(const ll::Lowered &l, const std::string &name = "");
/// CUDA: a .cu source (kernels and host code) and a header.  With
/// `timingEntries`, each unit also gets the tuner's `<name>_bench` entry
/// (device-resident buffers, each run timed by CUDA events; not in the header).
EmittedKernel emitCuda(const std::vector<GpuUnit> &batch, bool timingEntries = false);
EmittedKernel emitCuda(const ll::Lowered &l, const std::string &name = "");

} // namespace mdh::codegen
