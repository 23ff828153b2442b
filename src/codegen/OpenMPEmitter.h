/** \file
 * The OpenMP backend: a lowered program becomes a self-contained C++17 +
 * OpenMP source and a header.
 *
 * The source exports one `extern "C"` entry per instantiation, taking the
 * dynamic sizes (BLAS-style) then the input and output buffers, plus a
 * generic `<name>_run(const int64_t *sizes, void *const *buffers)` entry used
 * by `mdhc run` and the differential tester.  Invariants: the emitted code
 * has no run-time dependency on mdh; for a fixed configuration and thread
 * count it is deterministic (partial results combine in a fixed order).
 */
#pragma once

#include "ll/Lowering.h"
#include "ll/StreamingStores.h"
#include "ll/VectorDimension.h"

#include <string>

namespace mdh::codegen {

struct EmittedKernel {
  std::string name;     ///< entry symbol
  std::string common;   ///< includes, types, helpers, scalar functions (shared by all configurations)
  std::string kernel;   ///< the entry points of this configuration
  std::string source;   ///< common + kernel: a complete .cpp
  std::string header;   ///< .h
  std::string flags;    ///< compiler flags the source expects, for one step from source to shared library
  std::string compileFlags; ///< the flags to compile the source alone (`-c`)
  std::string linkFlags;    ///< what a program linking the object needs besides it (`-lOpenCL`)
};

/// `name` overrides the entry symbol (default: the instance name), so that
/// several configurations of one program can share one translation unit.
EmittedKernel emitOpenMP(const ll::Lowered &l, const std::string &name = "");

/// One entry over several configurations of one program (ll::runTimeVariants:
/// the default's, one per vector dimension, for sizes left to run time). Each
/// becomes `mdh_v<i>_<name>`; the entry `<name>` checks its arguments, asks
/// `mdh_vector_dimension_<name>(sizes)` which dimension the call's sizes
/// favour (the rule mdhc applies to known sizes) and, where a variant streams
/// its stores, `mdh_streams_<name>(sizes, dim)` whether to (StreamingStores.h),
/// and calls that variant (the plain one of that dimension when none streams,
/// the first for any other choice). One variant: emitOpenMP.
EmittedKernel emitOpenMPDispatch(const std::vector<ll::Lowered> &variants, const ll::VectorDimensionRule &rule,
                                 const ll::StreamingRule &streaming, const std::string &name = "");

} // namespace mdh::codegen
