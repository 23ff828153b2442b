/** \file
 * The high-precision number domain: every float operation is carried out
 * in 50-digit binary floating point (Boost.Multiprecision cpp_bin_float_50)
 * instead of the declared f32/f64, and each float value also carries what
 * the error bound of docs/interpreter.md ("High-precision mode") needs:
 *
 *   value   the reference value (inputs and literals are taken exactly);
 *   mag     Σ|terms| generalised: the same expression evaluated on the
 *           absolute values of its operands (a+b: |a|+|b|, a*b: |a|·|b|,
 *           a/b: |a|/|b|) — for a dot product exactly Σ_k |x_k·y_k|;
 *   budget  the unit roundoffs u accumulated along the longest chain of
 *           roundings the declared-precision computation performs
 *           (a±b: max(budget)+u, a*b and a/b: sum of budgets + u).
 *
 * Then |computed − value| ≤ γ(budget)·mag with γ(b) = b/(1−b), Higham's
 * γ_k = k·u/(1−k·u), for every evaluation order of + and *: the canonical left
 * fold has the longest chain a reordered or tree-shaped sum can have.  Math
 * functions add their documented ulp allowance (kMathUlps) and propagate
 * the argument's relative error through their condition number.
 * Integers and bools are exact, as in the native domain.
 */
#pragma once

#include "hl/HLIR.h"
#include "interp/IntegerArith.h"

#include <boost/multiprecision/cpp_bin_float.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>

namespace mdh::interp {

using Real = boost::multiprecision::cpp_bin_float_50;

struct PreciseValue {
  uint64_t bits = 0;  ///< integer and bool leaves (canonical); the count of the terms leaf
  Real value = 0;     ///< float leaves
  double mag = 0;     ///< float leaves: Σ|terms|
  double budget = 0;  ///< float leaves: accumulated unit roundoffs
};

/// Accuracy that generated code is allowed for math functions, in ulps
/// (the OpenCL 1.2 full-profile bounds, the loosest of the backends).
inline double mathUlps(hl::Builtin b, Type::Kind k) {
  switch (b) {
  case hl::Builtin::Sqrt: return k == Type::Kind::F32 ? 3 : 0.5;
  case hl::Builtin::Exp:
  case hl::Builtin::Exp2:
  case hl::Builtin::Log:
  case hl::Builtin::Log2:
  case hl::Builtin::Log10: return 3;
  case hl::Builtin::Pow: return 16;
  case hl::Builtin::Sin:
  case hl::Builtin::Cos: return 4;
  case hl::Builtin::Tan:
  case hl::Builtin::Tanh: return 5;
  default: return 0.5; // correctly rounded or exact
  }
}

struct PreciseArith {
  using Value = PreciseValue;
  static constexpr bool kCountsTerms = true;

  /// Unit roundoff of a float type.
  static double unitRoundoff(Type::Kind k) { return k == Type::Kind::F32 ? std::ldexp(1.0, -24) : std::ldexp(1.0, -53); }

  static Value fromBits(uint64_t b) {
    Value v;
    v.bits = b;
    return v;
  }
  static uint64_t bits(const Value &v) { return v.bits; }
  static bool isFloat(Type::Kind k) { return k == Type::Kind::F32 || k == Type::Kind::F64; }
  static void setTerms(Value &v, uint64_t n) { v.bits = n; }
  static void addTerms(Value &into, const Value &more) { into.bits += more.bits; }

  static Value exact(const Real &r) {
    Value v;
    v.value = r;
    v.mag = std::fabs(r.convert_to<double>());
    return v;
  }

  static Value load(Type::Kind k, const uint8_t *p) {
    if (k == Type::Kind::F32) {
      float f;
      std::memcpy(&f, p, 4);
      return exact(Real(f));
    }
    if (k == Type::Kind::F64) {
      double d;
      std::memcpy(&d, p, 8);
      return exact(Real(d));
    }
    uint64_t raw = 0;
    std::memcpy(&raw, p, size_t(intarith::width(k) / 8));
    return fromBits(k == Type::Kind::Bool ? uint64_t(raw != 0) : intarith::canonical(k, raw));
  }

  /// Stores the value rounded to the declared type.
  static void store(Type::Kind k, const Value &v, uint8_t *p) {
    if (k == Type::Kind::F32) {
      float f = v.value.convert_to<float>();
      std::memcpy(p, &f, 4);
    } else if (k == Type::Kind::F64) {
      double d = v.value.convert_to<double>();
      std::memcpy(p, &d, 8);
    } else {
      std::memcpy(p, &v.bits, size_t(intarith::width(k) / 8));
    }
  }

