/** \file
 * SizePoly arithmetic, substitution, sign reasoning and printing.
 */
#include "sema/SizePoly.h"

#include <algorithm>
#include <fmt/format.h>

namespace mdh {

namespace {
bool mulOverflow(int64_t a, int64_t b, int64_t &r) { return __builtin_mul_overflow(a, b, &r); }
bool addOverflow(int64_t a, int64_t b, int64_t &r) { return __builtin_add_overflow(a, b, &r); }
} // namespace

SizePoly SizePoly::constant(int64_t c) {
  SizePoly p;
  if (c != 0) p.terms_[{}] = c;
  return p;
}

SizePoly SizePoly::param(const std::string &name) {
  SizePoly p;
  p.terms_[{name}] = 1;
  return p;
}

void SizePoly::add(const Monomial &m, int64_t c) {
  int64_t &slot = terms_[m];
  int64_t r;
  if (addOverflow(slot, c, r)) { overflow_ = true; r = c > 0 ? INT64_MAX / 2 : INT64_MIN / 2; }
  slot = r;
  if (slot == 0) terms_.erase(m);
}

SizePoly SizePoly::operator+(const SizePoly &o) const {
  SizePoly r = *this;
  r.overflow_ |= o.overflow_;
  for (const auto &[m, c] : o.terms_) r.add(m, c);
  return r;
}

SizePoly SizePoly::operator-(const SizePoly &o) const {
  SizePoly r = *this;
  r.overflow_ |= o.overflow_;
  for (const auto &[m, c] : o.terms_) {
    if (c == INT64_MIN) { r.overflow_ = true; continue; }
    r.add(m, -c);
  }
  return r;
}

SizePoly SizePoly::operator*(const SizePoly &o) const {
  SizePoly r;
  r.overflow_ = overflow_ || o.overflow_;
  for (const auto &[m1, c1] : terms_)
    for (const auto &[m2, c2] : o.terms_) {
      Monomial m = m1;
      m.insert(m.end(), m2.begin(), m2.end());
      std::sort(m.begin(), m.end());
      if (m.size() > 16) { r.overflow_ = true; continue; }
      int64_t c;
      if (mulOverflow(c1, c2, c)) { r.overflow_ = true; c = INT64_MAX / 2; }
      r.add(m, c);
    }
  return r;
}

bool SizePoly::isConstant() const { return terms_.empty() || (terms_.size() == 1 && terms_.begin()->first.empty()); }

std::optional<int64_t> SizePoly::constantValue() const {
  if (!isConstant() || overflow_) return std::nullopt;
  return terms_.empty() ? 0 : terms_.begin()->second;
}

bool SizePoly::dependsOn(const std::string &p) const {
  for (const auto &[m, c] : terms_)
    if (std::find(m.begin(), m.end(), p) != m.end()) return true;
  return false;
}

std::vector<std::string> SizePoly::params() const {
  std::vector<std::string> out;
  for (const auto &[m, c] : terms_)
    for (const auto &p : m)
      if (std::find(out.begin(), out.end(), p) == out.end()) out.push_back(p);
  return out;
}

std::optional<SizePoly> SizePoly::divExact(int64_t d) const {
  if (d == 0) return std::nullopt;
  SizePoly r;
  r.overflow_ = overflow_;
  for (const auto &[m, c] : terms_) {
    if (c % d != 0) return std::nullopt;
    r.terms_[m] = c / d;
  }
  return r;
}

SizePoly SizePoly::substitute(const std::map<std::string, SizePoly> &values) const {
  SizePoly r;
  r.overflow_ = overflow_;
  for (const auto &[m, c] : terms_) {
    SizePoly term = constant(c);
    for (const auto &p : m) {
      auto it = values.find(p);
      term = term * (it != values.end() ? it->second : param(p));
    }
    r = r + term;
  }
  return r;
}

bool SizePoly::provablyNonNegative() const {
  if (overflow_) return false;
  // Parameters are >= 1: write each as 1 + q with q >= 0; the polynomial in q
  // is non-negative if all its coefficients are.
  std::map<std::string, SizePoly> shift;
  for (const auto &p : params()) shift[p] = constant(1) + param(p);
  SizePoly q = substitute(shift);
  if (q.overflow_) return false;
  for (const auto &[m, c] : q.terms_)
    if (c < 0) return false;
  return true;
}

std::string SizePoly::str() const {
  if (terms_.empty()) return "0";
  std::string out;
  // Higher-degree terms first, constant last: "2*P + R - 1".
  std::vector<std::pair<Monomial, int64_t>> ts(terms_.begin(), terms_.end());
  std::stable_sort(ts.begin(), ts.end(), [](const auto &a, const auto &b) {
    if (a.first.empty() != b.first.empty()) return b.first.empty();
    return a.first < b.first;
  });
  bool first = true;
  for (const auto &[m, c] : ts) {
    int64_t mag = c < 0 ? -c : c;
    std::string body;
    for (const auto &p : m) body += (body.empty() ? "" : "*") + p;
    std::string term = m.empty() ? std::to_string(mag) : (mag == 1 ? body : fmt::format("{}*{}", mag, body));
    if (first) out = (c < 0 ? "-" : "") + term;
    else out += (c < 0 ? " - " : " + ") + term;
    first = false;
  }
  return out;
}

} // namespace mdh
