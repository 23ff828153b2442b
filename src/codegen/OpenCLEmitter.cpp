/** \file
 * The OpenCL backend's host code (see GpuEmitters.h): an embedded OpenCL C
 * program built at run time, a per-process cache of built programs, the
 * entries on device buffers and on host pointers.
 */
#include "codegen/CNames.h"
#include "codegen/EntryHeader.h"
#include "codegen/GpuEmitters.h"

#include "codegen/GpuKernelWriter.h"
#include "codegen/ScalarC.h"
#include "codegen/SizeGuard.h"

#include <fmt/format.h>
#include <functional>
#include <nlohmann/json.hpp>

namespace mdh::codegen {
namespace {

std::string hostPoly(const SizePoly &p) {
  if (auto v = p.constantValue()) return fmt::format("INT64_C({})", *v);
  std::string out;
  for (const auto &[mono, coeff] : p.terms()) {
    std::string term = fmt::format("INT64_C({})", coeff);
    for (const auto &x : mono) term += "*sz_" + x;
    out += (out.empty() ? "" : " + ") + term;
  }
  return "(" + out + ")";
}

std::string elemsOf(const hl::Buffer &b) {
  std::string s = "INT64_C(1)";
  for (const auto &x : b.shape) s += "*" + hostPoly(x);
  return s;
}

// The OpenCL version the code is written for, unless the user's build chose one.
const char *kClVersion = "#ifndef CL_TARGET_OPENCL_VERSION\n#define CL_TARGET_OPENCL_VERSION 120\n#endif\n";

const char *kRuntime = R"RT(
namespace {
// Per-process state: the default queue and the built programs: the default context's for
// the process's life, and that of the last other context a caller passed a queue of (a
// program keeps its context alive, so keeping every one leaked each context a caller made
// and released).
struct MdhClState {
  std::mutex m;
  bool queueTried = false;
  cl_int queueStatus = CL_SUCCESS;
  std::string queueError;
  cl_context ctx = nullptr;
  cl_command_queue queue = nullptr;
  std::map<cl_context, cl_program> programs;
};
MdhClState &mdh_cl_state() {
  static MdhClState s;
  return s;
}

const char *mdh_cl_status(cl_int s) {
  switch (s) {
  case CL_DEVICE_NOT_FOUND: return "no OpenCL device found";
  case -1001: return "no OpenCL platform found (is an ICD such as pocl-opencl-icd installed?)";
  case CL_BUILD_PROGRAM_FAILURE: return "the OpenCL program failed to build (log above)";
  case CL_INVALID_WORK_GROUP_SIZE: return "invalid work-group size for this device";
  case CL_OUT_OF_RESOURCES: return "out of resources";
  case CL_MEM_OBJECT_ALLOCATION_FAILURE: return "memory allocation failed";
  case CL_OUT_OF_HOST_MEMORY: return "out of host memory";
  case CL_INVALID_KERNEL_NAME: return "kernel missing from the program";
  case CL_INVALID_VALUE: return "invalid value (a size or setting, named above)";
  case CL_INVALID_BUFFER_SIZE: return "a buffer is smaller than the sizes need (named above)";
  case CL_INVALID_MEM_OBJECT: return "invalid buffer (a null or released cl_mem)";
  default: return "OpenCL call failed";
  }
}

// The program for the queue's context, built once per process for the default context and
// once per run of calls for another one; retained for the caller, who releases it.
cl_int mdh_cl_program(cl_command_queue q, cl_program *out) {
  cl_context ctx = nullptr;
  cl_device_id dev = nullptr;
  cl_int st = clGetCommandQueueInfo(q, CL_QUEUE_CONTEXT, sizeof ctx, &ctx, nullptr);
  if (st == CL_SUCCESS) st = clGetCommandQueueInfo(q, CL_QUEUE_DEVICE, sizeof dev, &dev, nullptr);
  if (st != CL_SUCCESS) return st;
  MdhClState &s = mdh_cl_state();
  std::lock_guard<std::mutex> lock(s.m);
  auto it = s.programs.find(ctx);
  if (it != s.programs.end()) {
    *out = it->second;
    return clRetainProgram(*out);
  }
  for (auto e = s.programs.begin(); e != s.programs.end();)
    if (e->first != s.ctx) {
      clReleaseProgram(e->second);
      e = s.programs.erase(e);
    } else {
      ++e;
    }
  const char *src = mdh_cl_source;
  size_t len = sizeof(mdh_cl_source) - 1;
  cl_program p = clCreateProgramWithSource(ctx, 1, &src, &len, &st);
  if (st != CL_SUCCESS) return st;
  st = clBuildProgram(p, 1, &dev, MDH_CL_BUILD_OPTIONS, nullptr, nullptr);
  if (st != CL_SUCCESS) {
    size_t n = 0;
    clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_LOG, 0, nullptr, &n);
    std::string log(n, '\0');
    clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_LOG, n, &log[0], nullptr);
    std::fprintf(stderr, "mdh (OpenCL): building the kernels failed:\n%s\n", log.c_str());
    clReleaseProgram(p);
    return st;
  }
  s.programs[ctx] = p;
  *out = p;
  return clRetainProgram(p);
}

// The default queue: MDH_OPENCL_DEVICE=p:d, else the first GPU, else the first device.
cl_int mdh_cl_default_queue(cl_command_queue *q) {
  MdhClState &s = mdh_cl_state();
  std::lock_guard<std::mutex> lock(s.m);
  if (!s.queueTried) {
    s.queueTried = true;
    cl_uint np = 0;
    cl_int st = clGetPlatformIDs(0, nullptr, &np);
    if (st != CL_SUCCESS || np == 0) {
      s.queueStatus = -1001;
      return s.queueStatus;
    }
    std::vector<cl_platform_id> ps(np);
    clGetPlatformIDs(np, ps.data(), nullptr);
    cl_device_id chosen = nullptr;
    int wantP = -1, wantD = 0;
    const char *env = std::getenv("MDH_OPENCL_DEVICE");
    char rest = 0;
    if (env && (std::sscanf(env, "%d:%d%c", &wantP, &wantD, &rest) != 2 || wantP < 0 || wantD < 0)) {
      std::fprintf(stderr, "mdh (OpenCL): MDH_OPENCL_DEVICE=%s is not PLATFORM:DEVICE (two indices from 0, e.g. 0:1)\n", env);
      s.queueStatus = CL_INVALID_VALUE;
      return s.queueStatus;
    }
    for (int pass = 0; pass < 2 && !chosen; ++pass)
      for (cl_uint i = 0; i < np && !chosen; ++i) {
        if (wantP >= 0 && int(i) != wantP) continue;
        cl_uint nd = 0;
        cl_device_type type = wantP >= 0 || pass == 1 ? CL_DEVICE_TYPE_ALL : CL_DEVICE_TYPE_GPU;
        if (clGetDeviceIDs(ps[i], type, 0, nullptr, &nd) != CL_SUCCESS || nd == 0) continue;
        std::vector<cl_device_id> ds(nd);
        clGetDeviceIDs(ps[i], type, nd, ds.data(), nullptr);
        int k = wantP >= 0 ? wantD : 0;
        if (k >= 0 && cl_uint(k) < nd) chosen = ds[size_t(k)];
      }
    if (!chosen) {
      if (env) std::fprintf(stderr, "mdh (OpenCL): MDH_OPENCL_DEVICE=%s: there is no device %d on platform %d (%u platforms)\n", env, wantD, wantP, np);
      s.queueStatus = CL_DEVICE_NOT_FOUND;
      return s.queueStatus;
    }
    s.ctx = clCreateContext(nullptr, 1, &chosen, nullptr, nullptr, &st);
    if (st == CL_SUCCESS) s.queue = clCreateCommandQueue(s.ctx, chosen, 0, &st);
    s.queueStatus = st;
  }
  *q = s.queue;
  return s.queueStatus;
}

struct MdhClArg {
  size_t size;
  const void *value;
};

cl_int mdh_cl_launch(cl_command_queue q, cl_program p, const char *name, int64_t groups, int64_t groupSize,
                     const std::vector<MdhClArg> &args) {
  if (groups <= 0) return CL_SUCCESS;
  cl_int st = CL_SUCCESS;
  cl_kernel k = clCreateKernel(p, name, &st);
  if (st != CL_SUCCESS) return st;
  for (size_t i = 0; i < args.size() && st == CL_SUCCESS; ++i) st = clSetKernelArg(k, cl_uint(i), args[i].size, args[i].value);
  size_t local = size_t(groupSize), global = size_t(groups) * size_t(groupSize);
  if (st == CL_SUCCESS) st = clEnqueueNDRangeKernel(q, k, 1, nullptr, &global, &local, 0, nullptr, nullptr);
  clReleaseKernel(k);
  return st;
}
} // namespace
)RT";