  static Value floatConstant(Type::Kind, double d) { return exact(Real(d)); }

  static Value floatArith(hl::BinOp op, Type::Kind k, const Value &a, const Value &b) {
    const double u = unitRoundoff(k);
    Value r;
    switch (op) {
    case hl::BinOp::Add:
    case hl::BinOp::Sub:
      r.value = op == hl::BinOp::Add ? a.value + b.value : a.value - b.value;
      r.mag = a.mag + b.mag;
      r.budget = std::max(a.budget, b.budget) + u;
      return r;
    case hl::BinOp::Mul:
      r.value = a.value * b.value;
      r.mag = a.mag * b.mag;
      r.budget = a.budget + b.budget + u;
      return r;
    case hl::BinOp::Div:
      r.value = a.value / b.value;
      r.mag = a.mag / std::fabs(b.value.convert_to<double>());
      r.budget = a.budget + b.budget + u;
      return r;
    case hl::BinOp::Mod: // fmod is exact; only the operands' errors carry over
      r.value = boost::multiprecision::fmod(a.value, b.value);
      r.mag = a.mag;
      r.budget = a.budget + b.budget;
      return r;
    default: return r;
    }
  }

  static bool floatCompare(hl::BinOp op, Type::Kind, const Value &a, const Value &b) {
    switch (op) {
    case hl::BinOp::Lt: return a.value < b.value;
    case hl::BinOp::Le: return a.value <= b.value;
    case hl::BinOp::Gt: return a.value > b.value;
    case hl::BinOp::Ge: return a.value >= b.value;
    case hl::BinOp::Eq: return a.value == b.value;
    case hl::BinOp::Ne: return !(a.value == b.value);
    default: return false;
    }
  }

  static Value floatNeg(Type::Kind, const Value &a) {
    Value r = a;
    r.value = -a.value;
    return r;
  }

  static bool floatIsNonZero(Type::Kind, const Value &a) { return !(a.value == 0); }

  static Value floatBuiltin(hl::Builtin b, Type::Kind k, const Value *args) {
    namespace mp = boost::multiprecision;
    const Value &x = args[0], &y = args[1], &z = args[2];
    const double allowance = 2 * mathUlps(b, k) * unitRoundoff(k);
    auto through = [&](const Real &result, double condition) {
      Value r = exact(result);
      r.budget = condition * relativeError(x) + allowance;
      return r;
    };
    const double xv = x.value.convert_to<double>();
    switch (b) {
    case hl::Builtin::Abs: {
      Value r = x;
      r.value = mp::abs(x.value);
      return r;
    }
    case hl::Builtin::Min:
    case hl::Builtin::Max: {
      // fmin/fmax: a NaN operand is ignored unless both are NaN.
      if (mp::isnan(x.value)) return y;
      if (mp::isnan(y.value)) return x;
      bool takeX = b == hl::Builtin::Min ? !(y.value < x.value) : !(y.value > x.value);
      return takeX ? x : y;
    }
    case hl::Builtin::Sqrt: return through(mp::sqrt(x.value), 0.5);
    case hl::Builtin::Exp: return through(mp::exp(x.value), std::fabs(xv));
    case hl::Builtin::Exp2: return through(mp::pow(Real(2), x.value), std::fabs(xv * std::log(2.0)));
    case hl::Builtin::Log: return throughLog(mp::log(x.value), 1.0, x, allowance);
    case hl::Builtin::Log2: return throughLog(mp::log(x.value) / mp::log(Real(2)), 1 / std::log(2.0), x, allowance);
    case hl::Builtin::Log10: return throughLog(mp::log10(x.value), 1 / std::log(10.0), x, allowance);
    case hl::Builtin::Sin: return through(mp::sin(x.value), std::fabs(xv * std::cos(xv) / std::sin(xv)));
    case hl::Builtin::Cos: return through(mp::cos(x.value), std::fabs(xv * std::sin(xv) / std::cos(xv)));
    case hl::Builtin::Tan: return through(mp::tan(x.value), std::fabs(xv / (std::sin(xv) * std::cos(xv))));
    case hl::Builtin::Tanh: {
      double t = std::tanh(xv);
      return through(mp::tanh(x.value), std::fabs(xv * (1 - t * t) / t));
    }
    case hl::Builtin::Pow: {
      const double yv = y.value.convert_to<double>();
      Value r = exact(mp::pow(x.value, y.value));
      r.budget = std::fabs(yv) * relativeError(x) + std::fabs(yv * std::log(std::fabs(xv))) * relativeError(y) + allowance;
      return r;
    }
    case hl::Builtin::Floor: return through(mp::floor(x.value), 0);
    case hl::Builtin::Ceil: return through(mp::ceil(x.value), 0);
    case hl::Builtin::Round: return through(mp::round(x.value), 0);
    case hl::Builtin::Trunc: return through(mp::trunc(x.value), 0);
    case hl::Builtin::Fma: {
      Value r;
      r.value = x.value * y.value + z.value;
      r.mag = x.mag * y.mag + z.mag;
      r.budget = std::max(x.budget + y.budget, z.budget) + unitRoundoff(k);
      return r;
    }
    }
    return x;
  }

