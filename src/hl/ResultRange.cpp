/** \file
 * Interval analysis of a scalar function's result-typed expressions (see
 * ResultRange.h).  Locals are straight-line `let`s: a local assigned both
 * bounded and unbounded values is made unbounded everywhere and the body is
 * walked again, until no local is mixed.
 */
#include "hl/ResultRange.h"

#include <algorithm>
#include <limits>

namespace mdh::hl {
namespace {

/// Intervals beyond this are not worth narrowing, and stay far from int64 overflow.
constexpr int64_t kLimit = int64_t(1) << 40;

std::optional<IntRange> checked(int64_t lo, int64_t hi) {
  if (lo < -kLimit || hi > kLimit) return std::nullopt;
  return IntRange{lo, hi};
}

/// The mathematical value of an integer constant of type t.
std::optional<int64_t> constantValue(const Type &t, uint64_t bits) {
  const int w = t.bits();
  if (t.isSigned()) {
    const uint64_t sign = uint64_t(1) << (w - 1);
    const uint64_t mask = w == 64 ? ~uint64_t(0) : (uint64_t(1) << w) - 1;
    const uint64_t b = bits & mask;
    return (b & sign) ? int64_t(b | ~mask) : int64_t(b);
  }
  if (bits > uint64_t(kLimit)) return std::nullopt;
  return int64_t(bits);
}

} // namespace

ResultRanges::ResultRanges(const ScalarFunction &f) : f_(f) {
  if (!f.result.isInteger() || f.result.size() < 2) {
    allReturnsBounded_ = false;
    return;
  }
  std::set<int> wide;
  for (;;) {
    ranges_.clear();
    current_.clear();
    unbounded_.clear();
    result_.reset();
    allReturnsBounded_ = true;
    std::set<int> mixed;
    walk(f.body, wide, mixed);
    if (mixed.empty()) break;
    wide.insert(mixed.begin(), mixed.end());
  }
  for (const auto &[slot, r] : current_) bounded_.insert(slot);
  if (!allReturnsBounded_) result_.reset();
}

void ResultRanges::walk(const std::vector<SStmtPtr> &body, const std::set<int> &wide, std::set<int> &mixed) {
  for (const auto &s : body) {
    switch (s->kind) {
    case SStmt::Kind::Assign: {
      if (!s->value) break;
      const bool resultTyped = size_t(s->slot) >= f_.numParams && f_.localTypes[size_t(s->slot)] == f_.result;
      std::optional<IntRange> r = expr(*s->value, wide);
      if (!resultTyped || wide.count(s->slot)) break;
      if (r) {
        if (unbounded_.count(s->slot)) mixed.insert(s->slot);
        current_[s->slot] = *r;
      } else {
        if (current_.count(s->slot)) mixed.insert(s->slot);
        current_.erase(s->slot);
        unbounded_.insert(s->slot);
      }
      break;
    }
    case SStmt::Kind::Return: {
      std::optional<IntRange> r = s->value ? expr(*s->value, wide) : std::nullopt;
      if (!r) {
        allReturnsBounded_ = false;
      } else {
        result_ = result_ ? IntRange{std::min(result_->lo, r->lo), std::max(result_->hi, r->hi)} : *r;
      }
      break;
    }
    case SStmt::Kind::Block: walk(s->thenBody, wide, mixed); break;
    case SStmt::Kind::If:
      // Branches are not lane-wise code (VectorC.h): no narrow version.
      allReturnsBounded_ = false;
      break;
    }
  }
}

std::optional<IntRange> ResultRanges::expr(const SExpr &e, const std::set<int> &wide) {
  std::vector<std::optional<IntRange>> a;
  for (const auto &arg : e.args) a.push_back(expr(*arg, wide));
  if (e.type != f_.result) return std::nullopt;
  std::optional<IntRange> r;
  switch (e.kind) {
  case SExpr::Kind::Const:
    if (auto v = constantValue(e.type, e.value.bits)) r = checked(*v, *v);
    break;
  case SExpr::Kind::Local:
    if (size_t(e.slot) >= f_.numParams && !wide.count(e.slot))
      if (auto it = current_.find(e.slot); it != current_.end()) r = it->second;
    break;
  case SExpr::Kind::Unary:
    if (!a[0]) break;
    if (e.unOp == UnOp::Neg) r = checked(-a[0]->hi, -a[0]->lo);
    else if (e.unOp == UnOp::BitNot) r = checked(-a[0]->hi - 1, -a[0]->lo - 1); // ~x = -x - 1
    break;
  case SExpr::Kind::Binary:
    if (!a[0] || !a[1]) break;
    switch (e.binOp) {
    case BinOp::Add: r = checked(a[0]->lo + a[1]->lo, a[0]->hi + a[1]->hi); break;
    case BinOp::Sub: r = checked(a[0]->lo - a[1]->hi, a[0]->hi - a[1]->lo); break;
    case BinOp::Mul: {
      const int64_t p[] = {a[0]->lo * a[1]->lo, a[0]->lo * a[1]->hi, a[0]->hi * a[1]->lo, a[0]->hi * a[1]->hi};
      r = checked(*std::min_element(std::begin(p), std::end(p)), *std::max_element(std::begin(p), std::end(p)));
      break;
    }
    default: break;
    }
    break;
  case SExpr::Kind::Cond:
    if (a[1] && a[2]) r = IntRange{std::min(a[1]->lo, a[2]->lo), std::max(a[1]->hi, a[2]->hi)};
    break;
  case SExpr::Kind::Cast:
    if (e.args[0]->type.kind == Type::Kind::Bool) r = IntRange{0, 1};
    break;
  default: break;
  }
  if (r) ranges_[&e] = *r;
  return r;
}

std::optional<IntRange> ResultRanges::of(const SExpr &e) const {
  if (auto it = ranges_.find(&e); it != ranges_.end()) return it->second;
  return std::nullopt;
}

int ResultRanges::laneBytes(int64_t steps) const {
  if (!result_) return 0;
  int64_t lo = 0, hi = 0;
  for (const auto &[e, r] : ranges_) lo = std::min(lo, r.lo), hi = std::max(hi, r.hi);
  for (int bytes : {1, 2}) {
    const int64_t max = (int64_t(1) << (8 * bytes - 1)) - 1;
    if (narrowAccumulatorSteps(*result_, bytes) >= steps && lo >= -max - 1 && hi <= max) return bytes;
  }
  return 0;
}

int64_t narrowAccumulatorSteps(IntRange r, int bytes) {
  const int64_t max = (int64_t(1) << (8 * bytes - 1)) - 1, min = -max - 1;
  int64_t steps = std::numeric_limits<int64_t>::max();
  if (r.hi > 0) steps = std::min(steps, max / r.hi);
  if (r.lo < 0) steps = std::min(steps, min / r.lo);
  return steps;
}

NarrowCounting narrowCounting(const Program &p, size_t d, int64_t updates, int64_t minPasses) {
  const CombineOperator &c = p.ops[d];
  if (!p.f || !p.f->result.isInteger() || c.kind != CombineOperator::Kind::PointWise ||
      c.op.kind != BinaryOperator::Kind::Builtin || c.op.builtin != BuiltinOp::Add)
    return {};
  const ResultRanges ranges(*p.f);
  int bytes = ranges.laneBytes(updates * minPasses);
  if (!bytes) return {};
  // Lanes no narrower than f's inputs: a compare of i32 inputs in 64 lanes of i8 spans 4
  // vector registers, and GCC converted its mask lane by lane (a 256-bin histogram of i32
  // elements 106 ms, of u8 elements 2 ms). Lanes of the inputs' width keep one register per
  // compare; as wide as the result, they are no narrowing at all.
  size_t inputBytes = 0;
  for (size_t i = 0; i < p.f->numParams; ++i)
    if (p.f->localTypes[i].isNumeric()) inputBytes = std::max(inputBytes, p.f->localTypes[i].size());
  if (inputBytes > size_t(bytes)) {
    if (inputBytes >= p.f->result.size()) return {};
    bytes = int(inputBytes);
  }
  return {bytes, narrowAccumulatorSteps(*ranges.result(), bytes) / updates};
}

} // namespace mdh::hl
