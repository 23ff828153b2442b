/** \file
 * Device limits through the OpenCL ICD loader (see OpenCLDevice.h).
 */
#include "runtime/OpenCLDevice.h"

#include <cstdio>
#include <cstdlib>
#include <fmt/format.h>
#include <vector>

#ifdef MDH_HAVE_OPENCL
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#endif

namespace mdh::runtime {

std::optional<OpenCLDeviceInfo> queryOpenCLDevice(std::string &error) {
#ifndef MDH_HAVE_OPENCL
  error = "mdh was built without OpenCL (no ICD loader found at configure time)";
  return std::nullopt;
#else
  cl_uint np = 0;
  if (clGetPlatformIDs(0, nullptr, &np) != CL_SUCCESS || np == 0) {
    error = "no OpenCL platform found (is an ICD such as pocl-opencl-icd installed?)";
    return std::nullopt;
  }
  std::vector<cl_platform_id> ps(np);
  clGetPlatformIDs(np, ps.data(), nullptr);
  int wantP = -1, wantD = 0;
  if (const char *env = std::getenv("MDH_OPENCL_DEVICE")) std::sscanf(env, "%d:%d", &wantP, &wantD);
  cl_device_id chosen = nullptr;
  for (int pass = 0; pass < 2 && !chosen; ++pass)
    for (cl_uint i = 0; i < np && !chosen; ++i) {
      if (wantP >= 0 && int(i) != wantP) continue;
      cl_device_type type = wantP >= 0 || pass == 1 ? CL_DEVICE_TYPE_ALL : CL_DEVICE_TYPE_GPU;
      cl_uint nd = 0;
      if (clGetDeviceIDs(ps[i], type, 0, nullptr, &nd) != CL_SUCCESS || nd == 0) continue;
      std::vector<cl_device_id> ds(nd);
      clGetDeviceIDs(ps[i], type, nd, ds.data(), nullptr);
      int k = wantP >= 0 ? wantD : 0;
      if (k >= 0 && cl_uint(k) < nd) chosen = ds[size_t(k)];
    }
  if (!chosen) {
    error = "no OpenCL device found";
    return std::nullopt;
  }
  OpenCLDeviceInfo info;
  char name[256] = {0};
  clGetDeviceInfo(chosen, CL_DEVICE_NAME, sizeof name - 1, name, nullptr);
  info.name = name;
  cl_ulong lm = 0;
  size_t wg = 0;
  clGetDeviceInfo(chosen, CL_DEVICE_LOCAL_MEM_SIZE, sizeof lm, &lm, nullptr);
  clGetDeviceInfo(chosen, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof wg, &wg, nullptr);
  info.localMemBytes = lm;
  info.maxWorkGroupSize = wg;
  cl_device_type type = 0;
  clGetDeviceInfo(chosen, CL_DEVICE_TYPE, sizeof type, &type, nullptr);
  info.cpu = (type & CL_DEVICE_TYPE_CPU) != 0;
  return info;
#endif
}

ll::AsmModel openclModelForDevice(std::string &note) {
  std::string err;
  if (auto d = queryOpenCLDevice(err)) return ll::openclModel(d->localMemBytes, d->maxWorkGroupSize, d->cpu);
  note = fmt::format("{}; using the default OpenCL limits (64 KiB local memory, 256 work-items)", err);
  return ll::openclModel(64 * 1024, 256);
}

} // namespace mdh::runtime
