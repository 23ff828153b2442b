/** \file
 * The tuner's correctness check of a candidate's outputs.
 *
 * Two comparisons, both prepared before any candidate runs:
 *  1. in full with the default configuration's outputs — bit-exact for
 *     integer, bool and record outputs; for float outputs within
 *     8 × (the largest high-precision error bound among the sampled cells
 *     of that buffer), i.e. a buffer-wide bound derived from (2) (two
 *     results each within the bound of the true value differ by at most
 *     twice it; the factor 4 on top covers unsampled cells with larger
 *     sums);
 *  2. on at least 256 random cells (all cells of smaller outputs) against
 *     the interpreter's per-cell high-precision evaluation
 *     (interp::evaluatePrecise; PreciseLeaf::accepts judges floats by
 *     γ_k·Σ|terms|, integers exactly) — the same judgement the
 *     differential tester uses.
 * Invariant: check() is pure (it runs inside measurement children); a
 * non-empty result is a sentence naming the buffer, the cell, both values
 * and the bound.
 */
#pragma once

#include "data/BufferData.h"
#include "hl/HLIR.h"
#include "interp/PreciseEvaluation.h"
#include "tune/CandidateBackend.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mdh::tune {

class OutputChecker {
public:
  /// Evaluates `cells` random output cells (seeded) in high precision.
  OutputChecker(const hl::Program &p, const data::BufferSet &inputs, uint64_t seed, int cells = 256);

  /// Problems of the high-precision evaluation (the check then covers comparison (1) only).
  const std::string &note() const { return note_; }
  size_t sampledCells() const { return cells_.size(); }

  /// The default configuration's outputs: after its check against (2) passed.
  void setReference(Outputs reference) { reference_ = std::move(reference); }
  /// Empty when `outs` passes; otherwise what is wrong.
  std::string check(const Outputs &outs) const;
  /// Comparison (2) alone (for the default configuration itself).
  std::string checkPrecise(const Outputs &outs) const;

  /// Test hook (MDH_TUNE_TEST_CORRUPT_CANDIDATE): changes one output value
  /// so that the check must fail.
  void corruptForTest(Outputs &outs) const;

private:
  struct Sample {
    size_t buffer = 0;
    size_t linear = 0;
    interp::PreciseCell cell;
  };
  std::string cellName(size_t buffer, size_t linear) const;

  const hl::Program &prog_;
  std::vector<std::vector<int64_t>> shapes_;
  std::vector<Sample> cells_;
  std::vector<double> floatTolerance_; ///< per output buffer (floats)
  Outputs reference_;
  std::string note_;
};

} // namespace mdh::tune
