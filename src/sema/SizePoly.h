/** \file
 * Symbolic sizes: polynomials with integer coefficients over size parameters.
 *
 * Buffer shapes are derived from index functions before instantiation, so
 * they are polynomials in the size meta-parameters (`I+2`, `2*(P-1)+R`,
 * `S*P`).  Invariants: terms are kept canonical (monomials are sorted
 * multisets of parameter names, no zero coefficients), so structural equality
 * is semantic equality; arithmetic saturates instead of overflowing (an
 * overflowed polynomial is flagged and reported by the caller).
 */
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace mdh {

class SizePoly {
public:
  using Monomial = std::vector<std::string>; ///< sorted parameter names, with repetition

  SizePoly() = default;
  static SizePoly constant(int64_t c);
  static SizePoly param(const std::string &name);

  SizePoly operator+(const SizePoly &o) const;
  SizePoly operator-(const SizePoly &o) const;
  SizePoly operator*(const SizePoly &o) const;
  SizePoly operator-() const { return constant(0) - *this; }
  bool operator==(const SizePoly &o) const { return terms_ == o.terms_ && overflow_ == o.overflow_; }
  bool operator!=(const SizePoly &o) const { return !(*this == o); }

  bool isConstant() const;
  std::optional<int64_t> constantValue() const;
  bool overflowed() const { return overflow_; }
  bool dependsOn(const std::string &param) const;
  std::vector<std::string> params() const;

  /// Exact division by a constant, or nullopt when a coefficient is not divisible.
  std::optional<SizePoly> divExact(int64_t d) const;

  /// Replaces parameters by polynomials (missing ones stay symbolic).
  SizePoly substitute(const std::map<std::string, SizePoly> &values) const;

  /// True when the value is >= 0 for every assignment of parameters >= 1.
  bool provablyNonNegative() const;
  /// True when the value is < 0 for every assignment of parameters >= 1.
  bool provablyNegative() const { return (-*this - constant(1)).provablyNonNegative(); }

  std::string str() const;
  const std::map<Monomial, int64_t> &terms() const { return terms_; }

private:
  std::map<Monomial, int64_t> terms_;
  bool overflow_ = false;
  void add(const Monomial &m, int64_t c);
};

} // namespace mdh
