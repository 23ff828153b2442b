/** \file
 * The differential tester (see DiffTest.h).
 */
#include "testing/DiffTest.h"

#include "codegen/GpuEmitters.h"
#include "codegen/OpenMPEmitter.h"
#include "data/RandomData.h"
#include "interp/Interpreter.h"
#include "interp/PreciseEvaluation.h"
#include "interp/ProgramShapes.h"
#include "interp/RuntimeError.h"
#include "ll/Config.h"
#include "ll/Lowering.h"
#include "ll/RunTimeVariants.h"
#include "runtime/CudaDevice.h"
#include "runtime/NativeLibrary.h"
#include "runtime/OpenCLDevice.h"
#include "tune/ChildProcess.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <random>

namespace mdh::testing {
namespace {

/// What the bytes around each output buffer hold while a kernel runs.
constexpr uint8_t kGuardByte = 0xA5;

/// The first output (index among the outputs) whose storage outside its
/// cells no longer holds kGuardByte, or -1: a kernel that wrote next to an
/// output (a row segment run past its row, a vector store past the end)
/// would otherwise go unnoticed there.  storage[o] holds output o's cells
/// at ptrs[firstOutput + o], outBytes[o] long.
int firstWrittenAround(const std::vector<std::vector<uint8_t>> &storage, const std::vector<void *> &ptrs, size_t firstOutput,
                       const std::vector<size_t> &outBytes) {
  for (size_t o = 0; o < storage.size(); ++o) {
    const uint8_t *begin = storage[o].data(), *end = begin + storage[o].size();
    const uint8_t *cells = static_cast<const uint8_t *>(ptrs[firstOutput + o]);
    auto intact = [](const uint8_t *from, const uint8_t *to) { return std::all_of(from, to, [](uint8_t b) { return b == kGuardByte; }); };
    if (!intact(begin, cells) || !intact(cells + outBytes[o], end)) return int(o);
  }
  return -1;
}

/// Compares one element leaf by leaf; returns a description of the first difference.
bool sameValue(const Type &t, const uint8_t *a, const uint8_t *b, double tol, std::string &why) {
  switch (t.kind) {
  case Type::Kind::Record: {
    for (const auto &f : t.record->fields)
      if (!sameValue(f.type, a + f.offset, b + f.offset, tol, why)) {
        why = "." + f.name + why;
        return false;
      }
    return true;
  }
  case Type::Kind::Tuple: {
    size_t off = 0;
    for (size_t i = 0; i < t.elems.size(); ++i) {
      size_t al = t.elems[i].align();
      off = (off + al - 1) / al * al;
      if (!sameValue(t.elems[i], a + off, b + off, tol, why)) {
        why = fmt::format("._{}{}", i, why);
        return false;
      }
      off += t.elems[i].size();
    }
    return true;
  }
  case Type::Kind::F32: {
    float x, y;
    std::memcpy(&x, a, 4);
    std::memcpy(&y, b, 4);
    if (std::memcmp(a, b, 4) == 0 || (std::isnan(x) && std::isnan(y))) return true;
    if (tol > 0 && std::fabs(double(x) - double(y)) <= tol * std::max(1.0, std::fabs(double(y)))) return true;
    why = fmt::format(": got {} expected {}", x, y);
    return false;
  }
  case Type::Kind::F64: {
    double x, y;
    std::memcpy(&x, a, 8);
    std::memcpy(&y, b, 8);
    if (std::memcmp(a, b, 8) == 0 || (std::isnan(x) && std::isnan(y))) return true;
    if (tol > 0 && std::fabs(x - y) <= tol * std::max(1.0, std::fabs(y))) return true;
    why = fmt::format(": got {} expected {}", x, y);
    return false;
  }
  default: {
    size_t n = t.size();
    if (std::memcmp(a, b, n) == 0) return true;
    uint64_t x = 0, y = 0;
    std::memcpy(&x, a, n);
    std::memcpy(&y, b, n);
    why = fmt::format(": got bits {:#x} expected {:#x}", x, y);
    return false;
  }
  }
}

/// A float cell that differs from the interpreter's canonical-order value is
/// still right when it lies within the error bound of the high-precision
/// reference (γ_k·Σ|terms|, see interp/PreciseEvaluation.h): reordered float
/// reductions round differently.
bool withinPreciseBound(const hl::Program &prog, const data::BufferSet &inputs, const interp::EvalOptions &eo,
                        const hl::Buffer &b, const data::BufferData &got, size_t q, std::string &why) {
  if (!b.elem.isFloat()) return false;
  interp::CellRef cell{b.name, {}};
  size_t rem = q;
  cell.index.assign(got.shape.size(), 0);
  for (size_t k = got.shape.size(); k-- > 0;) {
    cell.index[k] = int64_t(rem % size_t(got.shape[k]));
    rem /= size_t(got.shape[k]);
  }
  auto cells = interp::evaluatePrecise(prog, inputs, {cell}, eo);
  if (cells.size() != 1 || cells[0].leaves.size() != 1) return false;
  double v;
  if (b.elem.kind == Type::Kind::F32) {
    float f;
    std::memcpy(&f, got.element(q), 4);
    v = f;
  } else {
    std::memcpy(&v, got.element(q), 8);
  }
  const auto &leaf = cells[0].leaves[0];
  if (leaf.accepts(v)) return true;
  why += fmt::format(" (outside the high-precision bound: reference {}, bound {:.3g})", leaf.text, leaf.errorBound);
  return false;
}

std::vector<int64_t> concreteShape(const hl::Buffer &b, const std::map<std::string, SizePoly> &dyn) {
  std::vector<int64_t> s;
  for (const auto &x : b.shape) s.push_back(x.substitute(dyn).constantValue().value_or(1));
  return s;
}

} // namespace

DiffTestResult diffTest(const hl::Program &prog, const std::string &programText, const DiffTestOptions &opts) {
  DiffTestResult res;
  std::mt19937_64 rng(opts.seed);
  // Run-time sizes: the given ones, else small values, so every configuration runs quickly.
  std::map<std::string, SizePoly> dyn;
  std::vector<int64_t> dynValues;
  std::vector<std::pair<std::string, int64_t>> dynPairs;
  for (const auto &s : prog.dynamicSizes) {
    int64_t v = std::uniform_int_distribution<int64_t>(1, 13)(rng);
    if (auto it = opts.runtimeSizes.find(s); it != opts.runtimeSizes.end()) v = it->second;
    dyn[s] = SizePoly::constant(v);
    dynValues.push_back(v);
    dynPairs.push_back({s, v});
  }
  data::BufferSet inputs;
  interp::EvalOptions eo;
  for (const auto &[k, v] : dynPairs) eo.runtimeSizes[k] = v;
  interp::RunResult expected;
  try {
    // Sizes whose buffers are out of range or too large are refused here, with the
    // interpreter's message, before random inputs of those shapes are made.
    (void)interp::resolveShapes(prog, {}, eo.runtimeSizes);
    for (const auto &b : prog.inputs)
      inputs[b.name] = data::randomBuffer(b.name, b.elem, concreteShape(b, dyn), opts.seed);
    eo.allowUndefined = true;
    expected = interp::evaluate(prog, inputs, eo);
  } catch (const std::exception &e) {
    // Not a compiler bug, but nothing was tested either: never a pass.
    const auto *runError = dynamic_cast<const interp::RuntimeError *>(&e);
    res.unusable = fmt::format("nothing tested: the interpreter rejects this run: {}{}",
                               runError ? fmt::format("error[{}]: ", runError->code) : "", e.what());
    return res;
  }

  const bool opencl = opts.backend == "opencl", cuda = opts.backend == "cuda";
  std::string note;
  ll::AsmModel model = opencl ? runtime::openclModelForDevice(note) : ll::openmpModel();
  std::optional<runtime::CudaDeviceInfo> cudaDevice;
  if (cuda) {
    std::string why;
    cudaDevice = runtime::queryCudaDevice(why);
    if (!cudaDevice) {
      res.unusable = "nothing tested: " + why;
      return res;
    }
    model = runtime::cudaModelForDevice(*cudaDevice);
  }
  std::vector<int64_t> sizes = ll::concreteSizes(prog, dynPairs);
  std::vector<ll::Config> configs = {ll::defaultConfig(prog, model)};
  // The default configuration is what `mdhc compile` and `mdhc run` use when
  // given none, and they validate it: an invalid default is a compiler bug
  // (a 3-D scan's single level once unrolled 8192 elements).
  if (prog.dynamicSizes.empty())
    if (auto errs = ll::validate(configs[0], prog, model); !errs.empty()) {
      res.configurations = 1;
      res.mismatches = 1;
      res.report = fmt::format("MISMATCH the default configuration is invalid: {}\n  program: {}\n  instance: {}\n  configuration: {}\n",
                               fmt::join(errs, "; "), programText, prog.instanceName, ll::toJson(configs[0]).dump());
      return res;
    }
  for (int i = 0; i < opts.randomConfigs * 4 && int(configs.size()) <= opts.randomConfigs; ++i) {
    ll::Config c = ll::randomConfig(prog, model, rng, sizes);
    if (prog.dynamicSizes.empty() && !ll::validate(c, prog, model).empty()) continue;
    configs.push_back(c);
  }
  // With run-time sizes the OpenMP entry dispatches between the default's variants, one per
  // vector dimension (ll/RunTimeVariants.h); each is tested at these sizes, whichever the
  // dispatch would pick.
  if (!opencl && !cuda) {
    ll::RunTimeVariants variants = ll::runTimeVariants(prog, model, configs[0]);
    configs.insert(configs.end(), variants.configs.begin() + 1, variants.configs.end());
  }
  for (const auto &text : opts.extraConfigs) {
    const nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
    ll::Config c;
    std::string error;
    if (j.is_discarded()) error = "not JSON";
    else if (ll::fromJson(j, c, error)) {
      // A partial configuration without "model" is for the backend under test (it became
      // openmp's, and --backend opencl refused it).
      if (!j.contains("model")) c.model = model.name;
      c = ll::completeConfig(c, prog, model);
      auto errs = ll::validate(c, prog, model);
      if (!errs.empty()) error = fmt::format("{}", fmt::join(errs, "; "));
    }
    if (!error.empty()) {
      res.unusable = fmt::format("configuration {} is not usable here: {}", text, error);
      return res;
    }
    configs.push_back(c);
  }
  std::vector<ll::Lowered> lowered;
  std::string source;
  for (size_t i = 0; i < configs.size(); ++i) {
    lowered.push_back(ll::lower(prog, configs[i]));
  }
  // optFlags last, so that they can narrow -march=native (-mno-avx512f tests AVX2's code paths on
  // an AVX-512 host).
  std::string flags = "-march=native -fopenmp " + opts.optFlags;
  if (opencl) {
    std::vector<codegen::GpuUnit> batch;
    for (size_t i = 0; i < configs.size(); ++i) batch.push_back({&lowered[i], fmt::format("{}_c{}", prog.instanceName, i)});
    auto k = codegen::emitOpenCL(batch, int64_t(model.coreLayers().at(1)->maxParallelism));
    source = k.source;
    flags = opts.optFlags + " " + k.flags;
  } else if (cuda) {
    std::vector<codegen::GpuUnit> batch;
    for (size_t i = 0; i < configs.size(); ++i) batch.push_back({&lowered[i], fmt::format("{}_c{}", prog.instanceName, i)});
    auto k = codegen::emitCuda(batch);
    source = k.source;
    // --opt replaces the emitter's -O3 (nvcc warns about a second -O); it sets
    // the host code's level, ptxas optimises the device code regardless.
    flags = k.flags;
    if (auto at = flags.find(" -O3"); at != std::string::npos) flags.erase(at, 4);
    flags += " " + opts.optFlags + " " + runtime::cudaArchFlag(*cudaDevice);
  } else {
    for (size_t i = 0; i < configs.size(); ++i) {
      auto k = codegen::emitOpenMP(lowered[i], fmt::format("{}_c{}", prog.instanceName, i));
      if (i == 0) source = k.common;
      source += k.kernel;
    }
  }
  std::string err;
  runtime::BuildFailure failure;
  auto lib = runtime::NativeLibrary::build(source, flags, err, opts.keepDir,
                                          cuda ? runtime::Toolchain::Cuda : runtime::Toolchain::HostCxx, &failure);
  if (failure == runtime::BuildFailure::Interrupted) {
    res.interrupted = true;
    return res;
  }
  auto reproducer = [&](size_t i, const std::string &what) {
    return fmt::format("MISMATCH {}\n  program: {}\n  instance: {}{}\n  seed: {}\n  configuration: {}\n", what, programText,
                       prog.instanceName,
                       dynPairs.empty() ? "" : fmt::format(" (run-time sizes {})", nlohmann::json(dynPairs).dump()),
                       opts.seed, ll::toJson(configs[i]).dump());
  };
  if (!lib) {
    res.configurations = int(configs.size());
    res.mismatches = int(configs.size());
    res.report = reproducer(0, "the generated code does not compile:\n" + err);
    return res;
  }
  // Element type and shape of every output (the bytes come from each run).
  std::vector<data::BufferData> outShapes(prog.outputs.size());
  for (size_t o = 0; o < prog.outputs.size(); ++o) {
    outShapes[o].elem = prog.outputs[o].elem;
    outShapes[o].shape = concreteShape(prog.outputs[o], dyn);
  }
  // OpenMP kernels run in a child process under a time limit, so that a
  // miscompiled one that writes out of bounds or never returns is reported
  // as a mismatch instead of crashing or hanging the tester (a kernel that
  // wrote past its output once left both OpenMP threads in a barrier
  // forever).  The child sends the entry's status, which output's
  // surrounding bytes it changed (-1: none; see firstWrittenAround), then the
  // outputs' bytes.
  // OpenCL and CUDA run in process: the device's runtime does not survive fork().
  std::vector<size_t> outBytes;
  for (const auto &shape : outShapes) outBytes.push_back(shape.elementCount() * shape.elementSize());
  auto runIsolated = [&](runtime::GenericEntry fn, std::vector<void *> &ptrs, const std::vector<std::vector<uint8_t>> &storage,
                         int &writtenAround, std::string &failure) {
    tune::ChildOutcome child = tune::runInChild(opts.timeoutSeconds, [&](int fd) {
      const int status = fn(dynValues.data(), ptrs.data());
      const int around = firstWrittenAround(storage, ptrs, prog.inputs.size(), outBytes);
      tune::writeAllOrExit(fd, &status, sizeof status);
      tune::writeAllOrExit(fd, &around, sizeof around);
      for (size_t o = 0; o < outBytes.size(); ++o) tune::writeAllOrExit(fd, ptrs[prog.inputs.size() + o], outBytes[o]);
    });
    size_t total = 2 * sizeof(int);
    for (size_t n : outBytes) total += n;
    if (child.kind != tune::ChildOutcome::Kind::Exited || child.code != 0 || child.output.size() != total) {
      failure = fmt::format("the generated code {}", child.kind == tune::ChildOutcome::Kind::Exited && child.code == 0
                                                          ? "sent incomplete results"
                                                          : child.describe());
      return -1;
    }
    int status = 0;
    std::memcpy(&status, child.output.data(), sizeof status);
    std::memcpy(&writtenAround, child.output.data() + sizeof status, sizeof writtenAround);
    size_t at = sizeof status + sizeof writtenAround;
    for (size_t o = 0; o < outBytes.size(); ++o) {
      std::memcpy(ptrs[prog.inputs.size() + o], child.output.data() + at, outBytes[o]);
      at += outBytes[o];
    }
    return status;
  };
  for (size_t i = 0; i < configs.size(); ++i) {
    ++res.configurations;
    auto fn = lib->entry(fmt::format("{}_c{}", prog.instanceName, i));
    if (!fn) {
      ++res.mismatches;
      res.report += reproducer(i, "entry point missing from the library");
      continue;
    }
    // Outputs start on a cache line, as a performance-minded caller's do
    // (malloc gives 16 bytes): streaming stores check that at run time and
    // go plain otherwise.  A configuration that streams runs a second time
    // with its outputs one element past a line, for the plain fallback and
    // for the row segments that move themselves onto lines.  The 64 bytes
    // and more around each output hold kGuardByte, which a kernel must not
    // change.
    const int placements = configs[i].streamStores ? 2 : 1;
    for (int placement = 0; placement < placements; ++placement) {
      const std::string where = placement ? " (outputs one element past a cache line)" : "";
      std::vector<std::vector<uint8_t>> storage;
      std::vector<void *> ptrs;
      for (const auto &b : prog.inputs) ptrs.push_back(const_cast<uint8_t *>(inputs.at(b.name).bytes.data()));
      for (const auto &shape : outShapes) {
        const size_t elemSize = shape.elementSize();
        const size_t cells = shape.elementCount() * elemSize;
        storage.emplace_back(cells + 192 + elemSize, kGuardByte);
        const auto base = reinterpret_cast<uintptr_t>(storage.back().data());
        uint8_t *out = reinterpret_cast<uint8_t *>((base + 64 + 63) / 64 * 64 + (placement ? elemSize : 0));
        std::memset(out, 0, cells);
        ptrs.push_back(out);
      }
      std::string failure;
      int writtenAround = -1;
      int status = 0;
      if (opencl || cuda) {
        status = fn(dynValues.data(), ptrs.data());
        writtenAround = firstWrittenAround(storage, ptrs, prog.inputs.size(), outBytes);
      } else {
        status = runIsolated(fn, ptrs, storage, writtenAround, failure);
      }
      if (status) {
        ++res.mismatches;
        res.report += reproducer(i, failure.empty() ? fmt::format("the entry point failed with status {}{}", status, where) : failure + where);
        break;
      }
      if (writtenAround >= 0) {
        ++res.mismatches;
        res.report += reproducer(i, fmt::format("the kernel wrote outside `{}`, next to its cells{}", prog.outputs[size_t(writtenAround)].name, where));
        break;
      }
      bool bad = false;
      for (size_t o = 0; o < prog.outputs.size() && !bad; ++o) {
        const auto &b = prog.outputs[o];
        data::BufferData got = outShapes[o];
        got.bytes.resize(got.elementCount() * got.elementSize());
        std::memcpy(got.bytes.data(), ptrs[prog.inputs.size() + o], got.bytes.size());
        const auto &want = expected.outputs.at(b.name);
        const auto &defined = expected.defined.at(b.name);
        for (size_t q = 0; q < got.elementCount() && !bad; ++q) {
          if (q < defined.size() && !defined[q]) continue;
          std::string why;
          if (!sameValue(b.elem, got.element(q), want.element(q), opts.floatTolerance, why) &&
              !withinPreciseBound(prog, inputs, eo, b, got, q, why)) {
            ++res.mismatches;
            res.report += reproducer(i, fmt::format("in `{}` at linear index {}{}{}", b.name, q, why, where));
            bad = true;
          }
        }
      }
      if (bad) break;
    }
    if (opts.verbose) fmt::print("  config {}: {}\n", i, ll::toJson(configs[i]).dump());
  }
  return res;
}

} // namespace mdh::testing
