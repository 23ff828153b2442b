/** \file
 * CUDA device probe through the driver API, loaded with dlopen so that mdh
 * builds and runs where no NVIDIA driver is installed (see CudaDevice.h).
 */
#include "runtime/CudaDevice.h"

#include <cstdlib>
#include <dlfcn.h>
#include <fmt/format.h>
#include <sstream>
#include <unistd.h>

namespace mdh::runtime {

namespace {

// The few driver entry points used, with the driver API's C signatures
// (CUresult and CUdevice are ints; cuda.h is not needed to build mdh).
using CuInit = int (*)(unsigned);
using CuDeviceGetCount = int (*)(int *);
using CuDeviceGet = int (*)(int *, int);
using CuDeviceGetAttribute = int (*)(int *, int, int);
using CuDeviceGetName = int (*)(char *, int, int);
constexpr int kComputeCapabilityMajor = 75; // CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR
constexpr int kComputeCapabilityMinor = 76; // CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR
constexpr int kMaxThreadsPerBlock = 1;       // CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK
constexpr int kSharedPerBlockOptin = 97;     // CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN

bool isExecutable(const std::string &path) { return !path.empty() && access(path.c_str(), X_OK) == 0; }

} // namespace

std::optional<CudaDeviceInfo> queryCudaDevice(std::string &error) {
  // The driver library stays loaded: the generated code's CUDA runtime uses it too.
  void *driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_GLOBAL);
  if (!driver) {
    error = "no CUDA driver found (libcuda.so.1 cannot be loaded: is the NVIDIA driver installed?)";
    return std::nullopt;
  }
  auto init = reinterpret_cast<CuInit>(dlsym(driver, "cuInit"));
  auto count = reinterpret_cast<CuDeviceGetCount>(dlsym(driver, "cuDeviceGetCount"));
  auto get = reinterpret_cast<CuDeviceGet>(dlsym(driver, "cuDeviceGet"));
  auto attribute = reinterpret_cast<CuDeviceGetAttribute>(dlsym(driver, "cuDeviceGetAttribute"));
  auto getName = reinterpret_cast<CuDeviceGetName>(dlsym(driver, "cuDeviceGetName"));
  if (!init || !count || !get || !attribute || !getName) {
    error = "the CUDA driver (libcuda.so.1) lacks the driver API's device queries";
    return std::nullopt;
  }
  if (int rc = init(0)) {
    error = fmt::format("the CUDA driver does not start (cuInit returned {}: no NVIDIA GPU, or the driver does not match the "
                        "kernel module)",
                        rc);
    return std::nullopt;
  }
  int devices = 0;
  if (count(&devices) || devices < 1) {
    error = "the CUDA driver sees no device (is CUDA_VISIBLE_DEVICES empty?)";
    return std::nullopt;
  }
  int device = 0;
  CudaDeviceInfo info;
  char name[256] = {};
  int shared = 0, threads = 0;
  if (get(&device, 0) || attribute(&info.major, kComputeCapabilityMajor, device) ||
      attribute(&info.minor, kComputeCapabilityMinor, device) || attribute(&shared, kSharedPerBlockOptin, device) ||
      attribute(&threads, kMaxThreadsPerBlock, device) || getName(name, int(sizeof name) - 1, device) || shared <= 0 ||
      threads <= 0) {
    error = "the CUDA driver does not answer for device 0";
    return std::nullopt;
  }
  info.name = name;
  info.sharedBytesPerBlock = uint64_t(shared);
  info.maxThreadsPerBlock = uint64_t(threads);
  return info;
}

std::string cudaCompiler() {
  if (const char *c = std::getenv("NVCC"); c && *c) return isExecutable(c) ? c : "";
  if (const char *path = std::getenv("PATH")) {
    std::stringstream dirs(path);
    for (std::string dir; std::getline(dirs, dir, ':');)
      if (!dir.empty() && isExecutable(dir + "/nvcc")) return dir + "/nvcc";
  }
  if (const char *home = std::getenv("CUDA_HOME"); home && *home && isExecutable(std::string(home) + "/bin/nvcc"))
    return std::string(home) + "/bin/nvcc";
  return isExecutable("/usr/local/cuda/bin/nvcc") ? "/usr/local/cuda/bin/nvcc" : "";
}

const char *cudaCompilerMissing() {
  return "nvcc not found (looked at $NVCC, PATH, $CUDA_HOME/bin, /usr/local/cuda/bin): install the CUDA toolkit or set NVCC";
}

ll::AsmModel cudaModelForDevice(const CudaDeviceInfo &device) {
  ll::AsmModel model = ll::cudaModel(device.major >= 9 ? 90 : 80);
  for (auto &layer : model.layers) {
    if (layer.name == "SM") layer.capacityBytes = device.sharedBytesPerBlock;
    if (layer.name == "THR") layer.maxParallelism = device.maxThreadsPerBlock;
  }
  return model;
}

std::string cudaArchFlag(const CudaDeviceInfo &device) { return fmt::format("-arch=sm_{}{}", device.major, device.minor); }

} // namespace mdh::runtime
