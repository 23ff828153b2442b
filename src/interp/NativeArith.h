/** \file
 * The native number domain of the interpreter: floats at their declared
 * precision (an f32 operation is one binary32 operation with one rounding,
 * an f64 operation one binary64 operation), IEEE-754 semantics (division
 * by zero gives ±inf or NaN), C <math.h> functions of the argument's
 * precision, no contraction of `a*b+c` (libmdh is built with
 * -ffp-contract=off and no fast-math).
 *
 * The evaluators are templates over a number domain; this one and
 * PreciseArith.h provide the same static interface.  Integer arithmetic is
 * shared (IntegerArith.h) and works on `bits`.
 */
#pragma once

#include "hl/HLIR.h"
#include "interp/IntegerArith.h"
#include "interp/Scalar.h"

#include <fmt/format.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>

namespace mdh::interp {

struct NativeArith {
  using Value = Scalar;
  /// Whether MDA elements carry an extra leaf counting folded terms (precise mode only).
  static constexpr bool kCountsTerms = false;

  static Value fromBits(uint64_t b) { return scalarFromBits(b); }
  static uint64_t bits(const Value &v) { return v.bits; }
  static bool isFloat(Type::Kind k) { return k == Type::Kind::F32 || k == Type::Kind::F64; }

  static Value load(Type::Kind k, const uint8_t *p) {
    Value v;
    v.bits = 0;
    switch (k) {
    case Type::Kind::F32: std::memcpy(&v.f32, p, 4); return v;
    case Type::Kind::F64: std::memcpy(&v.f64, p, 8); return v;
    default: {
      uint64_t raw = 0;
      std::memcpy(&raw, p, size_t(intarith::width(k) / 8)); // little-endian host
      v.bits = k == Type::Kind::Bool ? uint64_t(raw != 0) : intarith::canonical(k, raw);
      return v;
    }
    }
  }

  static void store(Type::Kind k, const Value &v, uint8_t *p) {
    switch (k) {
    case Type::Kind::F32: std::memcpy(p, &v.f32, 4); return;
    case Type::Kind::F64: std::memcpy(p, &v.f64, 8); return;
    default: std::memcpy(p, &v.bits, size_t(intarith::width(k) / 8)); return;
    }
  }

  static Value floatConstant(Type::Kind k, double d) {
    Value v;
    v.bits = 0;
    if (k == Type::Kind::F32) v.f32 = float(d);
    else v.f64 = d;
    return v;
  }

  static Value floatArith(hl::BinOp op, Type::Kind k, const Value &a, const Value &b) {
    Value r;
    r.bits = 0;
    if (k == Type::Kind::F32) r.f32 = arith(op, a.f32, b.f32);
    else r.f64 = arith(op, a.f64, b.f64);
    return r;
  }

  static bool floatCompare(hl::BinOp op, Type::Kind k, const Value &a, const Value &b) {
    return k == Type::Kind::F32 ? compare(op, a.f32, b.f32) : compare(op, a.f64, b.f64);
  }

  static Value floatNeg(Type::Kind k, const Value &a) {
    Value r;
    r.bits = 0;
    if (k == Type::Kind::F32) r.f32 = -a.f32;
    else r.f64 = -a.f64;
    return r;
  }

  static bool floatIsNonZero(Type::Kind k, const Value &a) { return k == Type::Kind::F32 ? a.f32 != 0 : a.f64 != 0; }

  static Value floatBuiltin(hl::Builtin b, Type::Kind k, const Value *args) {
    Value r;
    r.bits = 0;
    if (k == Type::Kind::F32) r.f32 = math<float>(b, args[0].f32, args[1].f32, args[2].f32);
    else r.f64 = math<double>(b, args[0].f64, args[1].f64, args[2].f64);
    return r;
  }

  /// `as` into a float type from a float, integer or bool of kind `from`.
  static Value toFloat(Type::Kind to, Type::Kind from, const Value &a) {
    Value r;
    r.bits = 0;
    if (from == Type::Kind::F32 || from == Type::Kind::F64) {
      double d = from == Type::Kind::F32 ? double(a.f32) : a.f64;
      if (to == Type::Kind::F32) r.f32 = from == Type::Kind::F32 ? a.f32 : float(d);
      else r.f64 = d;
      return r;
    }
    if (intarith::isSigned(from)) {
      if (to == Type::Kind::F32) r.f32 = float(int64_t(a.bits));
      else r.f64 = double(int64_t(a.bits));
    } else {
      if (to == Type::Kind::F32) r.f32 = float(a.bits);
      else r.f64 = double(a.bits);
    }
    return r;
  }

