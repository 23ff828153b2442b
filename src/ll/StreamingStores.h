/** \file
 * Whether the default writes the outputs with streaming (non-temporal) stores:
 * the rule, as data, so that it can be evaluated at compile time (sizes known)
 * and emitted into a kernel that decides when it starts (sizes left to run
 * time: RunTimeVariants.h), like VectorDimension.h.
 *
 * Streaming pays when the outputs cannot stay in the last-level cache anyway
 * (each plain store would first read its line from memory): a map with no
 * reduction, not a scan that stores f and scans the output again, whose
 * footprint (all buffers) is at least the cache the cores can count on, and
 * whose output rows start on cache lines or are written straight from f a row
 * at a time (one buffer of numbers, one access, contiguous along the vector
 * dimension, rows of at least StreamingRule::minRowBytes). Measured: a
 * broadcasting product 4001 x 3001 f32 (96 MB), sizes compiled in, took 4.15 ms
 * with plain stores, 1.93 streamed.
 *
 * Invariants: streams() depends on the sizes only through the footprint, the
 * outputs' last extents and the vector dimension's size, the quantities the
 * emitted dispatch computes; for equal inputs both agree.
 */
#pragma once

#include "hl/HLIR.h"
#include "ll/AsmModel.h"

#include <cstdint>
#include <vector>

namespace mdh::ll {

struct StreamingRule {
  bool applies = false;            ///< a map (no reduction), not a scan that stores f first
  uint64_t cacheBytes = 0;         ///< the last-level cache the cores can count on
  /// The outputs of rank > 1 (index into outputs) and their element sizes:
  /// rows start on cache lines when each last extent times it is a multiple of 64.
  std::vector<std::pair<size_t, int64_t>> rowOutputs;
  /// Rows written straight from f: per MDA dimension, whether it is a vector
  /// dimension along which the one output access of numbers is contiguous.
  std::vector<bool> rowsFromF;
  int64_t resultBytes = 0;         ///< f's result
  /// The shortest row written straight from f that streams without starting on a cache
  /// line (its peel and partial lines cost more below): kMinStreamedSegmentBytes with
  /// 64-byte vectors; with narrower ones, two or more streaming stores a line,
  /// kMinStreamedRowBytesNarrow (Jacobi3D's rows of 1016 bytes on the Zen 3, AVX2, paired:
  /// 1.73x the plain stores' time; Jacobi2D's 16376-byte rows 0.70x).
  int64_t minRowBytes = 0;
};

constexpr int64_t kMinStreamedRowBytesNarrow = 4096;

/// `threads` as for defaultConfig (0: the host's cores).
StreamingRule streamingRule(const hl::Program &p, const AsmModel &m, int threads);

/// Whether every output of rank > 1 has rows that start on cache lines: its last
/// extent (`outputLastExtents`, as for streams(); 0 or less: not known, so not
/// aligned) times its element size is a multiple of 64 bytes.
bool rowsStartOnLines(const StreamingRule &rule, const std::vector<int64_t> &outputLastExtents);

/// The rule's decision: `footprintBytes` of all buffers (0: unknown, no
/// streaming), `outputLastExtents` per output (its last shape extent; 1 for
/// a scalar), `dimSizes` per MDA dimension, `simd` the vector dimension (-1: none).
bool streams(const StreamingRule &rule, double footprintBytes, const std::vector<int64_t> &outputLastExtents,
             const std::vector<int64_t> &dimSizes, int simd);

} // namespace mdh::ll
