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
 *   abs     an absolute error bound that no relative one expresses: what min,
 *           max, math functions, a divisor's error and f32 underflow add,
 *           carried through + − × ÷ as absolute errors are.
 *
 * Then |computed − value| ≤ γ(budget)·mag + abs with γ(b) = b/(1−b), Higham's
 * γ_k = k·u/(1−k·u), for every evaluation order of + and *: the canonical left
 * fold has the longest chain a reordered or tree-shaped sum can have.  Math
 * functions add their documented ulp allowance (mathUlps) and move the
 * result by at most what the argument's absolute error can (the ends of its
 * interval for monotone functions, a derivative and curvature bound for the
 * others), in `abs`; min/max add the other operand's larger error, a
 * division takes the divisor's error relative to its value.  An operation
 * whose result the errors could move without limit (a divisor, base or f32
 * overflow the errors may reach) has an infinite bound: any value passes.
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
  double abs = 0;     ///< float leaves: an absolute error on top of γ(budget)·mag (see below)
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
      // (a + δa + αa) ± (b + δb + αb), rounded: the δ parts as Higham's sum, the α parts add.
      r.value = op == hl::BinOp::Add ? a.value + b.value : a.value - b.value;
      r.mag = a.mag + b.mag;
      r.budget = std::max(a.budget, b.budget) + u;
      r.abs = (a.abs + b.abs) * (1 + u);
      return r;
    case hl::BinOp::Mul:
      // (a + δa + αa)(b + δb + αb): the δ parts as Higham's product, and each α times the
      // other operand's largest magnitude (|b + δb| ≤ mag_b·(1 + γ_b)).
      r.value = a.value * b.value;
      r.mag = a.mag * b.mag;
      r.budget = a.budget + b.budget + u;
      if (a.abs > 0 || b.abs > 0)
        r.abs = (a.abs * (b.mag * (1 + gamma(b.budget)) + b.abs) + b.abs * a.mag * (1 + gamma(a.budget))) * (1 + u);
      return r;
    case hl::BinOp::Div: {
      // cb = b(1 + θ) with |θ| ≤ ρ, the divisor's whole error relative to its value (with
      // cancellation in the divisor, a relative error of its Σ|terms| bounded
      // 1/((x+y)-x-y+1.5) by 2e-7 where f32 computes 2 and the reference is 0.667):
      // (a + δa)/cb is within γ(budget_a + ρ + u)·mag_a/|b| (Higham's rule for (1+θ)
      // factors), αa/cb within |αa|/(|b|(1 − ρ)).
      r.value = a.value / b.value;
      const double bv = std::fabs(b.value.convert_to<double>()), eb = absoluteError(b);
      if (bv == 0) return withInfiniteBound(r); // ±inf or NaN: accepts() judges those by value
      if (eb == 0) {
        r.mag = a.mag / bv;
        r.budget = a.budget + u;
        r.abs = a.abs / bv * (1 + u);
        return r;
      }
      const double rho = bv > 0 ? eb / bv : kInf;
      if (!(rho < 1)) return withInfiniteBound(r); // the divisor's errors may bring it to 0
      r.mag = a.mag / bv;
      r.budget = a.budget + rho + u;
      r.abs = a.abs / (bv * (1 - rho)) * (1 + u);
      return r;
    }
    case hl::BinOp::Mod: {
      // fmod is exact, but not continuous: an operand's error can move the result across a
      // multiple of the divisor, a jump of up to |b|.
      r = exact(boost::multiprecision::fmod(a.value, b.value));
      const double ea = absoluteError(a), eb = absoluteError(b);
      if (ea > 0 || eb > 0) r.abs = ea + 2 * (std::fabs(b.value.convert_to<double>()) + eb);
      if (std::isnan(r.abs)) r = withInfiniteBound(r);
      return r;
    }
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
    const double xv = x.value.convert_to<double>(), ex = absoluteError(x);
    // The result moved by the argument's error `moved` (absolute; 0 for an exact argument),
    // plus the function's own ulps on the computed result.  Absolute, not relative to the
    // result: at a result of 0 (exp(x − x) of a softmax, tanh(0), floor(x − x)) a relative
    // error is 0/0, and the NaN made the bound infinite, so that any value passed.
    auto through = [&](const Real &result, double moved) {
      Value r = exact(result);
      r.budget = allowance; // the function's own ulps, relative to its result
      if (ex > 0) r.abs = moved * (1 + 1e-9) * (1 + allowance);
      if (std::isnan(r.abs) || std::isinf(r.abs)) r = withInfiniteBound(r);
      return r;
    };
    if (b == hl::Builtin::Abs) {
      Value r = x;
      r.value = mp::abs(x.value);
      return r;
    }
    if (b == hl::Builtin::Min || b == hl::Builtin::Max) {
      // fmin/fmax: a NaN operand is ignored unless both are NaN; -0 < +0 (docs/language.md
      // §8.6), as in the native domain.
      if (mp::isnan(x.value)) return y;
      if (mp::isnan(y.value)) return x;
      const bool isMin = b == hl::Builtin::Min;
      bool takeX = isMin ? !(y.value < x.value) : !(y.value > x.value);
      if (x.value == 0 && y.value == 0) takeX = isMin ? (mp::signbit(x.value) || !mp::signbit(y.value))
                                                      : (!mp::signbit(x.value) || mp::signbit(y.value));
      // The computed operands may order the other way: |min(ca, cb) − min(a, b)| is at most
      // the larger of their errors (max(0, s) after a reordered sum s took the bound of 0).
      const Value &taken = takeX ? x : y, &other = takeX ? y : x;
      Value r = taken;
      r.abs += std::max(0.0, absoluteError(other) - absoluteError(taken));
      return r;
    }
    // Monotone functions: the extremes of the interval [x − ex, x + ex] bound the move exactly.
    const double lo = xv - ex, hi = xv + ex;
    auto monotone = [&](double (*f)(double)) {
      const double fx = f(xv), m = std::max(std::fabs(f(lo) - fx), std::fabs(f(hi) - fx));
      return std::isnan(m) ? kInf : m;
    };
    // |f(x + e) − f(x)| ≤ |f'(x)|·|e| + c·e²/2 where |f''| ≤ c; the interval's extremes cover
    // large errors, the derivative small ones that double arithmetic would round away.
    auto smooth = [&](double slope, double curvature, double (*f)(double)) {
      return ex == 0 ? 0.0 : std::max(slope * ex + curvature * ex * ex / 2, monotone(f));
    };
    switch (b) {
    case hl::Builtin::Sqrt: return through(mp::sqrt(x.value), lo < 0 && ex > 0 ? kInf : monotone(std::sqrt) + (xv > 0 ? 0.5 / std::sqrt(lo > 0 ? lo : xv) : 0) * ex);
    case hl::Builtin::Exp: return through(mp::exp(x.value), smooth(std::exp(hi), 0, std::exp));
    case hl::Builtin::Exp2: return through(mp::pow(Real(2), x.value), smooth(std::log(2.0) * std::exp2(hi), 0, std::exp2));
    case hl::Builtin::Log: return through(mp::log(x.value), lo <= 0 && ex > 0 ? kInf : smooth(1 / lo, 0, std::log));
    case hl::Builtin::Log2: return through(mp::log(x.value) / mp::log(Real(2)), lo <= 0 && ex > 0 ? kInf : smooth(1 / (lo * std::log(2.0)), 0, std::log2));
    case hl::Builtin::Log10: return through(mp::log10(x.value), lo <= 0 && ex > 0 ? kInf : smooth(1 / (lo * std::log(10.0)), 0, std::log10));
    case hl::Builtin::Sin: return through(mp::sin(x.value), std::min(2.0, std::fabs(std::cos(xv)) * ex + ex * ex / 2));
    case hl::Builtin::Cos: return through(mp::cos(x.value), std::min(2.0, std::fabs(std::sin(xv)) * ex + ex * ex / 2));
    case hl::Builtin::Tan: {
      // sec² is convex between the poles: its largest value on the interval is at an end.
      const bool pole = ex >= 1 || std::signbit(std::cos(lo)) != std::signbit(std::cos(xv)) ||
                        std::signbit(std::cos(hi)) != std::signbit(std::cos(xv));
      const double sec2 = std::max(1 / (std::cos(lo) * std::cos(lo)), 1 / (std::cos(hi) * std::cos(hi)));
      return through(mp::tan(x.value), ex == 0 ? 0 : pole ? kInf : sec2 * ex);
    }
    case hl::Builtin::Tanh: {
      const double t = std::tanh(xv);
      return through(mp::tanh(x.value), std::min(2.0, (1 - t * t) * ex + 0.77 * ex * ex / 2));
    }
    case hl::Builtin::Pow: {
      const double yv = y.value.convert_to<double>(), ey = absoluteError(y);
      const Real result = mp::pow(x.value, y.value);
      Value r = exact(result);
      r.budget = allowance;
      if (ex == 0 && ey == 0) return r;
      if (!(xv - ex > 0)) return withInfiniteBound(r); // a base that may reach 0 or below
      // x^y = e^(y ln x): first order in each argument at the interval's worst corner, and the
      // corners themselves (pow is monotone in each argument for a positive base).
      double moved = 0;
      for (double cx : {xv - ex, xv + ex})
        for (double cy : {yv - ey, yv + ey}) {
          const double c = std::pow(cx, cy);
          moved = std::max({moved, std::fabs(c - std::pow(xv, yv)),
                            std::fabs(cy * std::pow(cx, cy - 1)) * ex + std::fabs(std::log(cx) * c) * ey});
        }
      r.abs = moved * (1 + 1e-9) * (1 + allowance);
      if (std::isnan(r.abs) || std::isinf(r.abs)) r = withInfiniteBound(r);
      return r;
    }
    case hl::Builtin::Floor:
    case hl::Builtin::Ceil:
    case hl::Builtin::Round:
    case hl::Builtin::Trunc: {
      // Steps: the interval's ends (in full precision: an error far below an ulp of x may
      // still cross an integer) bound the move.
      auto step = [&](const Real &v) -> Real {
        return b == hl::Builtin::Floor ? mp::floor(v) : b == hl::Builtin::Ceil ? mp::ceil(v) : b == hl::Builtin::Round ? mp::round(v) : mp::trunc(v);
      };
      const Real fx = step(x.value);
      if (ex == 0) return exact(fx);
      if (std::isinf(ex)) return withInfiniteBound(exact(fx));
      const Real e = Real(ex);
      Value r = exact(fx);
      r.abs = std::max(mp::abs(step(x.value - e) - fx), mp::abs(step(x.value + e) - fx)).convert_to<double>();
      return r;
    }
    case hl::Builtin::Fma: {
      Value r;
      r.value = x.value * y.value + z.value;
      r.mag = x.mag * y.mag + z.mag;
      r.budget = std::max(x.budget + y.budget, z.budget) + unitRoundoff(k);
      r.abs = ((x.abs > 0 || y.abs > 0 ? x.abs * (y.mag * (1 + gamma(y.budget)) + y.abs) + y.abs * x.mag * (1 + gamma(x.budget)) : 0) +
               z.abs) * (1 + unitRoundoff(k));
      return r;
    }
    case hl::Builtin::Abs:
    case hl::Builtin::Min:
    case hl::Builtin::Max: break; // above
    }
    return x;
  }

  static Value toFloat(Type::Kind to, Type::Kind from, const Value &a) {
    if (isFloat(from)) {
      if (!(to == Type::Kind::F32 && from == Type::Kind::F64)) return a;
      // f64 -> f32 rounds, and overflows or underflows at f32's range, not f64's: (x as f32)
      // as f64 of 1e40 is inf, of 1e-46 is 0.
      namespace mp = boost::multiprecision;
      const double v = std::fabs(a.value.convert_to<double>()), e = absoluteError(a);
      const double overflow = double(std::numeric_limits<float>::max()) * (1 + std::ldexp(1.0, -25)); // rounds to inf from here
      if (v - e >= overflow) return exact(mp::signbit(a.value) ? Real(-kInf) : Real(kInf));
      if (v + e >= overflow) return withInfiniteBound(a);
      Value r = a;
      r.budget += unitRoundoff(to);
      r.abs = a.abs * (1 + unitRoundoff(to)) + std::ldexp(1.0, -150); // and f32's underflow
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

  static constexpr double kInf = std::numeric_limits<double>::infinity();

  static double gamma(double budget) { return budget == 0 ? 0 : budget < 1 ? budget / (1 - budget) : kInf; }

  /// The bound γ(budget)·mag + abs on |computed − value| (infinite from a budget of 1 on).
  static double absoluteError(const Value &v) {
    const double e = (v.budget == 0 ? 0.0 : gamma(v.budget) * v.mag) + v.abs;
    return std::isnan(e) ? kInf : e;
  }

  /// `r` with an infinite error bound: the errors could move it anywhere.
  static Value withInfiniteBound(Value r) {
    r.abs = kInf;
    r.mag = kInf; // printed as Σ|terms| inf: nothing about the terms bounds it
    return r;
  }
};

} // namespace mdh::interp