/// The parameters of an entry on device buffers (`device`) or host pointers;
/// `typeName` spells the element types (the header spells records its own way).
std::string signatureParams(const hl::Program &p, bool device,
                            const std::function<std::string(const Type &)> &typeName = cType) {
  std::vector<std::string> ps;
  if (device) ps.push_back("cl_command_queue mdh_queue");
  for (const auto &s : p.dynamicSizes) ps.push_back("int64_t sz_" + s);
  for (const auto &b : p.inputs) ps.push_back(device ? "cl_mem in_" + b.name : fmt::format("const {} *in_{}", typeName(b.elem), b.name));
  for (const auto &b : p.outputs) ps.push_back(device ? "cl_mem out_" + b.name : fmt::format("{} *out_{}", typeName(b.elem), b.name));
  return fmt::format("{}", fmt::join(ps, ", "));
}

std::string hostEntries(const GpuUnit &u, const GpuKernels &k) {
  const hl::Program &p = *u.lowered->program;
  const std::string &n = u.name;
  std::string o = fmt::format("\n// ---- {} ----\n// Configuration: {}\n", n, ll::toJson(u.lowered->config).dump());
  o += runTimeSizeCheck(p, "OpenCL", n);
  o += fmt::format("extern \"C\" int {}_cl({}) {{\n", n, signatureParams(p, true));
  o += runTimeSizeGuard(p, n, "return CL_INVALID_VALUE;");
  o += k.hostSizes;
  o += "  cl_program mdh_prog = nullptr;\n  cl_int st = mdh_cl_program(mdh_queue, &mdh_prog);\n  if (st != CL_SUCCESS) return st;\n";
  o += "  struct MdhProgramRef { cl_program p; ~MdhProgramRef() { clReleaseProgram(p); } } mdh_prog_ref{mdh_prog};\n";
  o += "  cl_context mdh_ctx = nullptr;\n  st = clGetCommandQueueInfo(mdh_queue, CL_QUEUE_CONTEXT, sizeof mdh_ctx, &mdh_ctx, nullptr);\n";
  o += "  if (st != CL_SUCCESS) return st;\n";
  // Buffers smaller than the sizes need: an error, not writes past their end.
  for (const auto *list : {&p.inputs, &p.outputs})
    for (const auto &b : *list) {
      const std::string mem = (list == &p.inputs ? "in_" : "out_") + b.name;
      o += fmt::format("  {{\n    size_t mdh_have = 0;\n    st = clGetMemObjectInfo({0}, CL_MEM_SIZE, sizeof mdh_have, &mdh_have, nullptr);\n"
                       "    if (st != CL_SUCCESS) return st;\n"
                       "    if (mdh_have < size_t({1}) * sizeof({2})) {{\n"
                       "      std::fprintf(stderr, \"mdh (OpenCL): {3}: buffer `{4}` holds %zu bytes, these sizes need %zu\\n\", mdh_have, size_t({1}) * sizeof({2}));\n"
                       "      return CL_INVALID_BUFFER_SIZE;\n    }}\n  }}\n",
                       mem, elemsOf(b), cType(b.elem), n, b.name);
    }
  o += fmt::format("  cl_mem mdh_tmp = clCreateBuffer(mdh_ctx, CL_MEM_READ_WRITE, size_t(std::max<int64_t>(1, mdh_tmp_elems)) * {}, nullptr, &st);\n", k.tempBytes);
  o += "  if (st != CL_SUCCESS) return st;\n";
  o += fmt::format("  cl_mem mdh_sums = clCreateBuffer(mdh_ctx, CL_MEM_READ_WRITE, size_t(std::max<int64_t>(1, mdh_sums_elems)) * {}, nullptr, &st);\n", k.tempBytes);
  o += "  if (st != CL_SUCCESS) { clReleaseMemObject(mdh_tmp); return st; }\n";
  std::vector<std::string> args;
  for (const auto &s : p.dynamicSizes) args.push_back(fmt::format("{{sizeof(cl_long), &sz_{}}}", s));
  for (const auto &b : p.inputs) args.push_back(fmt::format("{{sizeof(cl_mem), &in_{}}}", b.name));
  for (const auto &b : p.outputs) args.push_back(fmt::format("{{sizeof(cl_mem), &out_{}}}", b.name));
  args.push_back("{sizeof(cl_mem), &mdh_tmp}");
  args.push_back("{sizeof(cl_mem), &mdh_sums}");
  o += fmt::format("  const std::vector<MdhClArg> mdh_args = {{{}}};\n", fmt::join(args, ", "));
  for (const auto &l : k.launches) {
    std::string call = fmt::format("st = mdh_cl_launch(mdh_queue, mdh_prog, \"{}\", {}, {}, mdh_args);", l.kernel, l.groups, l.groupSize);
    if (l.condition.empty()) o += fmt::format("  if (st == CL_SUCCESS) {}\n", call);
    else o += fmt::format("  if (st == CL_SUCCESS && ({})) {}\n", l.condition, call);
  }
  o += "  clReleaseMemObject(mdh_tmp);\n  clReleaseMemObject(mdh_sums);\n  return st;\n}\n\n";
  // Host-pointer entry.
  o += fmt::format("extern \"C\" int {}({}) {{\n", n, signatureParams(p, false));
  o += runTimeSizeGuard(p, n, "return CL_INVALID_VALUE;");
  o += "  cl_command_queue q = nullptr;\n  cl_int st = mdh_cl_default_queue(&q);\n";
  o += fmt::format("  if (st != CL_SUCCESS) {{ std::fprintf(stderr, \"mdh (OpenCL): {}: %s (status %d)\\n\", mdh_cl_status(st), int(st)); return st; }}\n", n);
  o += "  cl_context ctx = nullptr;\n  clGetCommandQueueInfo(q, CL_QUEUE_CONTEXT, sizeof ctx, &ctx, nullptr);\n";
  std::vector<std::string> callArgs = {"q"};
  for (const auto &s : p.dynamicSizes) callArgs.push_back("sz_" + s);
  std::vector<std::string> bytes, hosts;
  for (const auto &b : p.inputs) bytes.push_back(fmt::format("size_t({}) * sizeof({})", elemsOf(b), cType(b.elem))), hosts.push_back("in_" + b.name);
  for (const auto &b : p.outputs) bytes.push_back(fmt::format("size_t({}) * sizeof({})", elemsOf(b), cType(b.elem))), hosts.push_back("out_" + b.name);
  size_t nb = hosts.size(), nin = p.inputs.size();
  for (size_t i = 0; i < nb; ++i) callArgs.push_back(fmt::format("mdh_mem[{}]", i));
  o += fmt::format("  cl_mem mdh_mem[{}] = {{}};\n", nb);
  o += fmt::format("  const size_t mdh_bytes[{}] = {{{}}};\n", nb, fmt::join(bytes, ", "));
  o += fmt::format("  const void *const mdh_host[{}] = {{{}}};\n", nb, fmt::join(hosts, ", "));
  // Outputs are copied in too: cells no access writes keep their values.
  o += fmt::format("  for (size_t i = 0; i < {} && st == CL_SUCCESS; ++i)\n"
                   "    mdh_mem[i] = clCreateBuffer(ctx, (i < {} ? CL_MEM_READ_ONLY : CL_MEM_READ_WRITE) | (mdh_bytes[i] ? CL_MEM_COPY_HOST_PTR : 0),\n"
                   "                                std::max<size_t>(1, mdh_bytes[i]), mdh_bytes[i] ? const_cast<void *>(mdh_host[i]) : nullptr, &st);\n",
                   nb, nin);
  o += fmt::format("  if (st == CL_SUCCESS) st = {}_cl({});\n", n, fmt::join(callArgs, ", "));
  for (size_t i = nin; i < nb; ++i)
    o += fmt::format("  if (st == CL_SUCCESS && mdh_bytes[{0}]) st = clEnqueueReadBuffer(q, mdh_mem[{0}], CL_TRUE, 0, mdh_bytes[{0}], {1}, 0, nullptr, nullptr);\n", i, hosts[i]);
  o += "  if (st == CL_SUCCESS) st = clFinish(q);\n";
  o += fmt::format("  for (size_t i = 0; i < {}; ++i)\n    if (mdh_mem[i]) clReleaseMemObject(mdh_mem[i]);\n", nb);
  o += fmt::format("  if (st != CL_SUCCESS) std::fprintf(stderr, \"mdh (OpenCL): {}: %s (status %d)\\n\", mdh_cl_status(st), int(st));\n", n);
  o += "  return st;\n}\n";
  // Generic entry.
  std::vector<std::string> gargs;
  for (size_t i = 0; i < p.dynamicSizes.size(); ++i) gargs.push_back(fmt::format("sizes[{}]", i));
  size_t bi = 0;
  for (const auto &b : p.inputs) gargs.push_back(fmt::format("static_cast<const {} *>(buffers[{}])", cType(b.elem), bi++));
  for (const auto &b : p.outputs) gargs.push_back(fmt::format("static_cast<{} *>(buffers[{}])", cType(b.elem), bi++));
  o += fmt::format("extern \"C\" int {}_run(const int64_t *sizes, void *const *buffers) {{\n  (void)sizes;\n  return {}({});\n}}\n", n, n,
                   fmt::join(gargs, ", "));
  return o;
}