  static Value toFloat(Type::Kind to, Type::Kind from, const Value &a) {
    if (isFloat(from)) {
      Value r = a;
      if (to == Type::Kind::F32 && from == Type::Kind::F64) r.budget += unitRoundoff(to);
      return r;
    }
    Real v = intarith::isSigned(from) ? Real(int64_t(a.bits)) : Real(a.bits);
    Value r = exact(v);
    bool representable = to == Type::Kind::F32 ? Real(v.convert_to<float>()) == v : Real(v.convert_to<double>()) == v;
    if (!representable) r.budget = unitRoundoff(to);
    return r;
  }

  static uint64_t floatToInt(Type::Kind to, Type::Kind, const Value &a) {
    namespace mp = boost::multiprecision;
    if (mp::isnan(a.value)) return 0;
    const int w = intarith::width(to);
    const bool s = intarith::isSigned(to);
    Real hiExclusive = mp::ldexp(Real(1), w - (s ? 1 : 0));
    Real lo = s ? Real(-hiExclusive) : Real(0);
    if (a.value >= hiExclusive) return intarith::canonical(to, uint64_t((unsigned __int128)intarith::maxOf(to)));
    if (a.value <= lo) return intarith::canonical(to, uint64_t((unsigned __int128)intarith::minOf(to)));
    Real t = mp::trunc(a.value);
    if (s) return intarith::canonical(to, uint64_t(t.convert_to<long long>()));
    return intarith::canonical(to, t.convert_to<unsigned long long>());
  }

  static bool identical(Type::Kind k, const Value &a, const Value &b) {
    if (!isFloat(k)) return a.bits == b.bits;
    if (boost::multiprecision::isnan(a.value)) return boost::multiprecision::isnan(b.value);
    return a.value == b.value;
  }

  static std::string format(Type::Kind k, const Value &v) {
    if (isFloat(k)) return v.value.str(20);
    return intarith::toString(k, v.bits);
  }

  static double toDouble(Type::Kind k, const Value &v) {
    if (isFloat(k)) return v.value.convert_to<double>();
    return intarith::isSigned(k) ? double(int64_t(v.bits)) : double(v.bits);
  }

  /// A logarithm log_b(x): an argument with relative error δ moves the result
  /// by about δ/ln(b) in absolute terms, which no bound relative to the result
  /// can express where the result is 0 (x = 1: the relative condition number
  /// 1/|ln x| is infinite, and the bound was). So the result's Σ|terms| is at
  /// least 1/ln(b), which keeps the bound γ(budget)·mag finite: about
  /// δ/ln(b) + allowance·|log_b x|, the old bound wherever |log_b x| ≥ 1/ln(b).
  static Value throughLog(const Real &result, double perRelativeError, const Value &x, double allowance) {
    Value r = exact(result);
    const double magnitude = r.mag;
    r.mag = std::max(magnitude, perRelativeError);
    r.budget = (perRelativeError * relativeError(x) + allowance * magnitude) / r.mag;
    return r;
  }

  /// First-order relative error of a value: budget·mag/|value| (0 for an exact value).
  static double relativeError(const Value &v) {
    if (v.budget == 0) return 0;
    double av = std::fabs(v.value.convert_to<double>());
    return av == 0 ? std::numeric_limits<double>::infinity() : v.budget * v.mag / av;
  }
};

} // namespace mdh::interp
