/** \file
 * Index functions: affine analysis, derived buffer shapes (the input and
 * output view definitions: N = 1 + max of the index functions' range) and the
 * injectivity check of output views.
 *
 * Everything here works on SizePolys, so it serves both generic checking
 * (shapes like `2*P + R - 1`) and concrete instantiation.
 */
#include "sema/SemaImpl.h"

#include "hl/Injectivity.h"
#include "sema/BufferBytes.h"

#include <fmt/format.h>

#include <numeric>

namespace mdh {

std::optional<Sema::Impl::AffineValue> Sema::Impl::affine(const ast::Expr &e, const std::vector<std::string> &vars,
                                                           const Env &env) {
  const size_t D = vars.size();
  auto zero = [&] {
    AffineValue v;
    v.coeffs.assign(D, SizePoly());
    return v;
  };
  auto isConst = [](const AffineValue &v) {
    for (const auto &c : v.coeffs)
      if (c != SizePoly()) return false;
    return true;
  };
  // SizePoly saturates: report the overflow here, or a later check (E0404's
  // sign, an extent) would show the saturated value as if the user wrote it.
  auto overflows = [&](const AffineValue &v) {
    bool over = v.offset.overflowed();
    for (const auto &c : v.coeffs) over = over || c.overflowed();
    if (over) error("E0409", e.range, "index function overflows 64 bits", "use smaller coefficients, offsets or sizes");
    return over;
  };
  using K = ast::Expr::Kind;
  switch (e.kind) {
  case K::Error: return std::nullopt;
  case K::Int: {
    if (e.intOverflow) return std::nullopt; // E0007 reported by the parser
    if (e.intValue > (uint64_t(1) << 62)) {
      error("E0409", e.range, "constant in index function is too large",
            "index functions compute in 64-bit integers: a constant may be at most 2^62 (4611686018427387904)");
      return std::nullopt;
    }
    auto v = zero();
    v.offset = SizePoly::constant(int64_t(e.intValue));
    return v;
  }
  case K::Name: {
    for (size_t d = 0; d < D; ++d)
      if (vars[d] == e.name.name) {
        auto v = zero();
        v.coeffs[d] = SizePoly::constant(1);
        return v;
      }
    if (auto it = env.sizes.find(e.name.name); it != env.sizes.end()) {
      auto v = zero();
      v.offset = it->second;
      return v;
    }
    std::vector<std::string> cands = vars;
    for (const auto &[k, s] : env.sizes) cands.push_back(k);
    error("E0407", e.range, fmt::format("unknown name `{}` in index function", e.name.name),
          cands.empty() ? "index functions use their index variables and size parameters"
                        : didYouMean(e.name.name, cands).empty()
                              ? fmt::format("index functions can use {}", fmt::join(cands, ", "))
                              : didYouMean(e.name.name, cands));
    return std::nullopt;
  }
  case K::Unary:
    if (e.unaryOp == ast::UnaryOp::Neg) {
      auto a = affine(*e.operands[0], vars, env);
      if (!a) return std::nullopt;
      for (auto &c : a->coeffs) c = -c;
      a->offset = -a->offset;
      return a;
    }
    break;
  case K::Binary: {
    auto op = e.binaryOp;
    if (op != ast::BinaryOp::Add && op != ast::BinaryOp::Sub && op != ast::BinaryOp::Mul) break;
    auto a = affine(*e.operands[0], vars, env);
    auto b = affine(*e.operands[1], vars, env);
    if (!a || !b) return std::nullopt;
    if (op == ast::BinaryOp::Mul) {
      if (!isConst(*a) && !isConst(*b)) {
        error("E0408", e.range, "index function is not affine: it multiplies index variables",
              "index functions are sums of constant multiples of the indices plus a constant, e.g. `2*p + r`");
        return std::nullopt;
      }
      const AffineValue &k = isConst(*a) ? *a : *b;
      AffineValue v = isConst(*a) ? *b : *a;
      for (auto &c : v.coeffs) c = c * k.offset;
      v.offset = v.offset * k.offset;
      if (overflows(v)) return std::nullopt;
      return v;
    }
    AffineValue v = zero();
    for (size_t d = 0; d < D; ++d) v.coeffs[d] = op == ast::BinaryOp::Add ? a->coeffs[d] + b->coeffs[d] : a->coeffs[d] - b->coeffs[d];
    v.offset = op == ast::BinaryOp::Add ? a->offset + b->offset : a->offset - b->offset;
    if (overflows(v)) return std::nullopt;
    return v;
  }
  default: break;
  }
  const char *what = e.kind == K::Binary ? ast::spelling(e.binaryOp) : nullptr;
  error("E0409", e.range,
        what ? fmt::format("`{}` is not allowed in an index function", what) : std::string("index functions must be affine"),
        "index functions are sums of constant multiples of the indices plus a constant, e.g. `(p, q, r) -> (2*p + r, q)`");
  return std::nullopt;
}

bool Sema::Impl::buildAccess(const ast::IndexFn &fn, size_t D, const Env &env, hl::Access &out,
                             std::vector<std::string> *dimNames) {
  out.range = fn.range;
  if (fn.params.size() != D) {
    error("E0410", fn.range, fmt::format("index function takes {} index variable{}, but md_hom has {} dimension{}",
                                         fn.params.size(), fn.params.size() == 1 ? "" : "s", D, D == 1 ? "" : "s"),
          "name one index variable per MDA dimension, in md_hom's order");
    return false;
  }
  std::vector<std::string> vars;
  for (const auto &p : fn.params) {
    if (std::find(vars.begin(), vars.end(), p.name) != vars.end()) {
      error("E0412", p.range, fmt::format("index variable `{}` is named twice", p.name));
      return false;
    }
    if (env.sizes.count(p.name))
      warning("W0404", p.range, fmt::format("index variable `{}` shadows the size `{}`", p.name, p.name));
    vars.push_back(p.name);
  }
  bool ok = true;
  for (const auto &r : fn.results) {
    auto v = affine(*r, vars, env);
    if (!v) { ok = false; continue; }
    hl::AffineIndex ix;
    ix.coeffs = v->coeffs;
    ix.offset = v->offset;
    out.dims.push_back(std::move(ix));
  }
  if (ok && dimNames) *dimNames = vars;
  return ok;
}

void Sema::Impl::deriveShape(hl::Buffer &b, const std::vector<SizePoly> &N, const ast::BufferView &view, const Env &env,
                             bool isOutput) {
  if (b.accesses.empty()) return;
  const size_t rank = b.accesses[0].dims.size();
  std::vector<std::optional<SizePoly>> derived(rank);
  bool ambiguous = false;
  for (const auto &acc : b.accesses) {
    if (acc.dims.size() != rank) return; // reported already
    for (size_t k = 0; k < rank; ++k) {
      const auto &ix = acc.dims[k];
      SizePoly mx = ix.offset, mn = ix.offset;
      bool signKnown = true;
      for (size_t d = 0; d < ix.coeffs.size() && d < N.size(); ++d) {
        const SizePoly &c = ix.coeffs[d];
        if (c == SizePoly()) continue;
        SizePoly span = c * (N[d] - SizePoly::constant(1));
        if (c.provablyNonNegative()) mx = mx + span;
        else if (c.provablyNegative()) mn = mn + span;
        else {
          error("E0404", acc.range, fmt::format("cannot tell the sign of coefficient `{}` in this index function", c.str()),
                "use coefficients that are non-negative for every size");
          signKnown = false;
        }
      }
      if (!signKnown) return;
      if (mn.provablyNegative()) {
        error("E0403", acc.range,
              fmt::format("index {} of `{}` can be negative (its minimum is {})", k + 1, b.name, mn.str()),
              "buffer indices start at 0; shift the index function, e.g. use `i+0, i+1, i+2` instead of `i-1, i, i+1`, "
              "and shrink the MDA instead");
        return;
      }
      if (!mn.provablyNonNegative())
        warning("W0401", acc.range,
                fmt::format("index {} of `{}` may be negative for some sizes (its minimum is {})", k + 1, b.name, mn.str()),
                "it is checked again when the mdh is instantiated");
      if (!derived[k]) { derived[k] = mx; continue; }
      if ((mx - *derived[k]).provablyNonNegative()) derived[k] = mx;
      else if (!(*derived[k] - mx).provablyNonNegative()) ambiguous = true;
    }
  }
  if (view.hasShape) {
    if (view.shape.size() != rank) {
      error("E0405", view.name.range, fmt::format("buffer `{}` is declared with {} dimension{} but accessed with {}", b.name,
                                                  view.shape.size(), view.shape.size() == 1 ? "" : "s", rank));
      return;
    }
    std::vector<SizePoly> declared;
    for (const auto &s : view.shape) {
      auto v = s ? evalSize(*s, env) : std::nullopt;
      if (!v) return;
      declared.push_back(*v);
    }
    for (size_t k = 0; k < rank; ++k) {
      SizePoly want = *derived[k] + SizePoly::constant(1);
      if (!ambiguous && declared[k] != want) {
        std::vector<std::string> d1, d2;
        for (const auto &x : declared) d1.push_back(x.str());
        for (size_t j = 0; j < rank; ++j) d2.push_back((*derived[j] + SizePoly::constant(1)).str());
        error("E0406", view.name.range,
              fmt::format("declared shape [{}] of `{}` does not match the shape [{}] derived from its index functions",
                          fmt::join(d1, ", "), b.name, fmt::join(d2, ", ")),
              "a buffer's shape is 1 + the largest index its accesses reach; fix the declaration or the index functions");
        return;
      }
    }
    b.shape = declared;
    return;
  }
  // Generically, which access reaches furthest may depend on the size parameters
  // (`(i, j) -> (i, j), (i, j) -> (j, i)` reaches max(I, J) - 1): every instance with
  // concrete sizes knows, so only sizes left to run time make it an error.
  const bool genericSizes = std::any_of(env.sizes.begin(), env.sizes.end(), [&](const auto &s) {
    return s.second == SizePoly::param(s.first) && !env.dynamicSizes.count(s.first);
  });
  if (ambiguous && genericSizes) return;
  if (ambiguous) {
    error("E0413", view.name.range,
          fmt::format("cannot tell which access of `{}` reaches furthest, so its shape is not known", b.name),
          fmt::format("declare the shape, e.g. `{}[...]: ...`", b.name));
    return;
  }
  for (size_t k = 0; k < rank; ++k) {
    SizePoly extent = *derived[k] + SizePoly::constant(1);
    if (extent.overflowed()) {
      // Saturated arithmetic would otherwise print and allocate a made-up extent.
      error("E0414", view.name.range,
            fmt::format("the extent of dimension {} of buffer `{}` (1 + the largest index its accesses reach) does not "
                        "fit in 64 bits for these sizes",
                        k + 1, b.name),
            "use smaller sizes or index coefficients");
      return;
    }
    b.shape.push_back(std::move(extent));
  }
  (void)isOutput;
}

void Sema::Impl::checkBufferBytes(const hl::Buffer &b) {
  std::vector<int64_t> shape;
  for (const auto &extent : b.shape) {
    auto v = extent.constantValue();
    if (!v || extent.overflowed()) return; // symbolic: checked per instance, or at run time
    shape.push_back(*v);
  }
  const size_t elemBytes = b.elem.size();
  if (elemBytes == 0 || bufferBytes(shape, elemBytes)) return; // 0: a generic element type
  std::vector<std::string> extents;
  for (int64_t e : shape) extents.push_back(std::to_string(e));
  error("E0415", b.range,
        fmt::format("buffer `{}` of shape [{}] and element type `{}` ({} bytes) takes more than 2^63 - 1 bytes", b.name,
                    fmt::join(extents, ", "), b.elem.str(), elemBytes),
        "use smaller sizes or index coefficients");
}

void Sema::Impl::checkInjective(const hl::Buffer &b, const std::vector<SizePoly> &outSizes,
                                const std::vector<hl::CombineOperator> &ops) {
  std::vector<size_t> live;
  for (size_t d = 0; d < outSizes.size(); ++d)
    if (outSizes[d] != SizePoly::constant(1)) live.push_back(d);
  for (const auto &acc : b.accesses) {
    std::vector<std::vector<__int128>> m;
    bool constant = true;
    for (const auto &ix : acc.dims) {
      std::vector<__int128> row;
      for (size_t d : live) {
        auto c = ix.coeffs[d].constantValue();
        if (!c) constant = false;
        row.push_back(c.value_or(0));
      }
      m.push_back(row);
    }
    if (!constant || live.empty()) continue;
    if (!hl::provablyInjective(b, acc, outSizes)) {
      // Name the operator of a dimension the output ignores, when there is one.
      std::string instead;
      for (size_t k = 0; k < live.size() && instead.empty(); ++k) {
        bool ignored = true;
        for (const auto &row : m) ignored &= row[k] == 0;
        if (!ignored || live[k] >= ops.size()) continue;
        const auto &c = ops[live[k]];
        std::string spelt = c.kind == hl::CombineOperator::Kind::PointWise ? std::string() : c.str();
        if (!spelt.empty()) instead = fmt::format("dimension {} point-wise, e.g. `pw(add)` instead of `{}`", live[k] + 1, spelt);
      }
      warning("W0402", acc.range,
              fmt::format("output index function of `{}` is not injective: several MDA elements write the same cell", b.name),
              "those writes must carry equal values (checked at run time); to sum them, make " +
                  (instead.empty() ? std::string("the dimension point-wise, e.g. `pw(add)`") : instead));
    }
  }
  // Two accesses cannot meet where one index of the buffer can never take the
  // same value in both: with x_k = a·i + c1 and y_k = b·j + c2 (constant
  // coefficients, i and j any iteration points), x_k = y_k has an integer
  // solution only if gcd(a, b) divides c2 − c1. This covers a different
  // constant in each (`(i) -> (0, i)` and `(i) -> (1, i)`: gcd 0) and even and
  // odd cells (`(i) -> (2*i)` and `(i) -> (2*i+1)`: gcd 2). Dimensions of size 1
  // only take index 0 and do not count.
  auto disjoint = [&](const hl::Access &x, const hl::Access &y) {
    for (size_t k = 0; k < x.dims.size() && k < y.dims.size(); ++k) {
      int64_t divisor = 0;
      bool constantCoefficients = true;
      for (size_t d = 0; d < outSizes.size() && constantCoefficients; ++d) {
        if (outSizes[d] == SizePoly::constant(1)) continue;
        for (const auto *ix : {&x.dims[k], &y.dims[k]}) {
          const auto c = d < ix->coeffs.size() ? ix->coeffs[d].constantValue() : std::optional<int64_t>(0);
          if (!c) constantCoefficients = false;
          else divisor = std::gcd(divisor, *c < 0 ? -*c : *c);
        }
      }
      const auto ox = x.dims[k].offset.constantValue(), oy = y.dims[k].offset.constantValue();
      if (!constantCoefficients || !ox || !oy) continue;
      const int64_t difference = *oy - *ox;
      if (divisor == 0 ? difference != 0 : difference % divisor != 0) return true;
    }
    return false;
  };
  bool mayOverlap = false;
  for (size_t i = 0; i < b.accesses.size(); ++i)
    for (size_t j = i + 1; j < b.accesses.size(); ++j) mayOverlap = mayOverlap || !disjoint(b.accesses[i], b.accesses[j]);
  if (mayOverlap)
    warning("W0403", b.range, fmt::format("output buffer `{}` is written by {} accesses", b.name, b.accesses.size()),
            "cells written by more than one access must receive equal values (checked at run time)");
}

} // namespace mdh
