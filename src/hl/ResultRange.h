/** \file
 * Value ranges of a scalar function's integer result, for narrow lane
 * accumulators.
 *
 * A counting function such as a histogram's `e == b ? 1 : 0` returns an
 * i32 whose value is always 0 or 1.  Summed in 8-bit lanes, 64 such values
 * fit one 512-bit vector instead of 16, as long as the lanes are widened
 * into the real accumulators before they can overflow.  This analysis
 * proves the bound: it gives an exact integer interval for every
 * expression of the result type built only from constants, `?:`, casts from
 * bool, + - * and unary - ~ of such, and `let` locals holding them.
 * Anything else of the result type (a parameter, a call, a division, a
 * shift) has no interval, and a function returning it has none either.
 *
 * Invariants: the intervals are of the mathematical integers the
 * expressions compute before the result type's wrap-around, so an
 * expression evaluated in any narrower signed integer type that holds its
 * interval, then sign-extended, gives the same bits as in the result type
 * (two's complement wraps modulo 2^n for signed and unsigned alike); and a
 * `let` local has an interval only when every assignment to it has one.
 */
#pragma once

#include "hl/HLIR.h"

#include <cstdint>
#include <map>
#include <optional>
#include <set>

namespace mdh::hl {

/// An integer interval [lo, hi].
struct IntRange {
  int64_t lo = 0, hi = 0;
};

/// The intervals of one function's result-typed expressions (see the file comment).
class ResultRanges {
public:
  explicit ResultRanges(const ScalarFunction &f);

  /// The interval of `e`, an expression of `f` (nullopt: none proven).
  std::optional<IntRange> of(const SExpr &e) const;
  /// Whether `let` local `slot` holds a value with an interval everywhere.
  bool boundedLocal(int slot) const { return bounded_.count(slot) > 0; }
  /// The interval of every value `f` returns (nullopt: some return has none,
  /// or the result type is not an integer wider than a byte).
  std::optional<IntRange> result() const { return result_; }
  /// The narrowest signed lane (1 or 2 bytes) that holds `steps` successive
  /// sums of the result from 0 and also every bounded value of f on the way
  /// (a local of 200 read by a comparison must not wrap); 0 when none does
  /// or the result is unbounded.
  int laneBytes(int64_t steps) const;

private:
  const ScalarFunction &f_;
  std::map<const SExpr *, IntRange> ranges_;
  std::set<int> bounded_;
  std::optional<IntRange> result_;
  bool allReturnsBounded_ = true;
  std::map<int, IntRange> current_; // while walking: the interval of each bounded local now
  std::set<int> unbounded_;         // while walking: locals assigned a value without one

  void walk(const std::vector<SStmtPtr> &body, const std::set<int> &wide, std::set<int> &mixed);
  std::optional<IntRange> expr(const SExpr &e, const std::set<int> &wide);
};

/// Narrow counting along reduced dimension `d` of `p`: when d is reduced
/// with an integer add and f's result is bounded, the lane width (1 or 2
/// bytes, laneBytes()) that holds `updates` sums per pass for at least
/// `minPasses` passes, but no narrower than f's widest input, and the passes
/// between two widenings; bytes = 0 otherwise (also when the inputs are as
/// wide as the result).  The one rule the default configuration and the OpenMP
/// emitter both apply.
struct NarrowCounting {
  int bytes = 0;
  int64_t passes = 0;
};
NarrowCounting narrowCounting(const Program &p, size_t d, int64_t updates, int64_t minPasses);
/// How many sums of values in `r` a signed lane of `bytes` bytes holds
/// (from 0; INT64_MAX when r is [0, 0]).
int64_t narrowAccumulatorSteps(IntRange r, int bytes);

} // namespace mdh::hl
