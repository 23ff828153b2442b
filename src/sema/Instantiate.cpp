/** \file
 * Instantiation of `mdh` declarations into hl::Program, with the static rules
 * of the paper's high-level representation: arity of f against the views,
 * element types, combine operators against Lemma 10, derived buffer shapes.
 *
 * The same code checks a declaration generically (types and sizes symbolic)
 * and instantiates it for an entry point (concrete values): the rules are
 * written once.
 */
#include "sema/SemaImpl.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <limits>

namespace mdh {
namespace {

const std::set<std::string> kBuiltinOps = {"add", "mul", "max", "min", "and", "or", "xor"};

std::optional<hl::BuiltinOp> builtinOpByName(const std::string &n) {
  if (n == "add" || n == "+") return hl::BuiltinOp::Add;
  if (n == "mul" || n == "*") return hl::BuiltinOp::Mul;
  if (n == "max") return hl::BuiltinOp::Max;
  if (n == "min") return hl::BuiltinOp::Min;
  if (n == "and" || n == "&" || n == "&&") return hl::BuiltinOp::And;
  if (n == "or" || n == "|" || n == "||") return hl::BuiltinOp::Or;
  if (n == "xor" || n == "^") return hl::BuiltinOp::Xor;
  return std::nullopt;
}

bool builtinApplies(hl::BuiltinOp op, const Type &t) {
  if (t.isParam()) return true;
  switch (op) {
  case hl::BuiltinOp::Add: case hl::BuiltinOp::Mul: case hl::BuiltinOp::Max: case hl::BuiltinOp::Min: return t.isNumeric();
  case hl::BuiltinOp::And: case hl::BuiltinOp::Or: case hl::BuiltinOp::Xor: return t.isInteger() || t.kind == Type::Kind::Bool;
  }
  return false;
}

/// A builtin op on a tuple applies component-wise.
std::optional<hl::BinaryOperator> liftBuiltin(hl::BuiltinOp op, const Type &t) {
  hl::BinaryOperator b;
  b.type = t;
  if (t.kind == Type::Kind::Tuple) {
    b.kind = hl::BinaryOperator::Kind::Tuple;
    for (const auto &e : t.elems) {
      auto sub = liftBuiltin(op, e);
      if (!sub) return std::nullopt;
      b.elems.push_back(*sub);
    }
    return b;
  }
  if (!builtinApplies(op, t)) return std::nullopt;
  b.kind = hl::BinaryOperator::Kind::Builtin;
  b.builtin = op;
  return b;
}

} // namespace

void Sema::Impl::reportBadOpName(const ast::OpRef &r) {
  // Also called by checkAll for combine declarations: the same range and message
  // make the use in an mdh a duplicate that is not reported again.
  const std::string &n = r.name.name;
  if (r.name.empty() || rejectedNames.count(n)) return;
  auto it = scope.find(n);
  if (it != scope.end()) {
    error("E0503", r.name.range, fmt::format("`{}` is not a function", n),
          fmt::format("`{}` is a {}; name a function of two arguments", n, declKindName(it->second->kind)));
    return;
  }
  std::vector<std::string> cands(kBuiltinOps.begin(), kBuiltinOps.end());
  for (const auto &f : namesOfKind(ast::Decl::Kind::Fn)) cands.push_back(f);
  std::string hint = didYouMean(n, cands);
  error("E0301", r.name.range, fmt::format("unknown binary operator `{}`", n),
        hint.empty() ? "use a built-in (add, mul, max, min, and, or, xor) or a function of two arguments" : hint);
}

namespace {
/// E0502's hint: the user operation that replaces a built-in on `t`, in the wrapper it was
/// written in (a scan needs only associativity, a point-wise combination also commutativity).
std::string userOperatorHint(const Type &t, bool prefixSum) {
  std::string decl = fmt::format("{0} fn op(a: {1}, b: {1}) -> {1}", prefixSum ? "@assoc" : "@assoc @comm", t.str());
  std::string use = prefixSum ? "ps(op)" : "pw(op)";
  if (t.kind == Type::Kind::Record) return fmt::format("declare `{}` and use `{}`", decl, use);
  return fmt::format("docs/language.md §9.1 lists the types each built-in operator takes; for `{}` declare `{}` and "
                     "use `{}`",
                     t.str(), decl, use);
}
} // namespace

std::optional<hl::BinaryOperator> Sema::Impl::resolveOpRef(const ast::OpRef &r, const Type &t, hl::Program &prog,
                                                            const Env &env, const Env *combineEnv, bool prefixSum) {
  switch (r.kind) {
  case ast::OpRef::Kind::Error: return std::nullopt;
  case ast::OpRef::Kind::Tuple: {
    if (t.kind != Type::Kind::Tuple || t.elems.size() != r.elems.size()) {
      if (!t.isError())
        error("E0501", r.range, fmt::format("a tuple of {} operators needs a tuple output of {} components, but the output is `{}`",
                                            r.elems.size(), r.elems.size(), t.str()),
              "give one operator, or make the scalar function return a tuple");
      return std::nullopt;
    }
    hl::BinaryOperator b;
    b.kind = hl::BinaryOperator::Kind::Tuple;
    b.type = t;
    for (size_t i = 0; i < r.elems.size(); ++i) {
      auto sub = resolveOpRef(r.elems[i], t.elems[i], prog, env, combineEnv, prefixSum);
      if (!sub) return std::nullopt;
      b.elems.push_back(*sub);
    }
    return b;
  }
  case ast::OpRef::Kind::Symbol:
  case ast::OpRef::Kind::Named: {
    std::string n = r.kind == ast::OpRef::Kind::Symbol ? r.symbol : r.name.name;
    auto userIt = scope.find(n);
    const ast::FnDecl *user = userIt != scope.end() ? userIt->second->as<ast::FnDecl>() : nullptr;
    if (auto bop = builtinOpByName(n); bop && (r.kind == ast::OpRef::Kind::Symbol || kBuiltinOps.count(n))) {
      if (auto b = liftBuiltin(*bop, t)) return b;
      if (!user) {
        if (!t.isError())
          error("E0502", r.range, fmt::format("built-in operator `{}` is not defined on `{}`", n, t.str()),
                userOperatorHint(t, prefixSum));
        return std::nullopt;
      }
    }
    if (!user) {
      reportBadOpName(r);
      return std::nullopt;
    }
    if (user->params.size() != 2) {
      error("E0504", r.range, fmt::format("`{}` takes {} parameters; a combine operator needs a binary function", n, user->params.size()),
            "declare it as `fn op(a: T, b: T) -> T`");
      note(user->name.range, "declared here");
      return std::nullopt;
    }
    if (t.isError()) return std::nullopt;
    // Meta-arguments naming an unbound parameter of the enclosing combine
    // declaration are deduced from the element type instead.
    bool explicitArgs = r.hasMetaArgs;
    if (explicitArgs && combineEnv)
      for (const auto &a : r.metaArgs)
        if (a.kind == ast::MetaArg::Kind::Type && a.type.kind == ast::TypeRef::Kind::Named &&
            !env.types.count(a.type.name.name) && combineEnv->types.count(a.type.name.name))
          explicitArgs = false;
    std::vector<Type> argTypes = {t, t};
    auto bound = bindFnTypeArgs(*user, explicitArgs, r.metaArgs, &argTypes, env, r.range);
    if (!bound) return std::nullopt;
    const hl::ScalarFunction *f = instantiateFn(*user, *bound, prog, r.range);
    if (!f) return std::nullopt;
    if (f->result != t) {
      error("E0505", r.range, fmt::format("combine operator `{}` returns `{}`, but it must return the element type `{}`", n,
                                          f->result.str(), t.str()));
      note(user->name.range, "declared here");
      return std::nullopt;
    }
    hl::BinaryOperator b;
    b.kind = hl::BinaryOperator::Kind::User;
    b.user = f;
    b.type = t;
    return b;
  }
  }
  return std::nullopt;
}

std::optional<hl::CombineOperator> Sema::Impl::resolveCombineOp(const ast::CombineOp &op, const Type &t,
                                                                hl::Program &prog, const Env &env) {
  hl::CombineOperator c;
  switch (op.kind) {
  case ast::CombineOp::Kind::Error: return std::nullopt;
  case ast::CombineOp::Kind::Concat: c.kind = hl::CombineOperator::Kind::Concat; return c;
  case ast::CombineOp::Kind::PointWise:
  case ast::CombineOp::Kind::PrefixSum: {
    c.kind = op.kind == ast::CombineOp::Kind::PointWise ? hl::CombineOperator::Kind::PointWise
                                                        : hl::CombineOperator::Kind::PrefixSum;
    auto b = resolveOpRef(op.op, t, prog, env, nullptr, op.kind == ast::CombineOp::Kind::PrefixSum);
    if (!b) return std::nullopt;
    c.op = *b;
    return c;
  }
  case ast::CombineOp::Kind::Named: {
    auto it = scope.find(op.name.name);
    const ast::CombineDecl *cd = it != scope.end() ? it->second->as<ast::CombineDecl>() : nullptr;
    if (!cd) {
      if (auto b = builtinOpByName(op.name.name); b && kBuiltinOps.count(op.name.name)) {
        // `max` alone in a combine position means pw(max), like the paper's `+`.
        ast::CombineOp pw;
        pw.kind = ast::CombineOp::Kind::PointWise;
        pw.op.kind = ast::OpRef::Kind::Named;
        pw.op.name = op.name;
        pw.op.range = op.range;
        return resolveCombineOp(pw, t, prog, env);
      }
      if (rejectedNames.count(op.name.name)) return std::nullopt;
      std::vector<std::string> cands = namesOfKind(ast::Decl::Kind::Combine);
      cands.push_back("pw");
      cands.push_back("ps");
      error("E0506", op.range,
            it != scope.end() ? fmt::format("`{}` is not a combine operator", op.name.name)
                              : fmt::format("unknown combine operator `{}`", op.name.name),
            it != scope.end() && it->second->kind == ast::Decl::Kind::Fn
                ? fmt::format("wrap the function: `pw({})` (point-wise) or `ps({})` (prefix sum)", op.name.name, op.name.name)
            : it != scope.end()
                ? didYouMean(op.name.name, cands)
                : withFallback(didYouMean(op.name.name, cands),
                               fmt::format("declare `combine {} = ...;`, import the module that declares it (e.g. "
                                           "`import std;`, which has `sum`, `prod`, `maximum`, `scan_add`, ...), or "
                                           "write the operator itself: `++`, `pw(add)`, `ps(add)`",
                                           op.name.name)));
      return std::nullopt;
    }
    Env inner;
    if (!bindMetaArgs(*cd, op.hasMetaArgs, op.metaArgs, env, inner, op.range)) return std::nullopt;
    Env declParams = genericEnv(*cd);
    if (cd->op.kind == ast::CombineOp::Kind::Named) return std::nullopt; // reported by checkAll
    hl::CombineOperator res;
    res.kind = cd->op.kind == ast::CombineOp::Kind::Concat      ? hl::CombineOperator::Kind::Concat
               : cd->op.kind == ast::CombineOp::Kind::PointWise ? hl::CombineOperator::Kind::PointWise
                                                                 : hl::CombineOperator::Kind::PrefixSum;
    if (res.kind == hl::CombineOperator::Kind::Concat) return res;
    auto b = resolveOpRef(cd->op.op, t, prog, inner, &declParams, cd->op.kind == ast::CombineOp::Kind::PrefixSum);
    if (!b) {
      note(cd->name.range, fmt::format("in combine operator `{}` declared here", cd->name.name));
      return std::nullopt;
    }
    res.op = *b;
    return res;
  }
  }
  return std::nullopt;
}

bool Sema::Impl::bindMetaArgs(const ast::Decl &d, bool hasArgs, const std::vector<ast::MetaArg> &args, const Env &outer,
                              Env &inner, SourceRange use) {
  inner.dynamicSizes = outer.dynamicSizes;
  inner.context = outer.context;
  if (!hasArgs && !d.metaParams.empty()) {
    if (d.kind == ast::Decl::Kind::Combine) return true; // deduced from the element type
    error("E0606", use, fmt::format("`{}` needs {} meta-argument{}", d.name.name, d.metaParams.size(), d.metaParams.size() == 1 ? "" : "s"),
          fmt::format("write `{}<...>`", d.name.name));
    return false;
  }
  if (args.size() != d.metaParams.size()) {
    error("E0607", use, fmt::format("`{}` takes {} meta-argument{}, {} given", d.name.name, d.metaParams.size(),
                                    d.metaParams.size() == 1 ? "" : "s", args.size()));
    note(d.name.range, "declared here");
    return false;
  }
  bool ok = true;
  for (size_t i = 0; i < args.size(); ++i) {
    const auto &p = d.metaParams[i];
    const auto &a = args[i];
    if (p.kind.name == "size") {
      if (a.kind == ast::MetaArg::Kind::Dynamic) {
        std::string dyn = p.name.name;
        inner.sizes[p.name.name] = SizePoly::param(dyn);
        inner.dynamicSizes.insert(dyn);
      } else if (a.kind == ast::MetaArg::Kind::Size && a.size) {
        auto v = evalSize(*a.size, outer);
        if (!v) { ok = false; continue; }
        inner.sizes[p.name.name] = *v;
      } else if (a.kind == ast::MetaArg::Kind::Type && a.type.kind == ast::TypeRef::Kind::Named &&
                 !isTypeName(a.type.name.name, outer)) {
        // A lone name parses as a type; here it is a size name.
        ast::SizeExpr se;
        se.kind = ast::SizeExpr::Kind::Name;
        se.name = a.type.name;
        se.range = a.range;
        auto v = evalSize(se, outer);
        if (!v) { ok = false; continue; }
        inner.sizes[p.name.name] = *v;
      } else {
        error("E0608", a.range, fmt::format("meta-parameter `{}` of `{}` is a size, but a type was given", p.name.name, d.name.name),
              "give a size: a number, a size meta-parameter, an expression of them, or `*` for a run-time size");
        ok = false;
      }
    } else {
      if (a.kind != ast::MetaArg::Kind::Type) {
        error("E0609", a.range, fmt::format("meta-parameter `{}` of `{}` is a type, but a size was given", p.name.name, d.name.name));
        ok = false;
        continue;
      }
      Type t = resolveType(a.type, outer);
      if (t.isError()) { ok = false; continue; }
      inner.types[p.name.name] = t;
    }
  }
  return ok;
}

namespace {

/// A size in an instance name: its value, `dyn` for a run-time size (`*`), or
/// the size expression of a symbolic one spelt as an identifier (`N`, `2xN_p1`).
std::string sizeNamePart(const SizePoly &v, const Env &env) {
  if (auto c = v.constantValue()) return std::to_string(*c);
  for (const auto &p : v.params())
    if (env.dynamicSizes.count(p)) return "dyn";
  std::string out;
  for (char ch : v.str()) {
    if (std::isalnum(static_cast<unsigned char>(ch)) || ch == '_') out += ch;
    else if (ch == '*') out += 'x';
    else if (ch == '+') out += "_p";
    else if (ch == '-') out += "_m";
  }
  return out.empty() ? "dyn" : out;
}

/// The three stages of an mdh after following view references.
struct ResolvedStages {
  const ast::Stage *out = nullptr, *hom = nullptr, *inp = nullptr;
  Env outEnv, inpEnv; ///< environments of referenced view declarations
};

} // namespace

std::unique_ptr<hl::Program> Sema::Impl::instantiateMdh(const ast::MdhDecl &d, const Env &env, SourceRange use) {
  if (d.stages.empty()) return nullptr;
  if (++instantiationDepth > 32) {
    --instantiationDepth;
    error("E0610", use, "mdh aliases refer to each other in a cycle or nest more than 32 deep");
    return nullptr;
  }
  struct DepthGuard {
    int &d;
    std::vector<const ast::Decl *> &stack;
    ~DepthGuard() { --d; stack.pop_back(); }
  } guard{instantiationDepth, mdhStack};
  mdhStack.push_back(&d);

  // An alias `mdh x = other<args>;`
  if (d.stages.size() == 1 && d.stages[0].kind == ast::Stage::Kind::Ref) {
    const ast::Stage &s = d.stages[0];
    auto it = scope.find(s.name.name);
    if (it == scope.end() || it->second->kind != ast::Decl::Kind::Mdh) {
      if (!s.name.empty() && !rejectedNames.count(s.name.name))
        error("E0611", s.name.range,
              it == scope.end() ? fmt::format("unknown mdh `{}`", s.name.name) : fmt::format("`{}` is not an mdh", s.name.name),
              it == scope.end() ? didYouMean(s.name.name, namesOfKind(ast::Decl::Kind::Mdh))
                                : "an mdh is `out_view<..>(..) o md_hom<..>(..) o inp_view<..>(..)` or an instance `other<args>`");
      return nullptr;
    }
    const auto &target = *it->second->as<ast::MdhDecl>();
    if (auto pos = std::find(mdhStack.begin(), mdhStack.end(), &target); pos != mdhStack.end()) {
      // A cycle: report it once (whichever member is checked first), without
      // a chain of "in the instance" notes around it.
      std::set<const ast::Decl *> members(pos, mdhStack.end());
      inAliasCycle.insert(members.begin(), members.end());
      if (reportedCycles.insert(members).second) {
        std::vector<std::string> path;
        for (auto p = pos; p != mdhStack.end(); ++p) path.push_back("`" + (*p)->name.name + "`");
        path.push_back("`" + target.name.name + "`");
        error("E0610", s.range, "mdh aliases refer to each other in a cycle or nest more than 32 deep",
              fmt::format("the cycle is {}; make one of them a full mdh expression", fmt::join(path, " -> ")));
      }
      return nullptr;
    }
    Env inner;
    if (!bindMetaArgs(target, s.hasMetaArgs, s.metaArgs, env, inner, s.range)) return nullptr;
    size_t before = diags.errorCount();
    auto prog = instantiateMdh(target, inner, s.range);
    if (diags.errorCount() != before && !inAliasCycle.count(&target)) note(s.range, fmt::format("in the instance `{}` used by `{}`", s.name.name, d.name.name));
    if (prog) prog->name = d.name.name;
    return prog;
  }

  ResolvedStages st;
  st.outEnv = env;
  st.inpEnv = env;
  std::vector<const ast::Stage *> flat;
  std::vector<Env *> envs;
  for (size_t i = 0; i < d.stages.size(); ++i) {
    const ast::Stage &s = d.stages[i];
    if (s.kind == ast::Stage::Kind::Error) return nullptr;
    if (s.kind != ast::Stage::Kind::Ref) {
      flat.push_back(&s);
      continue;
    }
    auto it = scope.find(s.name.name);
    const ast::ViewDecl *vd = it != scope.end() ? it->second->as<ast::ViewDecl>() : nullptr;
    if (!vd) {
      if (rejectedNames.count(s.name.name)) return nullptr;
      error("E0612", s.name.range,
            it == scope.end() ? fmt::format("unknown view `{}`", s.name.name) : fmt::format("`{}` is not a view", s.name.name),
            it == scope.end() ? didYouMean(s.name.name, namesOfKind(ast::Decl::Kind::View))
                              : "only `view` declarations can be composed with md_hom");
      return nullptr;
    }
    Env &target = i == 0 ? st.outEnv : st.inpEnv;
    Env inner;
    if (!bindMetaArgs(*vd, s.hasMetaArgs, s.metaArgs, env, inner, s.range)) return nullptr;
    target = inner;
    flat.push_back(&vd->stage);
  }
  if (flat.size() != 3 || flat[0]->kind != ast::Stage::Kind::OutView || flat[1]->kind != ast::Stage::Kind::MdHom ||
      flat[2]->kind != ast::Stage::Kind::InpView) {
    error("E0613", d.range, "an mdh expression must have the form `out_view<..>(..) o md_hom<..>(..) o inp_view<..>(..)`",
          "composition applies right to left: the input view first, then md_hom, then the output view");
    return nullptr;
  }
  st.out = flat[0];
  st.hom = flat[1];
  st.inp = flat[2];

  auto prog = std::make_unique<hl::Program>();
  prog->name = d.name.name;
  prog->range = d.range;
  prog->dynamicSizes.assign(env.dynamicSizes.begin(), env.dynamicSizes.end());
  bool ok = true;

  // ---- md_hom sizes ---------------------------------------------------------------------------
  const ast::Stage &hom = *st.hom;
  if (!hom.hasMetaArgs) {
    error("E0614", hom.range, "md_hom needs its sizes: `md_hom<N1, ..., ND>(f, (op1, ..., opD))`");
    return nullptr;
  }
  for (size_t i = 0; i < hom.metaArgs.size(); ++i) {
    const auto &a = hom.metaArgs[i];
    std::optional<SizePoly> v;
    if (a.kind == ast::MetaArg::Kind::Dynamic) {
      std::string name = fmt::format("N{}", i + 1);
      v = SizePoly::param(name);
      if (std::find(prog->dynamicSizes.begin(), prog->dynamicSizes.end(), name) == prog->dynamicSizes.end())
        prog->dynamicSizes.push_back(name);
    } else if (a.kind == ast::MetaArg::Kind::Size && a.size) {
      v = evalSize(*a.size, env);
    } else if (a.kind == ast::MetaArg::Kind::Type && a.type.kind == ast::TypeRef::Kind::Named) {
      ast::SizeExpr se;
      se.kind = ast::SizeExpr::Kind::Name;
      se.name = a.type.name;
      se.range = a.range;
      v = evalSize(se, env);
    } else {
      error("E0615", a.range, "md_hom's meta-arguments are the sizes of the MDA dimensions");
    }
    if (!v) { ok = false; prog->sizes.push_back(SizePoly::constant(1)); continue; }
    if ((*v - SizePoly::constant(1)).provablyNegative() || (v->isConstant() && v->constantValue().value_or(0) < 1)) {
      error("E0616", a.range, fmt::format("dimension {} has size {}, but sizes must be at least 1", i + 1, v->str()),
            "the paper's MDAs have non-empty index sets");
      ok = false;
    } else if (!(*v - SizePoly::constant(1)).provablyNonNegative()) {
      warning("W0601", a.range, fmt::format("size `{}` of dimension {} may be less than 1 for some meta-arguments", v->str(), i + 1),
              "it is checked again when the mdh is instantiated");
    }
    prog->sizes.push_back(*v);
  }
  // The interpreter and the generated code count MDA points in 64 bits: a product of
  // sizes beyond that is no program any stage can run (0-D buffers escape E0414/E0415).
  if (ok) {
    // Each factor is below 2^63, and the product stops growing past 2^63: no overflow.
    __int128 points = 1;
    for (const auto &v : prog->sizes) {
      auto n = v.constantValue();
      if (!n || v.overflowed()) continue; // a run-time size: at least 1
      points *= *n;
      if (points > std::numeric_limits<int64_t>::max()) break;
    }
    if (points > std::numeric_limits<int64_t>::max()) {
      std::vector<std::string> sizes;
      for (const auto &v : prog->sizes) sizes.push_back(v.str());
      error("E0416", hom.range,
            fmt::format("md_hom<{}> has more than 2^63 - 1 points", fmt::join(sizes, ", ")),
            "MDA points are counted in 64 bits; use smaller sizes");
      return nullptr;
    }
  }
  const size_t D = prog->sizes.size();
  if (hom.ops.size() != D) {
    error("E0617", hom.range, fmt::format("md_hom has {} dimension{} but {} combine operator{}", D, D == 1 ? "" : "s",
                                          hom.ops.size(), hom.ops.size() == 1 ? "" : "s"),
          "give one combine operator per dimension, e.g. `(++, pw(add))`");
    ok = false;
  }

  // ---- views: buffers, element types and index functions -----------------------------------------
  bool viewsOk = true;
  bool badElementType = false;
  bool emptyInputView = false; // E0619: f's parameter count has nothing to match (no E0629)
  auto buildView = [&](const ast::Stage &view, const Env &venv, std::vector<hl::Buffer> &out, bool isOutput) {
    std::set<std::string> names;
    if (view.buffers.empty()) {
      // The one mistake: element types without buffers are not a second one (E0618).
      error("E0619", view.range, fmt::format("{} has no buffers", isOutput ? "out_view" : "inp_view"),
            fmt::format("name at least one buffer and its index function, e.g. `{}<f32>( {}: (i) -> (i) )`",
                        isOutput ? "out_view" : "inp_view", isOutput ? "Out" : "A"));
      ok = false;
      if (!isOutput) emptyInputView = true;
    } else if (view.hasMetaArgs && view.metaArgs.size() != view.buffers.size()) {
      error("E0618", view.range,
            fmt::format("{} has {} buffer{} but {} element type{}", isOutput ? "out_view" : "inp_view", view.buffers.size(),
                        view.buffers.size() == 1 ? "" : "s", view.metaArgs.size(), view.metaArgs.size() == 1 ? "" : "s"),
            "give one element type per buffer, in order");
      ok = false;
    }
    for (size_t b = 0; b < view.buffers.size(); ++b) {
      const ast::BufferView &bv = view.buffers[b];
      hl::Buffer buf;
      buf.name = bv.name.name;
      buf.range = bv.range;
      if (!names.insert(buf.name).second && !buf.name.empty()) {
        error("E0620", bv.name.range, fmt::format("buffer `{}` appears twice in the view", buf.name),
              "list several accesses of one buffer after a single name: `A: (i)->(i), (i)->(i+1)`");
        ok = false;
      }
      if (view.hasMetaArgs && b < view.metaArgs.size()) {
        const auto &a = view.metaArgs[b];
        if (a.kind == ast::MetaArg::Kind::Type) buf.elem = resolveType(a.type, venv);
        else { error("E0621", a.range, "expected an element type"); ok = false; }
        if (buf.elem.kind == Type::Kind::Unit) {
          error("E0622", a.range, "a buffer's element type cannot be `()`");
          buf.elem = Type::error();
          ok = false;
        }
        if (buf.elem.isError()) badElementType = true; // reported; f cannot be judged against it

      } else {
        buf.elem = Type::error(); // deduced from f below
      }
      size_t rank = SIZE_MAX;
      for (const auto &acc : bv.accesses) {
        hl::Access a;
        if (!buildAccess(acc, D, venv, a, prog->dimNames.empty() ? &prog->dimNames : nullptr)) {
          ok = false;
          viewsOk = false; // later arity checks would count the dropped access
          continue;
        }
        if (rank != SIZE_MAX && a.dims.size() != rank) {
          error("E0623", acc.range, fmt::format("access to `{}` has {} indices, but an earlier access has {}", buf.name,
                                                a.dims.size(), rank),
                "every access of a buffer must give the same number of indices");
          ok = false;
        }
        rank = a.dims.size();
        buf.accesses.push_back(std::move(a));
      }
      out.push_back(std::move(buf));
    }
  };
  buildView(*st.inp, st.inpEnv, prog->inputs, false);
  buildView(*st.out, st.outEnv, prog->outputs, true);
  {
    std::set<std::string> inNames;
    for (const auto &b : prog->inputs) inNames.insert(b.name);
    for (const auto &b : prog->outputs)
      if (inNames.count(b.name)) {
        error("E0624", b.range, fmt::format("`{}` is both an input and an output buffer", b.name),
              "MDH computations are not in place; give the output another name");
        ok = false;
      }
  }
  size_t nIn = prog->numInputAccesses(), nOut = prog->numOutputAccesses();

  // ---- the scalar function ----------------------------------------------------------------------------------
  const ast::ScalarFnRef &fr = hom.fn;
  std::vector<Type> inTypes;
  for (const auto &b : prog->inputs)
    for (size_t a = 0; a < b.accesses.size(); ++a) inTypes.push_back(b.elem);
  auto outTypeOf = [&]() {
    std::vector<Type> outs;
    for (const auto &b : prog->outputs)
      for (size_t a = 0; a < b.accesses.size(); ++a) outs.push_back(b.elem);
    return outs.size() == 1 ? outs[0] : Type::tuple(outs);
  };
  Type fResult = Type::error();
  if (!viewsOk) {
    // Reported already; f's arity cannot be judged against a partial view.
  } else if (fr.isSymbol || (!scope.count(fr.name.name) && kBuiltinOps.count(fr.name.name))) {
    std::string sym = fr.isSymbol ? fr.symbol : fr.name.name;
    prog->fSymbol = sym;
    auto bop = builtinOpByName(sym);
    if (nIn != 2) {
      error("E0625", fr.range, fmt::format("`{}` as scalar function combines two inputs, but the input view has {} access{}", sym,
                                           nIn, nIn == 1 ? "" : "es"),
            "declare a scalar function with one parameter per access");
      ok = false;
    } else if (!inTypes[0].isError() && !inTypes[1].isError() && inTypes[0] != inTypes[1]) {
      error("E0626", fr.range, fmt::format("`{}` needs two inputs of the same type, found `{}` and `{}`", sym,
                                           inTypes[0].str(), inTypes[1].str()));
      ok = false;
    } else if (inTypes[0].isError()) {
      error("E0627", st.inp->range, "cannot deduce the element types of the input view",
            "give them explicitly, e.g. `inp_view<f32, f32>(...)`");
      ok = false;
    } else if (bop && !builtinApplies(*bop, inTypes[0])) {
      error("E0502", fr.range, fmt::format("built-in operator `{}` is not defined on `{}`", sym, inTypes[0].str()),
            inTypes[0].kind == Type::Kind::Record
                ? fmt::format("declare a function `fn f(a: {0}, b: {0}) -> {0}` and name it in md_hom", inTypes[0].str())
                : "docs/language.md §9.1 lists the types each built-in operator takes; declare a function and name it "
                  "in md_hom instead");
      ok = false;
    } else {
      // Synthesise f(a, b) = a ⊕ b so that every later stage sees one shape.
      auto sf = std::make_unique<hl::ScalarFunction>();
      sf->name = fmt::format("{}_{}", bop ? hl::builtinOpName(*bop) : "op", mangle(inTypes[0]));
      sf->sourceName = sym;
      sf->localTypes = {inTypes[0], inTypes[0]};
      sf->localNames = {"a", "b"};
      sf->numParams = 2;
      sf->result = inTypes[0];
      auto ret = std::make_unique<hl::SStmt>();
      ret->kind = hl::SStmt::Kind::Return;
      auto body = std::make_unique<hl::SExpr>();
      body->type = inTypes[0];
      if (bop == hl::BuiltinOp::Max || bop == hl::BuiltinOp::Min) {
        body->kind = hl::SExpr::Kind::Builtin;
        body->builtin = bop == hl::BuiltinOp::Max ? hl::Builtin::Max : hl::Builtin::Min;
      } else {
        body->kind = hl::SExpr::Kind::Binary;
        body->binOp = bop == hl::BuiltinOp::Mul ? hl::BinOp::Mul : bop == hl::BuiltinOp::And ? (inTypes[0].kind == Type::Kind::Bool ? hl::BinOp::And : hl::BinOp::BitAnd)
                      : bop == hl::BuiltinOp::Or ? (inTypes[0].kind == Type::Kind::Bool ? hl::BinOp::Or : hl::BinOp::BitOr)
                      : bop == hl::BuiltinOp::Xor ? hl::BinOp::BitXor : hl::BinOp::Add;
      }
      for (int i = 0; i < 2; ++i) {
        auto l = std::make_unique<hl::SExpr>();
        l->kind = hl::SExpr::Kind::Local;
        l->slot = i;
        l->type = inTypes[0];
        body->args.push_back(std::move(l));
      }
      ret->value = std::move(body);
      sf->body.push_back(std::move(ret));
      prog->functions.push_back(std::move(sf));
      prog->f = prog->functions.back().get();
      fResult = inTypes[0];
    }
  } else {
    auto it = scope.find(fr.name.name);
    const ast::FnDecl *fn = it != scope.end() ? it->second->as<ast::FnDecl>() : nullptr;
    if (!fn && rejectedNames.count(fr.name.name)) {
      ok = false; // its declaration was refused (E0204/E0222)
    } else if (!fn) {
      std::vector<std::string> cands = namesOfKind(ast::Decl::Kind::Fn);
      for (const auto &b : kBuiltinOps) cands.push_back(b);
      error("E0628", fr.range,
            it == scope.end() ? fmt::format("unknown scalar function `{}`", fr.name.name)
                              : fmt::format("`{}` is not a function", fr.name.name),
            it == scope.end() ? withFallback(didYouMean(fr.name.name, cands),
                                             fmt::format("declare `fn {}(...)`, or import the module that declares it "
                                                         "(e.g. `import std;`)",
                                                         fr.name.name))
                              : "");
      ok = false;
    } else {
      // USE_MDA_INDICES: the first D parameters have type `idx`.
      size_t nIdx = 0;
      while (nIdx < fn->params.size() && fn->params[nIdx].type.kind == ast::TypeRef::Kind::Named &&
             fn->params[nIdx].type.name.name == "idx")
        ++nIdx;
      // Some but not all of the D index parameters typed `idx` (docs/language.md §8.5):
      // the others would silently receive indices (or the indices shift the inputs).
      const bool partialIndices = nIdx > 0 && nIdx < D && fn->params.size() == D + nIn;
      prog->usesIndices = nIdx == D && D > 0 && fn->params.size() == D + nIn;
      size_t offset = prog->usesIndices ? D : 0;
      if (partialIndices) {
        const auto &p = fn->params[nIdx];
        error("E0629", p.name.range,
              fmt::format("parameter `{}` of `{}` receives MDA index {} of {}, but only the first {} parameter{} "
                          "{} typed `idx`",
                          p.name.name, fn->name.name, nIdx + 1, D, nIdx, nIdx == 1 ? "" : "s", nIdx == 1 ? "is" : "are"),
              fmt::format("declare all {} leading parameters `idx` (one per dimension of md_hom), or none", D));
        note(fr.range, "used here");
        ok = false;
      } else if (fn->params.size() != nIn + offset && !emptyInputView) {
        error("E0629", fr.range,
              fmt::format("scalar function `{}` takes {} parameter{}, but the input view has {} access{}{}", fn->name.name,
                          fn->params.size(), fn->params.size() == 1 ? "" : "s", nIn, nIn == 1 ? "" : "es",
                          nIdx ? fmt::format(" (plus {} `idx` parameters for the MDA indices)", D) : ""),
              "f takes one parameter per (buffer, access) of the input view, in order; with `idx` parameters first "
              "for the MDA indices");
        note(fn->name.range, "declared here");
        ok = false;
      } else {
        std::vector<Type> argTypes;
        for (size_t i = 0; i < offset; ++i) argTypes.push_back(Type::prim(Type::Kind::I64));
        bool inputsKnown = true;
        for (const auto &t : inTypes) {
          argTypes.push_back(t);
          inputsKnown &= !t.isError();
        }
        std::optional<std::map<std::string, Type>> bound;
        if (inputsKnown) {
          FnArgSources sources;
          sources.buffers.assign(offset, "");
          for (const auto &b : prog->inputs)
            for (size_t a = 0; a < b.accesses.size(); ++a) sources.buffers.push_back(b.name);
          bound = bindFnTypeArgs(*fn, fr.hasMetaArgs, fr.metaArgs, &argTypes, env, fr.range, true, &sources);
        } else {
          bound = bindFnTypeArgs(*fn, fr.hasMetaArgs, fr.metaArgs, nullptr, env, fr.range, !badElementType);
        }
        const hl::ScalarFunction *f = bound ? instantiateFn(*fn, *bound, *prog, fr.range) : nullptr;
        if (!f) {
          ok = false;
        } else {
          prog->f = f;
          fResult = f->result;
          // Deduce missing input element types from f's parameters.
          size_t k = offset;
          for (auto &b : prog->inputs)
            for (size_t a = 0; a < b.accesses.size(); ++a, ++k) {
              const Type &pt = f->localTypes[k];
              if (b.elem.isError()) b.elem = pt;
              else if (b.elem != pt && !pt.isError()) {
                error("E0630", fn->params[k].range,
                      fmt::format("parameter `{}` of `{}` has type `{}`, but buffer `{}` holds `{}`", fn->params[k].name.name,
                                  fn->name.name, pt.str(), b.name, b.elem.str()));
                ok = false;
              }
            }
          for (size_t i = 0; i < offset; ++i)
            if (f->localTypes[i] != Type::prim(Type::Kind::I64)) ok = false;
        }
      }
    }
  }

  // ---- output element types: explicit or from f's result --------------------------------------------------
  if (!fResult.isError()) {
    std::vector<Type> results = nOut == 1 ? std::vector<Type>{fResult}
                                          : (fResult.kind == Type::Kind::Tuple ? fResult.elems : std::vector<Type>{});
    if (results.size() != nOut) {
      error("E0631", fr.range,
            fmt::format("scalar function returns `{}`, but the output view has {} access{}", fResult.str(), nOut, nOut == 1 ? "" : "es"),
            nOut > 1 ? fmt::format("return a tuple of {} values, one per (buffer, access) of the output view", nOut)
                     : "return a single value");
      ok = false;
    } else {
      size_t k = 0;
      for (auto &b : prog->outputs)
        for (size_t a = 0; a < b.accesses.size(); ++a, ++k) {
          if (b.elem.isError()) {
            if (a == 0) b.elem = results[k];
            continue;
          }
          if (b.elem != results[k]) {
            error("E0632", b.range, fmt::format("output buffer `{}` holds `{}`, but the scalar function produces `{}` for it",
                                                b.name, b.elem.str(), results[k].str()),
                  "change the out_view's element type or the function's result type");
            ok = false;
          }
        }
    }
  }
  for (const auto &b : prog->inputs)
    if (b.elem.isError() && ok) {
      error("E0627", b.range, fmt::format("cannot deduce the element type of input buffer `{}`", b.name),
            "give it explicitly, e.g. `inp_view<f32, ...>(...)`");
      ok = false;
    }

  // ---- combine operators ---------------------------------------------------------------------------------------
  Type outElem = outTypeOf();
  if (hom.ops.size() == D) {
    for (size_t d = 0; d < D; ++d) {
      auto c = resolveCombineOp(hom.ops[d], outElem.isError() ? fResult : outElem, *prog, env);
      if (!c) { ok = false; prog->ops.push_back({}); continue; }
      prog->ops.push_back(*c);
    }
  }
  if (!ok) return nullptr;

  // ---- Lemma 10 ---------------------------------------------------------------------------------------------------
  const hl::BinaryOperator *first = nullptr;
  size_t firstDim = 0;
  for (size_t d = 0; d < D; ++d) {
    const auto &c = prog->ops[d];
    if (c.kind == hl::CombineOperator::Kind::Concat) continue;
    const bool pw = c.kind == hl::CombineOperator::Kind::PointWise;
    if (!c.op.assoc())
      warning("W0501", hom.ops[d].range,
              fmt::format("operator `{}` of dimension {} is not declared associative", c.op.str(), d + 1),
              fmt::format("mark the function `{}` if it is; otherwise results depend on the evaluation order, and every "
                          "stage uses the interpreter's canonical order",
                          pw ? "@assoc @comm" : "@assoc"));
    else if (pw && !c.op.comm())
      warning("W0502", hom.ops[d].range,
              fmt::format("point-wise operator `{}` of dimension {} is not declared commutative (Lemma 10)", c.op.str(), d + 1),
              "mark the function `@comm` if it is; otherwise every stage keeps the canonical order");
    if (!first) { first = &c.op; firstDim = d; continue; }
    if (!first->sameAs(c.op)) {
      warning("W0503", hom.ops[d].range,
              fmt::format("dimensions {} and {} combine with different operators `{}` and `{}`; Lemma 10 requires one "
                          "associative and commutative operator for all non-concatenation dimensions",
                          firstDim + 1, d + 1, first->str(), c.op.str()),
              "the result is evaluated in the canonical order (dimension 1 outermost, indices ascending) by every stage");
    }
  }

  // ---- derived shapes -------------------------------------------------------------------------------------------------
  std::vector<SizePoly> outSizes = prog->outputSizes();
  for (size_t b = 0; b < prog->inputs.size(); ++b) deriveShape(prog->inputs[b], prog->sizes, st.inp->buffers[b], st.inpEnv, false);
  for (size_t b = 0; b < prog->outputs.size(); ++b) {
    deriveShape(prog->outputs[b], outSizes, st.out->buffers[b], st.outEnv, true);
    checkInjective(prog->outputs[b], outSizes, prog->ops);
  }
  for (const auto &b : prog->inputs) checkBufferBytes(b);
  for (const auto &b : prog->outputs) checkBufferBytes(b);
  // Inputs and outputs alike (§15.2): the generated code and the interpreter
  // take coefficients as constants.
  std::vector<const hl::Buffer *> viewed;
  for (const auto *buffers : {&prog->inputs, &prog->outputs})
    for (const auto &b : *buffers) viewed.push_back(&b);
  for (const hl::Buffer *b : viewed)
    for (const auto &a : b->accesses)
      for (const auto &ix : a.dims)
        for (const auto &c : ix.coeffs)
          for (const auto &p : c.params())
            if (env.dynamicSizes.count(p) || std::find(prog->dynamicSizes.begin(), prog->dynamicSizes.end(), p) != prog->dynamicSizes.end()) {
              error("E0411", a.range, fmt::format("index coefficient `{}` depends on the run-time size `{}`", c.str(), p),
                    "coefficients of index functions must be known when the mdh is compiled");
              ok = false;
            }

  // Instance name: entry plus its meta-arguments.
  prog->instanceName = d.name.name;
  for (const auto &p : d.metaParams) {
    if (auto it = env.types.find(p.name.name); it != env.types.end()) prog->instanceName += "_" + mangle(it->second);
    else if (auto is = env.sizes.find(p.name.name); is != env.sizes.end())
      prog->instanceName += "_" + sizeNamePart(is->second, env);
  }
  for (const auto &b : prog->inputs)
    if (b.elem.kind == Type::Kind::Record) {
      bool have = false;
      for (const auto &r : prog->records) have |= r == b.elem.record;
      if (!have) prog->records.push_back(b.elem.record);
    }
  if (!ok) return nullptr;
  return prog;
}

} // namespace mdh