std::string header(const std::vector<GpuUnit> &batch) {
  const hl::Program &p = *batch.at(0).lowered->program;
  std::string h = fmt::format(R"(// {0}.h — generated by mdhc {1} (OpenCL backend). Do not edit.
//
// Contract:
//  * <name>(sizes..., inputs..., outputs...): host pointers, dense row-major
//    buffers; copies to the default OpenCL device (MDH_OPENCL_DEVICE=p:d, else
//    the first GPU, else the first device), runs, copies the outputs back.
//    Returns 0 or an OpenCL status (-1001: no platform), with the reason on stderr;
//    CL_INVALID_VALUE, computing nothing, for run-time sizes below 1 or that
//    put an access outside its buffer.
//  * <name>_cl(queue, sizes..., cl_mem inputs..., cl_mem outputs...): enqueues on
//    the queue (in order) and returns the status; the caller synchronises.
//  * Records and tuples use the C layout with natural alignment (NumPy align=True);
//    bool buffers hold one byte per element.
//  * The kernels are built from an embedded OpenCL C source once per process and
//    context; calls are thread-safe. Output cells that no access writes keep their values.
//  * Valid C11 and C++; link with -lOpenCL.  <CL/cl.h> is included for OpenCL
//    1.2 unless CL_TARGET_OPENCL_VERSION is defined before this header.
//
)", batch.size() == 1 ? batch[0].name : p.instanceName, MDH_VERSION);
  for (const auto &u : batch) h += fmt::format("//  {}: configuration {}\n", u.name, ll::toJson(u.lowered->config).dump());
  h += shapesComment(p);
  std::vector<std::string> symbols;
  for (const auto &u : batch) symbols.insert(symbols.end(), {u.name, u.name + "_cl", u.name + "_run"});
  HeaderTypes types(p, symbols);
  auto typeName = [&](const Type &t) { return types.type(t); };
  h += "#pragma once\n" + std::string(kClVersion) + "#include <CL/cl.h>\n" + types.declarations() + "\n";
  h += "#ifdef __cplusplus\nextern \"C\" {\n#endif\n";
  for (const auto &u : batch) {
    h += fmt::format("int {}({});\n", u.name, signatureParams(p, false, typeName));
    h += fmt::format("int {}_cl({});\n", u.name, signatureParams(p, true, typeName));
    h += fmt::format("int {}_run(const int64_t *sizes, void *const *buffers);\n", u.name);
  }
  h += "#ifdef __cplusplus\n}\n#endif\n";
  return h;
}

} // namespace

