/** \file
 * The native representation of one primitive value: 64 bits that hold an
 * integer, a bool, an f32 or an f64, tagged by the static type the program
 * gives it (never by the value itself).
 *
 * Invariants: integers are kept canonical — sign-extended from their width
 * for signed types, zero-extended for unsigned ones — so comparisons and
 * shifts can work on the 64-bit value; bool is 0 or 1; an f32 lives in
 * `f32` and is computed in binary32, never widened.
 */
#pragma once

#include <cstdint>

namespace mdh::interp {

union Scalar {
  uint64_t bits;
  double f64;
  float f32;
};

inline Scalar scalarFromBits(uint64_t b) {
  Scalar s;
  s.bits = b;
  return s;
}

} // namespace mdh::interp
