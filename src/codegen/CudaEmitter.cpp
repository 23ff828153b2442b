/** \file
 * The CUDA backend's host code (see GpuEmitters.h): the kernels of the GPU
 * plan in the CUDA dialect, launched through the runtime API on a stream.
 * Kernels that need more than 48 KiB of shared memory opt in with
 * cudaFuncSetAttribute (sm_80: up to 163 KiB, sm_90: 227 KiB).
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

/// The parameters of an entry on device (`device`) or host pointers;
/// `typeName` spells the element types (the header spells records its own way).
std::string params(const hl::Program &p, bool device, const std::function<std::string(const Type &)> &typeName = cType) {
  std::vector<std::string> ps;
  if (device) ps.push_back("cudaStream_t mdh_stream");
  for (const auto &s : p.dynamicSizes) ps.push_back("int64_t sz_" + s);
  for (const auto &b : p.inputs) ps.push_back(fmt::format("const {} *in_{}", typeName(b.elem), b.name));
  for (const auto &b : p.outputs) ps.push_back(fmt::format("{} *out_{}", typeName(b.elem), b.name));
  return fmt::format("{}", fmt::join(ps, ", "));
}

/// The device copies of a program's buffers (inputs, then outputs):
/// `mdh_mem` and their byte counts `mdh_bytes` (which name the sizes
/// `sz_<S>`), and how the `_cuda` entry receives each.
struct DeviceBuffers {
  std::string declarations;
  std::vector<std::string> callArgs;
};

DeviceBuffers deviceBuffers(const hl::Program &p) {
  DeviceBuffers d;
  std::vector<std::string> bytes;
  for (const auto *list : {&p.inputs, &p.outputs})
    for (const auto &b : *list) {
      bytes.push_back(fmt::format("size_t({}) * sizeof({})", elemsOf(b), cType(b.elem)));
      d.callArgs.push_back(fmt::format("({} *)mdh_mem[{}]", cType(b.elem), d.callArgs.size()));
    }
  d.declarations = fmt::format("  void *mdh_mem[{0}] = {{}};\n  const size_t mdh_bytes[{0}] = {{{1}}};\n", bytes.size(), fmt::join(bytes, ", "));
  return d;
}

/// The tuner's timing entry `<name>_bench` (emitted on request only): the
/// buffers are copied to the device once; the `_cuda` entry then runs
/// 1 + `repetitions` times on a stream of its own, each run between two
/// events; after the first (the warm-up, reported as run -1) the outputs are
/// copied back into `buffers`, so the caller can check them.  Each run's
/// time goes to `report(ctx, run, seconds)`, which stops the runs by
/// returning non-zero.  Returns 0 or the CUDA status.
std::string timingEntry(const GpuUnit &u) {
  const hl::Program &p = *u.lowered->program;
  const std::string &n = u.name;
  std::string o = fmt::format("extern \"C\" int {}_bench(const int64_t *sizes, void *const *buffers, int repetitions,\n"
                              "                          int (*report)(void *ctx, int run, double seconds), void *ctx) {{\n", n);
  o += "  (void)sizes;\n";
  for (size_t i = 0; i < p.dynamicSizes.size(); ++i) o += fmt::format("  const int64_t sz_{} = sizes[{}];\n", p.dynamicSizes[i], i);
  const DeviceBuffers buffers = deviceBuffers(p);
  std::vector<std::string> callArgs = {"mdh_stream"};
  for (const auto &s : p.dynamicSizes) callArgs.push_back("sz_" + s);
  callArgs.insert(callArgs.end(), buffers.callArgs.begin(), buffers.callArgs.end());
  const size_t nb = buffers.callArgs.size(), nin = p.inputs.size();
  o += buffers.declarations;
  o += "  cudaStream_t mdh_stream = nullptr;\n  cudaEvent_t mdh_start = nullptr, mdh_stop = nullptr;\n";
  o += "  cudaError_t st = cudaStreamCreateWithFlags(&mdh_stream, cudaStreamNonBlocking);\n";
  o += "  if (st == cudaSuccess) st = cudaEventCreate(&mdh_start);\n  if (st == cudaSuccess) st = cudaEventCreate(&mdh_stop);\n";
  o += fmt::format("  for (size_t i = 0; i < {} && st == cudaSuccess; ++i) {{\n"
                   "    st = cudaMalloc(&mdh_mem[i], std::max<size_t>(1, mdh_bytes[i]));\n"
                   "    if (st == cudaSuccess && mdh_bytes[i]) st = cudaMemcpy(mdh_mem[i], buffers[i], mdh_bytes[i], cudaMemcpyHostToDevice);\n  }}\n", nb);
  o += "  for (int run = -1; run < repetitions && st == cudaSuccess; ++run) {\n";
  o += "    st = cudaEventRecord(mdh_start, mdh_stream);\n";
  o += fmt::format("    if (st == cudaSuccess) st = cudaError_t({}_cuda({}));\n", n, fmt::join(callArgs, ", "));
  o += "    if (st == cudaSuccess) st = cudaEventRecord(mdh_stop, mdh_stream);\n";
  o += "    if (st == cudaSuccess) st = cudaEventSynchronize(mdh_stop);\n";
  o += "    float ms = 0;\n    if (st == cudaSuccess) st = cudaEventElapsedTime(&ms, mdh_start, mdh_stop);\n";
  o += fmt::format("    for (size_t i = {}; run < 0 && i < {} && st == cudaSuccess; ++i)\n"
                   "      if (mdh_bytes[i]) st = cudaMemcpy(buffers[i], mdh_mem[i], mdh_bytes[i], cudaMemcpyDeviceToHost);\n", nin, nb);
  o += "    if (st == cudaSuccess && report(ctx, run, double(ms) * 1e-3) != 0) break;\n  }\n";
  o += fmt::format("  for (size_t i = 0; i < {}; ++i)\n    if (mdh_mem[i]) cudaFree(mdh_mem[i]);\n", nb);
  o += "  if (mdh_start) cudaEventDestroy(mdh_start);\n  if (mdh_stop) cudaEventDestroy(mdh_stop);\n";
  o += "  if (mdh_stream) cudaStreamDestroy(mdh_stream);\n";
  o += fmt::format("  if (st != cudaSuccess) std::fprintf(stderr, \"mdh (CUDA): {}_bench: %s\\n\", cudaGetErrorString(st));\n", n);
  o += "  return int(st);\n}\n";
  return o;
}

std::string hostEntries(const GpuUnit &u, const GpuKernels &k) {
  const hl::Program &p = *u.lowered->program;
  const std::string &n = u.name;
  std::string o = fmt::format("\n// ---- {} ----\n// Configuration: {}\n", n, ll::toJson(u.lowered->config).dump());
  o += runTimeSizeCheck(p, "CUDA", n);
  o += fmt::format("extern \"C\" int {}_cuda({}) {{\n", n, params(p, true));
  o += runTimeSizeGuard(p, n, "return int(cudaErrorInvalidValue);");
  o += k.hostSizes;
  o += fmt::format("  {0} *mdh_tmp = nullptr, *mdh_sums = nullptr;\n", k.tempType);
  o += fmt::format("  cudaError_t st = cudaMallocAsync((void **)&mdh_tmp, size_t(std::max<int64_t>(1, mdh_tmp_elems)) * {}, mdh_stream);\n", k.tempBytes);
  o += fmt::format("  if (st == cudaSuccess) st = cudaMallocAsync((void **)&mdh_sums, size_t(std::max<int64_t>(1, mdh_sums_elems)) * {}, mdh_stream);\n", k.tempBytes);
  std::vector<std::string> args;
  for (const auto &s : p.dynamicSizes) args.push_back("sz_" + s);
  for (const auto &b : p.inputs) args.push_back(fmt::format("(const {} *)in_{}", gpuStorageType(b.elem), b.name));
  for (const auto &b : p.outputs) args.push_back(fmt::format("({} *)out_{}", gpuStorageType(b.elem), b.name));
  args.push_back("mdh_tmp");
  args.push_back("mdh_sums");
  for (const auto &l : k.launches) {
    std::string cond = "st == cudaSuccess && " + l.groups + " > 0";
    if (!l.condition.empty()) cond += " && (" + l.condition + ")";
    o += fmt::format("  if ({}) {{\n", cond);
    if (l.localBytes > 48 * 1024)
      o += fmt::format("    st = cudaFuncSetAttribute({}, cudaFuncAttributeMaxDynamicSharedMemorySize, {});\n", l.kernel, l.localBytes);
    o += fmt::format("    if (st == cudaSuccess) {{ {}<<<dim3(unsigned({})), dim3({}), {}, mdh_stream>>>({}); st = cudaGetLastError(); }}\n",
                     l.kernel, l.groups, l.groupSize, l.localBytes, fmt::join(args, ", "));
    o += "  }\n";
  }
  o += "  if (mdh_tmp) cudaFreeAsync(mdh_tmp, mdh_stream);\n  if (mdh_sums) cudaFreeAsync(mdh_sums, mdh_stream);\n";
  o += "  return int(st);\n}\n\n";
  // Host-pointer entry.
  o += fmt::format("extern \"C\" int {}({}) {{\n", n, params(p, false));
  o += runTimeSizeGuard(p, n, "return int(cudaErrorInvalidValue);");
  std::vector<std::string> hosts, callArgs = {"0"};
  for (const auto &s : p.dynamicSizes) callArgs.push_back("sz_" + s);
  for (const auto &b : p.inputs) hosts.push_back("in_" + b.name);
  for (const auto &b : p.outputs) hosts.push_back("out_" + b.name);
  const DeviceBuffers buffers = deviceBuffers(p);
  size_t nb = hosts.size(), nin = p.inputs.size();
  callArgs.insert(callArgs.end(), buffers.callArgs.begin(), buffers.callArgs.end());
  o += buffers.declarations;
  o += fmt::format("  const void *const mdh_host[{}] = {{{}}};\n", nb, fmt::join(hosts, ", "));
  o += "  cudaError_t st = cudaSuccess;\n";
  // Outputs are copied in too: cells no access writes keep their values.
  o += fmt::format("  for (size_t i = 0; i < {} && st == cudaSuccess; ++i) {{\n"
                   "    st = cudaMalloc(&mdh_mem[i], std::max<size_t>(1, mdh_bytes[i]));\n"
                   "    if (st == cudaSuccess && mdh_bytes[i]) st = cudaMemcpy(mdh_mem[i], mdh_host[i], mdh_bytes[i], cudaMemcpyHostToDevice);\n  }}\n", nb);
  o += fmt::format("  if (st == cudaSuccess) st = cudaError_t({}_cuda({}));\n", n, fmt::join(callArgs, ", "));
  o += "  if (st == cudaSuccess) st = cudaStreamSynchronize(0);\n";
  for (size_t i = nin; i < nb; ++i)
    o += fmt::format("  if (st == cudaSuccess && mdh_bytes[{0}]) st = cudaMemcpy({1}, mdh_mem[{0}], mdh_bytes[{0}], cudaMemcpyDeviceToHost);\n", i, hosts[i]);
  o += fmt::format("  for (size_t i = 0; i < {}; ++i)\n    if (mdh_mem[i]) cudaFree(mdh_mem[i]);\n", nb);
  o += fmt::format("  if (st != cudaSuccess) std::fprintf(stderr, \"mdh (CUDA): {}: %s\\n\", cudaGetErrorString(st));\n", n);
  o += "  return int(st);\n}\n";
  std::vector<std::string> gargs;
  for (size_t i = 0; i < p.dynamicSizes.size(); ++i) gargs.push_back(fmt::format("sizes[{}]", i));
  size_t bi = 0;
  for (const auto &b : p.inputs) gargs.push_back(fmt::format("static_cast<const {} *>(buffers[{}])", cType(b.elem), bi++));
  for (const auto &b : p.outputs) gargs.push_back(fmt::format("static_cast<{} *>(buffers[{}])", cType(b.elem), bi++));
  o += fmt::format("extern \"C\" int {}_run(const int64_t *sizes, void *const *buffers) {{\n  (void)sizes;\n  return {}({});\n}}\n", n, n,
                   fmt::join(gargs, ", "));
  return o;
}

} // namespace

EmittedKernel emitCuda(const std::vector<GpuUnit> &batch, bool timingEntries) {
  const hl::Program &p = *batch.at(0).lowered->program;
  bool strict = false;
  for (const auto &u : batch) strict |= u.lowered->config.strictFp;
  EmittedKernel e;
  e.name = batch.size() == 1 ? batch[0].name : p.instanceName;
  e.common = fmt::format("// Generated by mdhc {} — do not edit.\n// Program: {}   backend: CUDA (runtime API)\n", MDH_VERSION, p.instanceName);
  e.common += dialectPrelude(GpuDialect::Cuda, strict);
  e.common += "#include <cuda_runtime.h>\n#include <algorithm>\n#include <cstdio>\n\n";
  e.common += gpuCommon(p);
  std::string body;
  for (const auto &u : batch) {
    GpuPlan plan = planGpu(*u.lowered, 1024);
    GpuKernels k = writeGpuKernels(plan, u.name);
    body += k.kernels;
    body += hostEntries(u, k);
    if (timingEntries) body += timingEntry(u);
  }
  e.kernel = body;
  e.source = e.common + body;
  std::string h = fmt::format(R"(// {0}.h — generated by mdhc {1} (CUDA backend). Do not edit.
//
// Contract:
//  * <name>(sizes..., inputs..., outputs...): host pointers; copies to the current
//    device, runs on the default stream, copies the outputs back; returns 0 or a
//    cudaError_t (reason on stderr); cudaErrorInvalidValue, computing nothing,
//    for run-time sizes below 1 or that put an access outside its buffer.
//  * <name>_cuda(stream, sizes..., device inputs..., device outputs...): enqueues on
//    the stream (temporaries by cudaMallocAsync) and returns the status.
//  * Records and tuples: C layout, natural alignment (NumPy align=True); bool: one byte.
//  * Built with: nvcc -std=c++17 -arch=sm_80 (or sm_90){2}
//
)", e.name, MDH_VERSION, strict ? " --fmad=false" : "");
  for (const auto &u : batch) h += fmt::format("//  {}: configuration {}\n", u.name, ll::toJson(u.lowered->config).dump());
  h += shapesComment(p);
  std::vector<std::string> symbols;
  for (const auto &u : batch) symbols.insert(symbols.end(), {u.name, u.name + "_cuda", u.name + "_run"});
  HeaderTypes types(p, symbols);
  auto typeName = [&](const Type &t) { return types.type(t); };
  h += "#pragma once\n#include <cuda_runtime.h>\n" + types.declarations() + "\n";
  h += "#ifdef __cplusplus\nextern \"C\" {\n#endif\n";
  for (const auto &u : batch) {
    h += fmt::format("int {}({});\n", u.name, params(p, false, typeName));
    h += fmt::format("int {}_cuda({});\n", u.name, params(p, true, typeName));
    h += fmt::format("int {}_run(const int64_t *sizes, void *const *buffers);\n", u.name);
  }
  h += "#ifdef __cplusplus\n}\n#endif\n";
  e.header = h;
  e.flags = strict ? "-std=c++17 -O3 --fmad=false" : "-std=c++17 -O3";
  e.compileFlags = e.flags;
  e.linkFlags = "-lcudart";
  return e;
}

EmittedKernel emitCuda(const ll::Lowered &l, const std::string &name) {
  return emitCuda({GpuUnit{&l, name.empty() ? defaultSymbol(*l.program) : name}});
}

} // namespace mdh::codegen
