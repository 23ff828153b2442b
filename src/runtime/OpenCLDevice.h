/** \file
 * The OpenCL device the generated code will run on, asked for the limits
 * that configurations must respect (local memory, work-group size).
 *
 * The device is chosen by the rule the generated host code uses
 * (MDH_OPENCL_DEVICE=platform:device, else the first GPU, else the first
 * device).  Invariant: never throws; without an OpenCL platform or device
 * (or when mdh was built without OpenCL) it returns nullopt and a message.
 */
#pragma once

#include "ll/AsmModel.h"

#include <cstdint>
#include <optional>
#include <string>

namespace mdh::runtime {

struct OpenCLDeviceInfo {
  std::string name;
  uint64_t localMemBytes = 0;
  uint64_t maxWorkGroupSize = 0;
  bool cpu = false; ///< CL_DEVICE_TYPE_CPU
};

std::optional<OpenCLDeviceInfo> queryOpenCLDevice(std::string &error);

/// The `opencl` model with the device's capacities, or the defaults
/// (64 KiB, 256 work-items) and a note in `note` when no device answers.
ll::AsmModel openclModelForDevice(std::string &note);

} // namespace mdh::runtime
