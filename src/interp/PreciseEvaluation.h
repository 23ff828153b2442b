/** \file
 * High-precision mode: reference values of output cells with an error
 * bound, for judging the float results of generated code (differential
 * testing).  Float arithmetic runs in 50 significant decimal digits
 * (PreciseArith.h); integers are exact as always.
 *
 * For each float leaf of a cell the result holds the reference value,
 * Σ|terms| (absSum), the number of scalar-function results folded into the
 * cell (terms), the rounding budget k (in units of the type's unit roundoff
 * u) and the bound
 *     errorBound = γ_k · absSum + k · (smallest subnormal),   γ_k = k·u / (1 − k·u),
 * which holds for any evaluation order and any FMA contraction of the
 * declared-precision computation, provided control flow (comparisons,
 * `?:`, float→int conversions, floor/round...) takes the same branches as
 * in the reference.  See docs/interpreter.md for the derivation.
 *
 *   auto cells = interp::evaluatePrecise(prog, inputs, {{"C", {5, 7}}});
 *   bool ok = cells[0].leaves[0].accepts(computedValue);
 */
#pragma once

#include "interp/Interpreter.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mdh::interp {

struct PreciseLeaf {
  std::string path;             ///< `.w` for a record field, empty for a primitive cell
  Type::Kind kind = Type::Kind::Error;
  bool isFloat = false;
  long double value = 0;        ///< the reference value (floats: rounded to long double; integers: exact)
  std::string text;             ///< floats: 30 significant digits; integers: the exact value
  uint64_t intBits = 0;         ///< integers and bool: the exact canonical value
  double absSum = 0;            ///< Σ|terms|
  double roundings = 0;         ///< k, the rounding budget in units of u
  double errorBound = 0;        ///< γ_k·absSum + k·subnormal; 0 for integers (exact)

  /// Whether `computed` (a result of generated code for this leaf) is within the bound.
  /// Integers must match exactly; NaN matches NaN; an infinity matches when the
  /// reference overflows the type to the same infinity.
  bool accepts(double computed) const;
};

struct PreciseCell {
  CellRef cell;
  bool defined = false;
  uint64_t terms = 0;           ///< scalar-function results folded into the cell
  std::vector<PreciseLeaf> leaves;
  uint64_t applications = 0;    ///< scalar-function applications spent (per-cell mode)
};

/// Reference values of `cells` (all cells of all outputs when empty).
std::vector<PreciseCell> evaluatePrecise(const hl::Program &prog, const data::BufferSet &inputs,
                                         const std::vector<CellRef> &cells = {}, const EvalOptions &opts = {});

} // namespace mdh::interp
