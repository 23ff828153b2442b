/** \file
 * Which dimension a CPU kernel vectorises: the rule, as data, so that it can
 * be evaluated at compile time (sizes known) and emitted into a kernel that
 * decides when it starts (sizes left to run time: RunTimeVariants.h).
 *
 * The rule weighs, per dimension, the bytes of the buffers that are
 * contiguous along it (unit coefficient in an access's last index; outputs
 * weigh 1.5), as contiguousDim does.  When that favours a reduced dimension
 * (lane-wise accumulators, summed across lanes at every flush) that does not
 * count in narrow lanes, a
 * concatenated dimension that the output is contiguous along is preferred if
 * it weighs at least 1/16 as much and every input read across it is reused
 * at least 8 times along the other concatenated dimensions (so staging it in
 * a layout contiguous along the vector dimension pays for itself).  Measured
 * on 2 cores of a Xeon, reduced / concatenated vector dimension: convolutions
 * (NHWC, KRSC, stride 2) 1x56x56x64x3x3x32 1.34 / 0.42 ms, 1x28x28x128x3x3x256
 * 4.1 / 2.5 ms (weight 0.13), 8x7x7x512x3x3x512 13.6 / 12.4 ms (0.09), but
 * 1x7x7x512x3x3x512 1.8 / 6.3 ms (0.015: the filter, 9 MiB, served only 49
 * positions); C = A.B^T 1024^3 15.0 / 10.5 ms.  A matrix-vector product
 * keeps its reduction: its matrix is read once, reused along no dimension.
 *
 * Invariants: choose() depends on the sizes only through the buffers' byte
 * counts and whether each dimension exceeds 1, the quantities the emitted
 * dispatch computes; for equal inputs the emitted choice and choose() agree.
 */
#pragma once

#include "hl/HLIR.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace mdh::ll {

struct VectorDimensionRule {
  struct Term {
    size_t buffer;  ///< index into inputs, then outputs (inputs.size() + k)
    double weight;  ///< 1 for an input, 1.5 for an output: per access contiguous along the dimension
  };
  std::vector<std::vector<Term>> terms; ///< per MDA dimension
  /// Reduced (lane-wise accumulators, summed across lanes at every flush),
  /// and not counting in narrow lanes (8- or 16-bit counts of a histogram
  /// pack 4 or 2 times the lanes of any other choice: 1M x 256 took 1.96 ms
  /// along its elements, 3.5 along its bins).
  std::vector<bool> replaceable;
  /// Per MDA dimension: concatenated, and some output is contiguous along it.
  std::vector<bool> outputContiguous;
  /// Per MDA dimension, per input read across it without being contiguous
  /// along it: the other concatenated dimensions that input does not read
  /// (the product of their sizes is how often a staged copy is reused).
  std::vector<std::vector<std::vector<size_t>>> reuseDims;
  static constexpr double kPreferableFraction = 1.0 / 16;
  static constexpr int64_t kMinReuse = 8;
  /// Lanes of one AVX-512 vector of f's result: at run time, a reduced dimension
  /// shorter than that gives way to any output-contiguous concatenated one (runTime below).
  int64_t vectorLanes = 16;
};

VectorDimensionRule vectorDimensionRule(const hl::Program &p);

/// The rule's choice (-1: no dimension): `bufferBytes` per buffer (inputs,
/// then outputs), `dimSizes` per MDA dimension.
/// `runTime`: the choice of a kernel with run-time sizes when it starts, whose
/// register tiles were planned for large sizes: a reduced dimension shorter
/// than one vector then gives way to any concatenated dimension the output is
/// contiguous along, whatever its weight and reuse (a matrix-vector product
/// 1000003 x 8 with run-time sizes: 4.9 ms along its 8 columns, 1.45 along its
/// rows; with the sizes compiled in, 0.70 along the columns, whose tiles fit).
int chooseVectorDimension(const VectorDimensionRule &rule, const std::vector<double> &bufferBytes,
                          const std::vector<int64_t> &dimSizes, bool runTime = false);

/// The choice at the planning sizes: a size known only at run time counts as
/// `plannedRunTimeSize` (in the buffers' shapes too).
int vectorDimension(const hl::Program &p, int64_t plannedRunTimeSize, bool runTime = false);

/// The dimensions chooseVectorDimension can return for some sizes, ascending.
std::vector<int> vectorDimensionCandidates(const VectorDimensionRule &rule);

} // namespace mdh::ll
