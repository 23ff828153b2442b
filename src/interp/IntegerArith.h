/** \file
 * Integer arithmetic of the MDH language on canonical 64-bit values
 * (see Scalar.h): wrap-around modulo 2^n for an n-bit type, signed values
 * computed through their unsigned bits, C semantics for `/` (toward zero)
 * and `%` (sign of the dividend), shift counts taken modulo the width,
 * arithmetic `>>` on signed types.  Every operation also says whether the
 * mathematically exact result fits the type (for --trap-overflow).
 * Division by zero is left to the caller (the interpreter reports it).
 */
#pragma once

#include "sema/Type.h"

#include <cstdint>
#include <string>

namespace mdh::interp::intarith {

struct Result {
  uint64_t bits;
  bool overflow;
};

inline int width(Type::Kind k) { return Type::prim(k).bits(); }
inline bool isSigned(Type::Kind k) { return k >= Type::Kind::I8 && k <= Type::Kind::I64; }

/// Sign- or zero-extends the low `width(k)` bits of `raw`.
inline uint64_t canonical(Type::Kind k, uint64_t raw) {
  if (k == Type::Kind::Bool) return raw & 1;
  int w = width(k);
  if (w >= 64) return raw;
  uint64_t mask = (uint64_t(1) << w) - 1;
  raw &= mask;
  if (isSigned(k) && ((raw >> (w - 1)) & 1)) raw |= ~mask;
  return raw;
}

inline __int128 minOf(Type::Kind k) { return isSigned(k) ? -((__int128)1 << (width(k) - 1)) : 0; }
inline __int128 maxOf(Type::Kind k) {
  return isSigned(k) ? ((__int128)1 << (width(k) - 1)) - 1 : ((__int128)1 << width(k)) - 1;
}

/// The exact value of a canonical integer.
inline __int128 exact(Type::Kind k, uint64_t bits) { return isSigned(k) ? (__int128)(int64_t)bits : (__int128)bits; }

inline Result fromExact(Type::Kind k, __int128 v) {
  return {canonical(k, uint64_t((unsigned __int128)v)), v < minOf(k) || v > maxOf(k)};
}

inline Result add(Type::Kind k, uint64_t a, uint64_t b) { return fromExact(k, exact(k, a) + exact(k, b)); }
inline Result sub(Type::Kind k, uint64_t a, uint64_t b) { return fromExact(k, exact(k, a) - exact(k, b)); }
inline Result neg(Type::Kind k, uint64_t a) { return fromExact(k, -exact(k, a)); }
inline Result abs(Type::Kind k, uint64_t a) {
  __int128 v = exact(k, a);
  return fromExact(k, v < 0 ? -v : v);
}
inline Result mul(Type::Kind k, uint64_t a, uint64_t b) {
  if (isSigned(k)) return fromExact(k, exact(k, a) * exact(k, b));
  unsigned __int128 p = (unsigned __int128)a * b; // both < 2^64: fits
  return {canonical(k, uint64_t(p)), p > (unsigned __int128)maxOf(k)};
}
/// `b` must not be 0.  INT_MIN / -1 wraps to INT_MIN (and overflows).
inline Result div(Type::Kind k, uint64_t a, uint64_t b) { return fromExact(k, exact(k, a) / exact(k, b)); }
/// `b` must not be 0.  INT_MIN % -1 is 0.
inline Result mod(Type::Kind k, uint64_t a, uint64_t b) { return fromExact(k, exact(k, a) % exact(k, b)); }

inline uint64_t shl(Type::Kind k, uint64_t a, uint64_t count) {
  return canonical(k, a << (count % uint64_t(width(k))));
}
inline uint64_t shr(Type::Kind k, uint64_t a, uint64_t count) {
  unsigned s = unsigned(count % uint64_t(width(k)));
  return isSigned(k) ? canonical(k, uint64_t(int64_t(a) >> s)) : (a >> s);
}
inline uint64_t bitNot(Type::Kind k, uint64_t a) { return canonical(k, ~a); }

/// -1, 0, 1 for a < b, a == b, a > b.
inline int compare(Type::Kind k, uint64_t a, uint64_t b) {
  if (isSigned(k)) return int64_t(a) < int64_t(b) ? -1 : int64_t(a) > int64_t(b) ? 1 : 0;
  return a < b ? -1 : a > b ? 1 : 0;
}

inline std::string toString(Type::Kind k, uint64_t bits) {
  if (k == Type::Kind::Bool) return bits ? "true" : "false";
  return isSigned(k) ? std::to_string(int64_t(bits)) : std::to_string(bits);
}

} // namespace mdh::interp::intarith
