/** \file
 * The CUDA measurement backend: tunes CUDA kernels on device 0 of an
 * NVIDIA GPU.
 *
 * A batch of configurations is emitted by codegen::emitCuda (with the
 * timing entry `<name>_bench`) into a few .cu translation units, compiled
 * concurrently by nvcc for exactly the device present (`-arch=sm_XY`)
 * through the CompileCache; each candidate runs in a forked child that
 * dlopens its library.  The inputs are copied to the device once; the time
 * of a run is that of the `_cuda` entry on device pointers between two CUDA
 * events (what a caller who keeps data on the GPU sees), not the host
 * copies — unlike the OpenCL backend, whose PoCL "device" is the host.
 *
 * Invariants: the tuner process never initialises CUDA (a CUDA context does
 * not survive fork()): the device is queried in a child too; the model
 * carries the device's shared-memory and threads-per-block limits, so every
 * candidate the search space proposes validates for this device; the
 * toolchain string names nvcc's version and the device, so the tuning
 * database's machine signature does.
 */
#pragma once

#include "tune/CandidateBackend.h"
#include "runtime/CudaDevice.h"
#include "tune/CompileCache.h"

namespace mdh::tune {

class CudaBackend : public CandidateBackend {
public:
  /// `cache` must compile with nvcc (runtime::Toolchain::Cuda); `jobs`:
  /// concurrent nvcc processes (and translation units per batch).
  CudaBackend(CompileCache &cache, int jobs);
  /// For a given device, not queried (tests compile for it on machines without a GPU).
  CudaBackend(CompileCache &cache, int jobs, const runtime::CudaDeviceInfo &device);
  /// Empty when a device answered and nvcc exists; else why not.
  const std::string &unavailable() const { return unavailable_; }

  std::string name() const override { return "cuda"; }
  ll::AsmModel model() const override { return model_; }
  std::string toolchain() const override { return cache_.compilerId() + " | CUDA device: " + device_; }
  std::string emittedSource(const hl::Program &p, const ll::Config &c) const override;
  std::vector<BuiltCandidate> build(const hl::Program &p, const std::vector<ll::Config> &configs) override;
  RunResult run(const BuiltCandidate &c, const RunRequest &req) override;

  /// Seconds a child may take beyond the request's limit: creating the
  /// CUDA context and loading the module.
  static constexpr double kStartAllowanceSeconds = 30;

private:
  void useDevice(const runtime::CudaDeviceInfo &device);

  CompileCache &cache_;
  int jobs_;
  ll::AsmModel model_;
  std::string device_ = "none", archFlag_, unavailable_;
};

} // namespace mdh::tune