  /// `as` from a float into an integer type: truncation toward zero,
  /// saturation at the type's range, NaN -> 0.
  static uint64_t floatToInt(Type::Kind to, Type::Kind from, const Value &a) {
    double d = from == Type::Kind::F32 ? double(a.f32) : a.f64;
    return saturatingFloatToInt(to, d);
  }

  static uint64_t saturatingFloatToInt(Type::Kind to, double d) {
    if (std::isnan(d)) return 0;
    // Bounds as doubles: max+1 is a power of two, so it is exact.
    double hiExclusive = std::ldexp(1.0, intarith::width(to) - (intarith::isSigned(to) ? 1 : 0));
    double lo = intarith::isSigned(to) ? -hiExclusive : 0.0;
    if (d >= hiExclusive) return intarith::canonical(to, uint64_t((unsigned __int128)intarith::maxOf(to)));
    if (d <= lo) return intarith::canonical(to, uint64_t((unsigned __int128)intarith::minOf(to)));
    double t = std::trunc(d);
    if (intarith::isSigned(to)) return intarith::canonical(to, uint64_t(int64_t(t)));
    return intarith::canonical(to, uint64_t(t));
  }

  /// Same value for the purpose of Def. 18 (equal writes): identical bits.
  static bool identical(Type::Kind k, const Value &a, const Value &b) {
    switch (k) {
    case Type::Kind::F32: {
      uint32_t x, y;
      std::memcpy(&x, &a.f32, 4);
      std::memcpy(&y, &b.f32, 4);
      return x == y;
    }
    default: return a.bits == b.bits;
    }
  }

  static std::string format(Type::Kind k, const Value &v) {
    if (k == Type::Kind::F32) return fmt::format("{}", v.f32);
    if (k == Type::Kind::F64) return fmt::format("{}", v.f64);
    return intarith::toString(k, v.bits);
  }

  /// The value as a double (for printing and statistics).
  static double toDouble(Type::Kind k, const Value &v) {
    if (k == Type::Kind::F32) return v.f32;
    if (k == Type::Kind::F64) return v.f64;
    return intarith::isSigned(k) ? double(int64_t(v.bits)) : double(v.bits);
  }

private:
  template <class F> static F arith(hl::BinOp op, F a, F b) {
    switch (op) {
    case hl::BinOp::Add: return a + b;
    case hl::BinOp::Sub: return a - b;
    case hl::BinOp::Mul: return a * b;
    case hl::BinOp::Div: return a / b;
    case hl::BinOp::Mod: return std::fmod(a, b);
    default: return std::numeric_limits<F>::quiet_NaN();
    }
  }

  template <class F> static bool compare(hl::BinOp op, F a, F b) {
    switch (op) {
    case hl::BinOp::Lt: return a < b;
    case hl::BinOp::Le: return a <= b;
    case hl::BinOp::Gt: return a > b;
    case hl::BinOp::Ge: return a >= b;
    case hl::BinOp::Eq: return a == b;
    case hl::BinOp::Ne: return a != b;
    default: return false;
    }
  }

  template <class F> static F math(hl::Builtin b, F x, F y, F z) {
    switch (b) {
    case hl::Builtin::Sqrt: return std::sqrt(x);
    case hl::Builtin::Exp: return std::exp(x);
    case hl::Builtin::Log: return std::log(x);
    case hl::Builtin::Abs: return std::fabs(x);
    // fmin/fmax with -0 < +0, so that min and max are commutative on zeros
    // too (every stage reorders them; docs/language.md §14.2).
    case hl::Builtin::Min:
      if (x != x) return y;
      if (y != y) return x;
      return (x < y || (x == y && std::signbit(x))) ? x : y;
    case hl::Builtin::Max:
      if (x != x) return y;
      if (y != y) return x;
      return (x > y || (x == y && !std::signbit(x))) ? x : y;
    case hl::Builtin::Pow: return std::pow(x, y);
    case hl::Builtin::Floor: return std::floor(x);
    case hl::Builtin::Ceil: return std::ceil(x);
    case hl::Builtin::Sin: return std::sin(x);
    case hl::Builtin::Cos: return std::cos(x);
    case hl::Builtin::Tan: return std::tan(x);
    case hl::Builtin::Tanh: return std::tanh(x);
    case hl::Builtin::Exp2: return std::exp2(x);
    case hl::Builtin::Log2: return std::log2(x);
    case hl::Builtin::Log10: return std::log10(x);
    case hl::Builtin::Round: return std::round(x);
    case hl::Builtin::Trunc: return std::trunc(x);
    case hl::Builtin::Fma: return std::fma(x, y, z);
    }
    return x;
  }
};

} // namespace mdh::interp