EmittedKernel emitOpenCL(const std::vector<GpuUnit> &batch, int64_t maxGroupSize) {
  const hl::Program &p = *batch.at(0).lowered->program;
  bool strict = false;
  for (const auto &u : batch) strict |= u.lowered->config.strictFp;
  std::string device = dialectPrelude(GpuDialect::OpenCL, strict) + gpuCommon(p);
  std::string host;
  for (const auto &u : batch) {
    GpuPlan plan = planGpu(*u.lowered, maxGroupSize);
    GpuKernels k = writeGpuKernels(plan, u.name);
    device += k.kernels;
    host += hostEntries(u, k);
  }
  EmittedKernel e;
  e.name = batch.size() == 1 ? batch[0].name : p.instanceName;
  e.kernel = device;
  e.common = fmt::format(R"(// Generated by mdhc {} — do not edit.
// Program: {}   backend: OpenCL (kernels built at run time through the ICD loader)
{}#include <CL/cl.h>
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#define MDH_CL_BUILD_OPTIONS "-cl-fp32-correctly-rounded-divide-sqrt"
)", MDH_VERSION, p.instanceName, kClVersion);
  e.common += emitTypeDecls(p);
  e.common += "\n// The OpenCL C program of every entry below.\nstatic const char mdh_cl_source[] = R\"MDHCL(" + device + ")MDHCL\";\n";
  e.common += kRuntime;
  e.source = e.common + host;
  e.header = header(batch);
  e.flags = "-O2 -Wl,--no-as-needed -lOpenCL";
  e.compileFlags = "-O2";
  e.linkFlags = "-lOpenCL -lstdc++"; // the host code is C++: a C program needs its runtime
  return e;
}

EmittedKernel emitOpenCL(const ll::Lowered &l, const std::string &name) {
  return emitOpenCL({GpuUnit{&l, name.empty() ? defaultSymbol(*l.program) : name}});
}

} // namespace mdh::codegen
