/** \file
 * Type checking of scalar function bodies and their translation to the
 * HL scalar IR.
 *
 * A function is checked once per instance (type arguments); while generic,
 * type meta-parameters are opaque Param types on which arithmetic and
 * comparison are allowed, and the instance with concrete types is checked
 * again when an mdh is instantiated.  Literals take their type from context
 * (bidirectional checking): `x * 0.5` with x: f32 is an f32 multiplication.
 */
#include "sema/SemaImpl.h"

#include "ast/Printer.h"

#include <cmath>
#include <functional>
#include <cstdlib>
#include <fmt/format.h>

namespace mdh {
namespace {

using hl::SExpr;
using hl::SExprPtr;
using hl::SStmt;
using hl::SStmtPtr;

struct BuiltinInfo {
  const char *name;
  hl::Builtin id;
  int arity;
  enum Domain { Float, Numeric } domain;
};

const BuiltinInfo kBuiltins[] = {
    {"sqrt", hl::Builtin::Sqrt, 1, BuiltinInfo::Float},   {"exp", hl::Builtin::Exp, 1, BuiltinInfo::Float},
    {"log", hl::Builtin::Log, 1, BuiltinInfo::Float},     {"abs", hl::Builtin::Abs, 1, BuiltinInfo::Numeric},
    {"min", hl::Builtin::Min, 2, BuiltinInfo::Numeric},   {"max", hl::Builtin::Max, 2, BuiltinInfo::Numeric},
    {"pow", hl::Builtin::Pow, 2, BuiltinInfo::Float},     {"floor", hl::Builtin::Floor, 1, BuiltinInfo::Float},
    {"ceil", hl::Builtin::Ceil, 1, BuiltinInfo::Float},   {"sin", hl::Builtin::Sin, 1, BuiltinInfo::Float},
    {"cos", hl::Builtin::Cos, 1, BuiltinInfo::Float},     {"tan", hl::Builtin::Tan, 1, BuiltinInfo::Float},
    {"tanh", hl::Builtin::Tanh, 1, BuiltinInfo::Float},   {"exp2", hl::Builtin::Exp2, 1, BuiltinInfo::Float},
    {"log2", hl::Builtin::Log2, 1, BuiltinInfo::Float},   {"log10", hl::Builtin::Log10, 1, BuiltinInfo::Float},
    {"round", hl::Builtin::Round, 1, BuiltinInfo::Float}, {"trunc", hl::Builtin::Trunc, 1, BuiltinInfo::Float},
    {"fma", hl::Builtin::Fma, 3, BuiltinInfo::Float},
};

const BuiltinInfo *findBuiltin(const std::string &n) {
  for (const auto &b : kBuiltins)
    if (n == b.name) return &b;
  return nullptr;
}

bool isUntypedLiteral(const ast::Expr &e) {
  if (e.kind == ast::Expr::Kind::Int || e.kind == ast::Expr::Kind::Float) return true;
  return e.kind == ast::Expr::Kind::Unary && e.unaryOp == ast::UnaryOp::Neg && !e.operands.empty() &&
         e.operands[0] && isUntypedLiteral(*e.operands[0]);
}

/// Truncates `v` to the width of integer type `t` (sign-extending signed types).
uint64_t wrapTo(const Type &t, uint64_t v) {
  int b = t.bits();
  if (t.kind == Type::Kind::Bool) return v != 0;
  if (b >= 64 || b == 0) return v;
  uint64_t mask = (uint64_t(1) << b) - 1;
  v &= mask;
  if (t.isSigned() && (v >> (b - 1)) & 1) v |= ~mask;
  return v;
}

bool literalFits(const Type &t, uint64_t magnitude, bool negative) {
  int b = t.bits();
  if (t.isSigned()) {
    uint64_t limit = b >= 64 ? (uint64_t(1) << 63) : (uint64_t(1) << (b - 1));
    return negative ? magnitude <= limit : magnitude < limit;
  }
  if (negative) return magnitude == 0;
  return b >= 64 || magnitude < (uint64_t(1) << b);
}

class FnChecker {
public:
  FnChecker(Sema::Impl &I, hl::Program &prog, const ast::FnDecl &fn, const Env &env, hl::ScalarFunction &out)
      : I(I), prog(prog), fn(fn), env(env), out(out) {}

  void run() {
    scopes.emplace_back();
    for (const auto &p : fn.params) {
      Type t = I.resolveType(p.type, env);
      if (t.kind == Type::Kind::Unit) {
        I.error("E0303", p.type.range, "a parameter cannot have the unit type `()`");
        t = Type::error();
      }
      declare(p.name, t, false);
    }
    out.numParams = out.localTypes.size();
    bool declaredResult = fn.result.has_value();
    if (declaredResult) {
      out.result = I.resolveType(*fn.result, env);
      if (out.result.kind == Type::Kind::Unit) {
        I.error("E0304", fn.result->range, "a scalar function must return a value, not `()`");
        out.result = Type::error(); // no follow-on mismatch with the returned values
      }
    } else if (fn.bodyMissing) {
      out.result = Type::error(); // unknown: no follow-on errors where it is used
    } else if (!fn.exprBody) {
      I.error("E0305", fn.name.range, fmt::format("function `{}` has a block body but no result type", fn.name.name),
              "add `-> T` after the parameter list");
      out.result = Type::error();
    }
    resultKnown = declaredResult || !fn.exprBody;
    out.body = block(fn.body);
    if (fn.bodyDamaged) {
      // Recovery decided where the blocks end: flow errors would describe its guess.
    } else if (!fn.body.empty() && !returns(fn.body)) {
      I.error("E0306", fn.name.range, fmt::format("function `{}` may end without returning a value", fn.name.name),
              "make every path end in `return`");
    } else if (fn.body.empty() && !fn.name.empty() && !fn.bodyMissing) {
      I.error("E0306", fn.name.range, fmt::format("function `{}` has an empty body", fn.name.name),
              "return a value, e.g. `= a * b;`");
    }
  }

private:
  Sema::Impl &I;
  hl::Program &prog;
  const ast::FnDecl &fn;
  const Env &env;
  hl::ScalarFunction &out;
  std::vector<std::map<std::string, int>> scopes;
  std::vector<bool> mutableSlot;
  bool resultKnown = true;

  int declare(const ast::Ident &name, const Type &t, bool isMutable) {
    if (!name.empty()) {
      auto &sc = scopes.back();
      if (sc.count(name.name) && scopes.size() == 1 && int(out.numParams) == 0)
        I.error("E0307", name.range, fmt::format("parameter `{}` is declared twice", name.name));
      else if (sc.count(name.name))
        I.error("E0307", name.range, fmt::format("`{}` is already declared in this block", name.name),
                "use another name, or assign with `let mut` and `=`");
    }
    int slot = int(out.localTypes.size());
    out.localTypes.push_back(t);
    out.localNames.push_back(name.name);
    mutableSlot.push_back(isMutable);
    if (!name.empty()) scopes.back()[name.name] = slot;
    return slot;
  }

  int lookup(const std::string &n) const {
    for (auto it = scopes.rbegin(); it != scopes.rend(); ++it)
      if (auto f = it->find(n); f != it->end()) return f->second;
    return -1;
  }

  std::vector<std::string> visibleNames() const {
    std::vector<std::string> out;
    for (const auto &s : scopes)
      for (const auto &[k, v] : s) out.push_back(k);
    return out;
  }

  static bool returns(const std::vector<ast::StmtPtr> &body) {
    for (const auto &s : body) {
      if (!s) continue;
      if (s->kind == ast::Stmt::Kind::Return) return true;
      if (s->kind == ast::Stmt::Kind::Block && returns(s->body)) return true;
      if (s->kind == ast::Stmt::Kind::If && s->hasElse && returns(s->body) && returns(s->elseBody)) return true;
    }
    return false;
  }

  // ---- statements ------------------------------------------------------------------------------
  std::vector<SStmtPtr> block(const std::vector<ast::StmtPtr> &body) {
    std::vector<SStmtPtr> res;
    bool returned = false;
    for (const auto &s : body) {
      if (!s) continue;
      if (returned && !fn.bodyDamaged) {
        I.warning("W0301", s->range, "unreachable statement after `return`", "remove it");
        returned = false; // warn once per block
      }
      if (auto st = stmt(*s)) res.push_back(std::move(st));
      if (s->kind == ast::Stmt::Kind::Return) returned = true;
    }
    return res;
  }

  SStmtPtr stmt(const ast::Stmt &s) {
    auto st = std::make_unique<SStmt>();
    st->range = s.range;
    switch (s.kind) {
    case ast::Stmt::Kind::Error:
      // A statement with a syntax error may have meant to declare its names: later uses
      // of them are not reported (the syntax error is), and they have no type to mislead.
      for (const auto &name : s.damagedNames)
        if (lookup(name.name) < 0) declare(name, Type::error(), /*isMutable=*/true);
      return nullptr;
    case ast::Stmt::Kind::Let: {
      Type declared = s.declaredType ? I.resolveType(*s.declaredType, env) : Type::error();
      SExprPtr v = s.value ? expr(*s.value, s.declaredType ? &declared : nullptr) : nullptr;
      Type t = s.declaredType ? declared : (v ? v->type : Type::error());
      if (s.declaredType && v) v = convertTo(std::move(v), declared, s.value->range);
      st->kind = SStmt::Kind::Assign;
      st->value = std::move(v);
      st->slot = declare(s.name, t, s.isMutable);
      return st;
    }
    case ast::Stmt::Kind::Assign: {
      int slot = lookup(s.name.name);
      if (slot < 0) {
        if (!s.name.empty())
          I.error("E0308", s.name.range, fmt::format("cannot assign to undeclared `{}`", s.name.name),
                  fmt::format("declare it first with `let mut {} = ...;`", s.name.name));
        return nullptr;
      }
      if (!mutableSlot[slot] && size_t(slot) < out.numParams)
        I.error("E0309", s.name.range, fmt::format("cannot assign to parameter `{}`", s.name.name),
                "parameters are immutable; copy into a `let mut` variable");
      else if (!mutableSlot[slot])
        I.error("E0309", s.name.range, fmt::format("cannot assign twice to immutable `{}`", s.name.name),
                fmt::format("declare it with `let mut {}`", s.name.name));
      Type t = out.localTypes[slot];
      SExprPtr v = s.value ? expr(*s.value, &t) : nullptr;
      if (!v) return nullptr;
      if (s.assignOp != "=") {
        auto lhs = std::make_unique<SExpr>();
        lhs->kind = SExpr::Kind::Local;
        lhs->slot = slot;
        lhs->type = t;
        lhs->range = s.name.range;
        ast::BinaryOp op = s.assignOp == "+=" ? ast::BinaryOp::Add
                           : s.assignOp == "-=" ? ast::BinaryOp::Sub
                           : s.assignOp == "*=" ? ast::BinaryOp::Mul
                                                : ast::BinaryOp::Div;
        v = binary(op, std::move(lhs), std::move(v), s.range);
      }
      st->kind = SStmt::Kind::Assign;
      st->slot = slot;
      st->value = convertTo(std::move(v), t, s.value->range);
      return st;
    }
    case ast::Stmt::Kind::If: {
      Type b = Type::prim(Type::Kind::Bool);
      st->kind = SStmt::Kind::If;
      st->value = s.value ? expr(*s.value, &b) : nullptr;
      if (st->value) requireBool(*st->value, "an `if` condition");
      scopes.emplace_back();
      st->thenBody = block(s.body);
      scopes.pop_back();
      scopes.emplace_back();
      st->elseBody = block(s.elseBody);
      scopes.pop_back();
      return st;
    }
    case ast::Stmt::Kind::Return: {
      st->kind = SStmt::Kind::Return;
      if (!resultKnown) {
        st->value = s.value ? expr(*s.value, nullptr) : nullptr;
        out.result = st->value ? st->value->type : Type::error();
        resultKnown = true;
      } else {
        st->value = s.value ? expr(*s.value, &out.result) : nullptr;
        if (st->value) st->value = convertTo(std::move(st->value), out.result, s.value->range);
      }
      return st;
    }
    case ast::Stmt::Kind::Block: {
      st->kind = SStmt::Kind::Block;
      scopes.emplace_back();
      st->thenBody = block(s.body);
      scopes.pop_back();
      return st;
    }
    }
    return nullptr;
  }

  // ---- expressions ------------------------------------------------------------------------------------
  SExprPtr make(SExpr::Kind k, Type t, SourceRange r) {
    auto e = std::make_unique<SExpr>();
    e->kind = k;
    e->type = std::move(t);
    e->range = r;
    return e;
  }

  SExprPtr errorExpr(SourceRange r) { return make(SExpr::Kind::Const, Type::error(), r); }

  /// Checks that `e` has type `t`; reports a mismatch once.
  SExprPtr convertTo(SExprPtr e, const Type &t, SourceRange r) {
    if (!e || e->type.isError() || t.isError() || e->type == t) return e;
    I.error("E0310", r, fmt::format("expected `{}`, found `{}`", t.str(), e->type.str()),
            e->type.isNumeric() && t.isNumeric() ? fmt::format("convert explicitly with `as {}`", t.str()) : "");
    e->type = Type::error();
    return e;
  }

  void requireBool(SExpr &e, const char *what) {
    if (e.type.isError() || e.type.kind == Type::Kind::Bool) return;
    I.error("E0311", e.range, fmt::format("{} must be `bool`, found `{}`", what, e.type.str()),
            e.type.isNumeric() ? "compare explicitly, e.g. `x != 0`" : "");
    e.type = Type::error();
  }

  SExprPtr literal(const ast::Expr &e, const Type *expected, bool negative) {
    const ast::Expr &lit = negative ? *e.operands[0] : e;
    if (negative && lit.kind == ast::Expr::Kind::Unary) {
      // `--1`: fold one level and recurse
      auto inner = literal(*e.operands[0], expected, false);
      return unary(ast::UnaryOp::Neg, std::move(inner), e.range);
    }
    Type t;
    if (expected && (expected->isNumeric() || expected->isParam())) t = *expected;
    else if (lit.kind == ast::Expr::Kind::Float) t = Type::prim(Type::Kind::F64);
    else t = Type::prim(lit.intValue <= 0x7fffffffull + (negative ? 1 : 0) ? Type::Kind::I32 : Type::Kind::I64);
    auto c = make(SExpr::Kind::Const, t, e.range);
    if (lit.kind == ast::Expr::Kind::Float) {
      if (t.isInteger()) {
        I.error("E0312", e.range, fmt::format("floating-point literal `{}` where `{}` is expected", lit.text, t.str()),
                fmt::format("write an integer, or convert with `as {}`", t.str()));
        c->type = Type::error();
        return c;
      }
      // An f32 literal is rounded once, from its decimal text (via f64 it
      // could round twice: 1.00000005960464477539062500000001 gave 1.0).
      double v = t.kind == Type::Kind::F32 ? double(std::strtof(lit.text.c_str(), nullptr)) : lit.floatValue;
      c->value.fvalue = negative ? -v : v;
      return c;
    }
    if (lit.intOverflow) { c->type = Type::error(); return c; }
    if (t.isFloat() || t.isParam()) {
      // Integer to f32 in one rounding, like `as f32` (via f64,
      // 2^60 + 2^36 + 1 rounded to 2^60 instead of 2^60 + 2^37).
      double v = t.kind == Type::Kind::F32 ? double(float(lit.intValue)) : double(lit.intValue);
      c->value.fvalue = negative ? -v : v;
      c->value.bits = negative ? uint64_t(0) - lit.intValue : lit.intValue;
      return c;
    }
    if (!literalFits(t, lit.intValue, negative)) {
      I.error("E0313", e.range, fmt::format("literal `{}{}` is out of range for `{}`", negative ? "-" : "", lit.text, t.str()),
              "use a wider type, or wrap explicitly with `as`");
      c->type = Type::error();
      return c;
    }
    c->value.bits = wrapTo(t, negative ? uint64_t(0) - lit.intValue : lit.intValue);
    c->value.fvalue = negative ? -double(lit.intValue) : double(lit.intValue);
    return c;
  }

  /// The help of E0314: what the name is when it is not a value (a function, a type), a
  /// near name, or where names come from.
  std::string unknownNameHint(const std::string &name, const std::vector<std::string> &candidates) const {
    auto it = I.scope.find(name);
    if (it != I.scope.end() && it->second->kind == ast::Decl::Kind::Fn)
      return fmt::format("`{0}` is a function: call it, `{0}(...)`", name);
    if (!primitiveByName(name).isError() || (it != I.scope.end() && it->second->kind == ast::Decl::Kind::Record))
      return fmt::format("`{0}` is a type, not a value: convert with `x as {0}`, or build a record with `{0} {{ .. }}`",
                         name);
    return withFallback(I.didYouMean(name, candidates),
                        "a name here is a parameter or a `let` of this function; declare it first");
  }

  /// `g<f32>(a)`, which parses as `(g < f32) > (a)`: the callee `g` when it names a
  /// function and no local, else null.
  const ast::Expr *explicitMetaArgumentsCallee(const ast::Expr &e) const {
    if (e.binaryOp != ast::BinaryOp::Gt || e.operands.size() != 2) return nullptr;
    const ast::Expr &less = *e.operands[0];
    if (less.kind != ast::Expr::Kind::Binary || less.binaryOp != ast::BinaryOp::Lt || less.operands.size() != 2)
      return nullptr;
    const ast::Expr &callee = *less.operands[0];
    if (callee.kind != ast::Expr::Kind::Name || lookup(callee.name.name) >= 0) return nullptr;
    auto it = I.scope.find(callee.name.name);
    return it != I.scope.end() && it->second->kind == ast::Decl::Kind::Fn ? &callee : nullptr;
  }

  SExprPtr expr(const ast::Expr &e, const Type *expected) {
    using K = ast::Expr::Kind;
    switch (e.kind) {
    case K::Error: return errorExpr(e.range);
    case K::Int:
    case K::Float: return literal(e, expected, false);
    case K::Bool: {
      auto c = make(SExpr::Kind::Const, Type::prim(Type::Kind::Bool), e.range);
      c->value.bits = e.boolValue;
      return c;
    }
    case K::Name: {
      int slot = lookup(e.name.name);
      if (slot < 0) {
        std::vector<std::string> cands = visibleNames();
        I.error("E0314", e.range, fmt::format("unknown name `{}`", e.name.name), unknownNameHint(e.name.name, cands));
        return errorExpr(e.range);
      }
      auto x = make(SExpr::Kind::Local, out.localTypes[slot], e.range);
      x->slot = slot;
      return x;
    }
    case K::Unary: {
      if (isUntypedLiteral(e) && e.unaryOp == ast::UnaryOp::Neg) return literal(e, expected, true);
      auto a = expr(*e.operands[0], e.unaryOp == ast::UnaryOp::Not ? nullptr : expected);
      return unary(e.unaryOp, std::move(a), e.range);
    }
    case K::Binary:
      if (auto *callee = explicitMetaArgumentsCallee(e)) {
        I.error("E0314", callee->range,
                fmt::format("`{}` is called with explicit meta-arguments, which calls do not take", callee->name.name),
                fmt::format("write `{}(...)`: a function's meta-arguments are deduced from its arguments' types",
                            callee->name.name));
        return errorExpr(e.range);
      }
      return binaryExpr(e, expected);
    case K::Cond: {
      Type b = Type::prim(Type::Kind::Bool);
      auto c = expr(*e.operands[0], &b);
      requireBool(*c, "the condition of `?:`");
      SExprPtr t, f;
      if (isUntypedLiteral(*e.operands[1]) && !isUntypedLiteral(*e.operands[2])) {
        f = expr(*e.operands[2], expected);
        t = expr(*e.operands[1], &f->type);
      } else {
        t = expr(*e.operands[1], expected);
        f = expr(*e.operands[2], &t->type);
      }
      Type rt = t->type;
      if (!t->type.isError() && !f->type.isError() && t->type != f->type) {
        I.error("E0315", e.range, fmt::format("branches of `?:` have different types `{}` and `{}`", t->type.str(), f->type.str()),
                "convert one branch with `as`");
        rt = Type::error();
      }
      auto r = make(SExpr::Kind::Cond, rt, e.range);
      r->args.push_back(std::move(c));
      r->args.push_back(std::move(t));
      r->args.push_back(std::move(f));
      return r;
    }
    case K::Cast: {
      Type target = I.resolveType(e.castType, env);
      auto a = expr(*e.operands[0], isUntypedLiteral(*e.operands[0]) && target.isNumeric() ? &target : nullptr);
      if (a->type.isError() || target.isError()) return errorExpr(e.range);
      bool okFrom = a->type.isPrimitive() || a->type.isParam();
      bool okTo = target.isPrimitive() || target.isParam();
      if (!okFrom || !okTo) {
        I.error("E0316", e.range, fmt::format("cannot cast `{}` to `{}`", a->type.str(), target.str()),
                "`as` converts between scalar types (bool, integers, floats)");
        return errorExpr(e.range);
      }
      auto r = make(SExpr::Kind::Cast, target, e.range);
      r->args.push_back(std::move(a));
      return r;
    }
    case K::Call: return call(e, expected);
    case K::Field: {
      auto base = expr(*e.operands[0], nullptr);
      if (base->type.isError()) return errorExpr(e.range);
      const std::string &f = e.name.name;
      if (base->type.kind == Type::Kind::Tuple) {
        bool digits = !f.empty() && f.find_first_not_of("0123456789") == std::string::npos;
        size_t idx = digits && f.size() < 6 ? std::stoul(f) : SIZE_MAX;
        if (idx >= base->type.elems.size()) {
          I.error("E0317", e.name.range, fmt::format("tuple `{}` has no element `{}`", base->type.str(), f),
                  fmt::format("valid elements are .0 to .{}", base->type.elems.size() - 1));
          return errorExpr(e.range);
        }
        auto r = make(SExpr::Kind::Field, base->type.elems[idx], e.range);
        r->field = int(idx);
        r->args.push_back(std::move(base));
        return r;
      }
      if (base->type.kind == Type::Kind::Record) {
        int idx = base->type.record->fieldIndex(f);
        if (idx < 0) {
          std::vector<std::string> names;
          for (const auto &fl : base->type.record->fields) names.push_back(fl.name);
          I.error("E0318", e.name.range, fmt::format("record `{}` has no field `{}`", base->type.record->name, f),
                  I.didYouMean(f, names));
          return errorExpr(e.range);
        }
        auto r = make(SExpr::Kind::Field, base->type.record->fields[idx].type, e.range);
        r->field = idx;
        r->args.push_back(std::move(base));
        return r;
      }
      I.error("E0319", e.range, fmt::format("`{}` has no fields", base->type.str()),
              "field access works on records (`r.name`) and tuples (`t.0`)");
      return errorExpr(e.range);
    }
    case K::Tuple: {
      std::vector<Type> types;
      auto r = make(SExpr::Kind::Tuple, Type::error(), e.range);
      for (size_t i = 0; i < e.operands.size(); ++i) {
        const Type *exp = expected && expected->kind == Type::Kind::Tuple && i < expected->elems.size() ? &expected->elems[i] : nullptr;
        auto a = expr(*e.operands[i], exp);
        types.push_back(a->type);
        r->args.push_back(std::move(a));
      }
      r->type = Type::tuple(types);
      return r;
    }
    case K::Record: {
      auto it = I.scope.find(e.name.name);
      if (it == I.scope.end() || it->second->kind != ast::Decl::Kind::Record) {
        if (!I.rejectedNames.count(e.name.name))
          I.error("E0320", e.name.range, fmt::format("unknown record type `{}`", e.name.name),
                I.didYouMean(e.name.name, I.namesOfKind(ast::Decl::Kind::Record)));
        for (const auto &fi : e.fields) if (fi.value) expr(*fi.value, nullptr);
        return errorExpr(e.range);
      }
      auto info = I.recordInfo(e.name.name, e.name.range);
      if (!info) return errorExpr(e.range);
      auto r = make(SExpr::Kind::Record, Type::recordType(info), e.range);
      std::vector<SExprPtr> vals(info->fields.size());
      for (const auto &fi : e.fields) {
        int idx = info->fieldIndex(fi.name.name);
        if (idx < 0) {
          // Suggest a field the construction does not give yet: the likely intent.
          std::vector<std::string> notGiven;
          for (const auto &fl : info->fields) {
            bool given = false;
            for (const auto &other : e.fields) given |= other.name.name == fl.name;
            if (!given) notGiven.push_back(fl.name);
          }
          std::string hint = I.didYouMean(fi.name.name, notGiven);
          if (hint.empty() && notGiven.size() == 1) hint = fmt::format("the field not given yet is `{}`", notGiven[0]);
          I.error("E0318", fi.name.range, fmt::format("record `{}` has no field `{}`", info->name, fi.name.name), hint);
          if (fi.value) expr(*fi.value, nullptr);
          continue;
        }
        if (vals[idx]) {
          I.error("E0321", fi.name.range, fmt::format("field `{}` is given twice", fi.name.name));
          continue;
        }
        const Type &ft = info->fields[idx].type;
        auto v = fi.value ? expr(*fi.value, &ft) : errorExpr(fi.name.range);
        vals[idx] = convertTo(std::move(v), ft, fi.value ? fi.value->range : fi.name.range);
      }
      std::vector<std::string> missing;
      for (size_t i = 0; i < vals.size(); ++i)
        if (!vals[i]) missing.push_back(info->fields[i].name);
      if (!missing.empty()) {
        I.error("E0322", e.range, fmt::format("missing field{} `{}` in `{}`", missing.size() > 1 ? "s" : "",
                                             fmt::join(missing, "`, `"), info->name),
                "every field must be given a value");
        return errorExpr(e.range);
      }
      for (auto &v : vals) r->args.push_back(std::move(v));
      return r;
    }
    }
    return errorExpr(e.range);
  }

  SExprPtr unary(ast::UnaryOp op, SExprPtr a, SourceRange r) {
    if (a->type.isError()) return errorExpr(r);
    const Type &t = a->type;
    bool ok = op == ast::UnaryOp::Not     ? t.kind == Type::Kind::Bool
              : op == ast::UnaryOp::Neg   ? (t.isNumeric() || t.isParam())
                                          : (t.isInteger() || t.isParam());
    if (!ok) {
      I.error("E0323", r, fmt::format("operator `{}` cannot be applied to `{}`", ast::spelling(op), t.str()),
              op == ast::UnaryOp::Not && t.isNumeric() ? "use `x == 0` to test a number" : "");
      return errorExpr(r);
    }
    auto e = make(SExpr::Kind::Unary, t, r);
    e->unOp = op == ast::UnaryOp::Neg ? hl::UnOp::Neg : op == ast::UnaryOp::Not ? hl::UnOp::Not : hl::UnOp::BitNot;
    e->args.push_back(std::move(a));
    return e;
  }

  SExprPtr binaryExpr(const ast::Expr &e, const Type *expected) {
    ast::BinaryOp op = e.binaryOp;
    bool logical = op == ast::BinaryOp::And || op == ast::BinaryOp::Or;
    bool cmp = precedence(op) == 7 || precedence(op) == 6;
    bool shift = op == ast::BinaryOp::Shl || op == ast::BinaryOp::Shr;
    Type boolT = Type::prim(Type::Kind::Bool);
    const Type *hint = logical ? &boolT : cmp ? nullptr : expected;
    SExprPtr a, b;
    if (isUntypedLiteral(*e.operands[0]) && !isUntypedLiteral(*e.operands[1]) && !shift) {
      b = expr(*e.operands[1], hint);
      a = expr(*e.operands[0], b->type.isError() ? hint : &b->type);
    } else {
      a = expr(*e.operands[0], hint);
      b = expr(*e.operands[1], shift ? nullptr : (a->type.isError() ? hint : &a->type));
    }
    return binary(op, std::move(a), std::move(b), e.range);
  }

  SExprPtr binary(ast::BinaryOp op, SExprPtr a, SExprPtr b, SourceRange r) {
    if (a->type.isError() || b->type.isError()) return errorExpr(r);
    const Type &ta = a->type, &tb = b->type;
    bool logical = op == ast::BinaryOp::And || op == ast::BinaryOp::Or;
    bool cmp = precedence(op) == 7 || precedence(op) == 6;
    bool eq = op == ast::BinaryOp::Eq || op == ast::BinaryOp::Ne;
    bool bit = op == ast::BinaryOp::BitAnd || op == ast::BinaryOp::BitOr || op == ast::BinaryOp::BitXor;
    bool shift = op == ast::BinaryOp::Shl || op == ast::BinaryOp::Shr;
    Type result = ta;
    std::string hint;
    bool ok;
    if (logical) {
      ok = ta.kind == Type::Kind::Bool && tb.kind == Type::Kind::Bool;
      result = Type::prim(Type::Kind::Bool);
    } else if (shift) {
      ok = (ta.isInteger() || ta.isParam()) && (tb.isInteger() || tb.isParam());
    } else {
      ok = ta == tb;
      if (!ok && ta.isNumeric() && tb.isNumeric()) hint = fmt::format("convert one side, e.g. `x as {}`", ta.str());
      if (ok) {
        if (cmp) ok = ta.isNumeric() || ta.isParam() || (eq && ta.kind == Type::Kind::Bool);
        else if (bit) ok = ta.isInteger() || ta.isParam() || ta.kind == Type::Kind::Bool;
        else if (op == ast::BinaryOp::Mod) ok = ta.isNumeric() || ta.isParam();
        else ok = ta.isNumeric() || ta.isParam();
        if (!ok && ta.kind == Type::Kind::Bool && !cmp) hint = "use `&&`, `||` or `!=` on booleans";
      }
      if (cmp) result = Type::prim(Type::Kind::Bool);
    }
    if (!ok) {
      if (ta == tb || logical || shift)
        I.error("E0324", r, fmt::format("operator `{}` cannot be applied to `{}`", ast::spelling(op), ta == tb ? ta.str() : ta.str() + "` and `" + tb.str()), hint);
      else
        I.error("E0325", r, fmt::format("mismatched types `{}` and `{}` in `{}`", ta.str(), tb.str(), ast::spelling(op)), hint);
      return errorExpr(r);
    }
    auto e = make(SExpr::Kind::Binary, result, r);
    static const hl::BinOp map[] = {hl::BinOp::Mul, hl::BinOp::Div, hl::BinOp::Mod, hl::BinOp::Add, hl::BinOp::Sub,
                                    hl::BinOp::Shl, hl::BinOp::Shr, hl::BinOp::Lt,  hl::BinOp::Le,  hl::BinOp::Gt,
                                    hl::BinOp::Ge,  hl::BinOp::Eq,  hl::BinOp::Ne,  hl::BinOp::BitAnd, hl::BinOp::BitXor,
                                    hl::BinOp::BitOr, hl::BinOp::And, hl::BinOp::Or};
    e->binOp = map[int(op)];
    e->args.push_back(std::move(a));
    e->args.push_back(std::move(b));
    return e;
  }

  SExprPtr call(const ast::Expr &e, const Type *expected) {
    const std::string &n = e.name.name;
    auto it = I.scope.find(n);
    if (it != I.scope.end() && it->second->kind == ast::Decl::Kind::Fn) return userCall(e, *it->second->as<ast::FnDecl>());
    const BuiltinInfo *b = findBuiltin(n);
    if (!b) {
      for (const auto &a : e.operands) expr(*a, nullptr);
      if (I.rejectedNames.count(n)) return errorExpr(e.range); // declaration refused (E0204/E0222)
      std::vector<std::string> cands;
      for (const auto &bi : kBuiltins) cands.push_back(bi.name);
      for (const auto &f : I.namesOfKind(ast::Decl::Kind::Fn)) cands.push_back(f);
      if (it != I.scope.end() && it->second->kind == ast::Decl::Kind::Record)
        I.error("E0326", e.range, fmt::format("`{}` is a record; construct it with braces", n),
                fmt::format("write `{} {{ field: value, ... }}`", n));
      else
        I.error("E0327", e.name.range, fmt::format("unknown function `{}`", n), I.didYouMean(n, cands));
      return errorExpr(e.range);
    }
    if (int(e.operands.size()) != b->arity) {
      I.error("E0328", e.range, fmt::format("`{}` takes {} argument{}, {} given", n, b->arity, b->arity == 1 ? "" : "s",
                                            e.operands.size()));
      return errorExpr(e.range);
    }
    // Type the non-literal arguments first; literals follow their type.
    std::vector<SExprPtr> args(e.operands.size());
    const Type *common = expected;
    Type firstTyped;
    for (size_t i = 0; i < args.size(); ++i)
      if (!isUntypedLiteral(*e.operands[i])) {
        args[i] = expr(*e.operands[i], common);
        if (!args[i]->type.isError() && firstTyped.kind == Type::Kind::Error) firstTyped = args[i]->type;
      }
    if (firstTyped.kind != Type::Kind::Error) common = &firstTyped;
    Type f64 = Type::prim(Type::Kind::F64);
    if (!common && b->domain == BuiltinInfo::Float) common = &f64;
    for (size_t i = 0; i < args.size(); ++i)
      if (!args[i]) args[i] = expr(*e.operands[i], common);
    for (const auto &a : args)
      if (a->type.isError()) return errorExpr(e.range);
    const Type &t = args[0]->type;
    for (size_t i = 1; i < args.size(); ++i)
      if (args[i]->type != t) {
        I.error("E0325", e.range, fmt::format("arguments of `{}` have different types `{}` and `{}`", n, t.str(), args[i]->type.str()),
                "convert one argument with `as`");
        return errorExpr(e.range);
      }
    bool ok = b->domain == BuiltinInfo::Float ? (t.isFloat() || t.isParam()) : (t.isNumeric() || t.isParam());
    if (!ok) {
      I.error("E0329", e.range, fmt::format("`{}` is not defined for `{}`", n, t.str()),
              b->domain == BuiltinInfo::Float && t.isInteger() ? fmt::format("convert first: `{}(x as f64)`", n) : "");
      return errorExpr(e.range);
    }
    auto r = make(SExpr::Kind::Builtin, t, e.range);
    r->builtin = b->id;
    r->args = std::move(args);
    return r;
  }

  SExprPtr userCall(const ast::Expr &e, const ast::FnDecl &callee) {
    if (e.operands.size() != callee.params.size()) {
      I.error("E0328", e.range, fmt::format("`{}` takes {} argument{}, {} given", callee.name.name, callee.params.size(),
                                            callee.params.size() == 1 ? "" : "s", e.operands.size()));
      I.note(callee.name.range, fmt::format("`{}` is declared here", callee.name.name));
      return errorExpr(e.range);
    }
    for (const ast::FnDecl *f : I.fnStack)
      if (f == &callee) {
        I.error("E0330", e.range, fmt::format("recursive call of `{}`", callee.name.name),
                "scalar functions cannot be recursive; use a loop-free formulation");
        return errorExpr(e.range);
      }
    // Callees are checked depth-first, on the stack: a bound keeps a very long
    // chain of calls from overflowing it (3000 calls did, on an 8 MiB stack).
    if (I.fnStack.size() >= Sema::Impl::kMaxCallDepth) {
      // Once: every function of the chain would report it again.
      if (I.callDepthReported) return errorExpr(e.range);
      I.callDepthReported = true;
      I.error("E0335", e.range,
              fmt::format("calls nested more than {} functions deep (`{}` calls `{}` at depth {})", Sema::Impl::kMaxCallDepth,
                          I.fnStack.back()->name.name, callee.name.name, I.fnStack.size() + 1),
              "merge some of the functions in the chain, or compute intermediate values with `let` in one function");
      return errorExpr(e.range);
    }
    Env calleeEnv = I.genericEnv(callee);
    std::vector<SExprPtr> args(e.operands.size());
    std::vector<Type> types(e.operands.size());
    for (size_t i = 0; i < args.size(); ++i) {
      if (isUntypedLiteral(*e.operands[i])) continue;
      args[i] = expr(*e.operands[i], nullptr);
      types[i] = args[i]->type;
    }
    // Literal arguments take the parameter type when it does not mention meta-parameters.
    for (size_t i = 0; i < args.size(); ++i) {
      if (args[i]) continue;
      I.diags.pushSilence();
      Type pt = I.resolveType(callee.params[i].type, calleeEnv);
      I.diags.popSilence();
      args[i] = expr(*e.operands[i], pt.isError() || pt.containsParam() ? nullptr : &pt);
      types[i] = args[i]->type;
    }
    for (const auto &t : types)
      if (t.isError()) return errorExpr(e.range);
    Sema::Impl::FnArgSources sources;
    sources.call = true;
    auto bound = I.bindFnTypeArgs(callee, false, {}, &types, env, e.range, true, &sources);
    if (!bound) return errorExpr(e.range);
    const hl::ScalarFunction *inst = I.instantiateFn(callee, *bound, prog, e.range);
    if (!inst) return errorExpr(e.range);
    for (size_t i = 0; i < args.size(); ++i)
      if (inst->localTypes[i] != types[i] && !inst->localTypes[i].isError()) {
        I.error("E0310", e.operands[i]->range, fmt::format("expected `{}`, found `{}`", inst->localTypes[i].str(), types[i].str()));
        return errorExpr(e.range);
      }
    auto r = make(SExpr::Kind::Call, inst->result, e.range);
    r->callee = inst;
    r->args = std::move(args);
    return r;
  }
};

} // namespace

bool Sema::Impl::unify(const ast::TypeRef &pattern, const Type &actual, const ast::FnDecl &fn,
                       std::map<std::string, Type> &bound, const Env &declEnv) {
  if (pattern.kind == ast::TypeRef::Kind::Named) {
    const std::string &n = pattern.name.name;
    bool isParam = false;
    for (const auto &p : fn.metaParams)
      if (p.name.name == n) isParam = true;
    if (isParam) {
      auto [it, inserted] = bound.emplace(n, actual);
      return inserted || it->second == actual;
    }
    diags.pushSilence();
    Type t = resolveType(pattern, declEnv);
    diags.popSilence();
    return t.isError() || t == actual;
  }
  if (pattern.kind == ast::TypeRef::Kind::Tuple) {
    if (actual.kind != Type::Kind::Tuple || actual.elems.size() != pattern.elems.size()) return false;
    for (size_t i = 0; i < pattern.elems.size(); ++i)
      if (!unify(pattern.elems[i], actual.elems[i], fn, bound, declEnv)) return false;
    return true;
  }
  return pattern.kind == ast::TypeRef::Kind::Unit ? actual.kind == Type::Kind::Unit : true;
}

std::optional<std::map<std::string, Type>> Sema::Impl::bindFnTypeArgs(const ast::FnDecl &fn, bool hasMetaArgs,
                                                                      const std::vector<ast::MetaArg> &metaArgs,
                                                                      const std::vector<Type> *argTypes,
                                                                      const Env &env, SourceRange use,
                                                                      bool reportFailure, const FnArgSources *sources) {
  std::map<std::string, Type> bound;
  if (hasMetaArgs) {
    if (metaArgs.size() > fn.metaParams.size()) {
      if (reportFailure)
        error("E0331", use, fmt::format("`{}` takes {} type argument{}, {} given", fn.name.name, fn.metaParams.size(),
                                        fn.metaParams.size() == 1 ? "" : "s", metaArgs.size()));
      return std::nullopt;
    }
    for (size_t i = 0; i < metaArgs.size(); ++i) {
      const auto &a = metaArgs[i];
      if (a.kind != ast::MetaArg::Kind::Type) {
        if (reportFailure) error("E0332", a.range, "expected a type argument");
        return std::nullopt;
      }
      Type t = resolveType(a.type, env);
      if (t.isError()) return std::nullopt;
      bound[fn.metaParams[i].name.name] = t;
    }
  }
  Env declEnv = genericEnv(fn);
  if (argTypes) {
    for (size_t i = 0; i < fn.params.size() && i < argTypes->size(); ++i) {
      if ((*argTypes)[i].isError()) return std::nullopt;
      if (!unify(fn.params[i].type, (*argTypes)[i], fn, bound, declEnv)) {
        if (reportFailure && sources && i < sources->buffers.size() && !sources->buffers[i].empty()) {
          // md_hom's f: no call in the source, so name the parameter and the buffer.
          Env partial = declEnv;
          for (const auto &[k, v] : bound) partial.types[k] = v;
          diags.pushSilence();
          Type pt = resolveType(fn.params[i].type, partial);
          diags.popSilence();
          std::string written = printType(fn.params[i].type);
          std::string shown = pt.isError() || pt.str() == written
                                  ? fmt::format("`{}`", written)
                                  : fmt::format("`{}` (here `{}`)", written, pt.str());
          error("E0630", fn.params[i].range,
                fmt::format("parameter `{}` of `{}` has type {}, but buffer `{}` holds `{}`", fn.params[i].name.name,
                            fn.name.name, shown, sources->buffers[i], (*argTypes)[i].str()),
                "change the parameter or the view's element type");
          note(use, fmt::format("`{}` is md_hom's scalar function here", fn.name.name));
        } else if (reportFailure) {
          error("E0333", use, fmt::format("argument {} of `{}` has type `{}`, which does not match its parameter `{}`",
                                          i + 1, fn.name.name, (*argTypes)[i].str(), fn.params[i].name.name));
          note(fn.params[i].range, "parameter declared here");
        }
        return std::nullopt;
      }
    }
  }
  for (const auto &p : fn.metaParams)
    if (!p.name.empty() && !bound.count(p.name.name)) {
      if (reportFailure) {
        std::function<bool(const ast::TypeRef &)> mentions = [&](const ast::TypeRef &t) {
          if (t.kind == ast::TypeRef::Kind::Named) return t.name.name == p.name.name;
          for (const auto &e : t.elems)
            if (mentions(e)) return true;
          return false;
        };
        bool inParams = false;
        for (const auto &prm : fn.params) inParams |= mentions(prm.type);
        std::string hint;
        if (sources && sources->call)
          hint = fmt::format("`{}` appears in no parameter type of `{}`, so no call can deduce it (calls take no "
                             "meta-arguments); use it in a parameter type or remove it",
                             p.name.name, fn.name.name);
        else if (!inParams)
          hint = fmt::format("`{}` appears in no parameter type of `{}`; give it explicitly, e.g. `{}<{}>`",
                             p.name.name, fn.name.name, fn.name.name,
                             fmt::join(std::vector<std::string>(fn.metaParams.size(), "f32"), ", "));
        else
          hint = fmt::format("give it explicitly, e.g. `{}<f32>`, or give the view's element types", fn.name.name);
        error("E0334", use, fmt::format("cannot deduce type parameter `{}` of `{}`", p.name.name, fn.name.name), hint);
      }
      return std::nullopt;
    }
  return bound;
}

const hl::ScalarFunction *Sema::Impl::instantiateFn(const ast::FnDecl &fn, const std::map<std::string, Type> &typeArgs,
                                                    hl::Program &prog, SourceRange use) {
  std::string name = fn.name.name;
  std::vector<Type> args;
  for (const auto &p : fn.metaParams) {
    auto it = typeArgs.find(p.name.name);
    name += "_" + (it != typeArgs.end() ? mangle(it->second) : std::string("?"));
    args.push_back(it != typeArgs.end() ? it->second : Type::error());
  }
  for (const auto &f : prog.functions)
    if (f->sourceName == fn.name.name && f->typeArgs == args) return f.get();
  // The readable name can collide: g<A, i32_f32> and g<A_i32, f32> are both g_A_i32_f32.
  auto taken = [&](const std::string &n) {
    for (const auto &f : prog.functions)
      if (f->name == n) return true;
    return false;
  };
  std::string unique = name;
  for (int k = 2; taken(unique); ++k) unique = name + "_" + std::to_string(k);
  Env env;
  for (const auto &[k, v] : typeArgs) env.types[k] = v;
  auto sf = std::make_unique<hl::ScalarFunction>();
  sf->name = unique;
  sf->sourceName = fn.name.name;
  sf->typeArgs = std::move(args);
  sf->assoc = fn.hasAttribute("assoc");
  sf->comm = fn.hasAttribute("comm");
  sf->range = fn.range;
  fnStack.push_back(&fn);
  size_t before = diags.errorCount();
  FnChecker(*this, prog, fn, env, *sf).run();
  fnStack.pop_back();
  bool failed = diags.errorCount() != before;
  if (failed) {
    bool concrete = true;
    for (const auto &[k, v] : typeArgs) concrete &= !v.containsParam();
    if (concrete && !typeArgs.empty()) {
      std::vector<std::string> parts;
      for (const auto &[k, v] : typeArgs) parts.push_back(k + " = " + v.str());
      diags.note(use, fmt::format("while instantiating `{}` with {}", fn.name.name, fmt::join(parts, ", ")));
    }
    return nullptr;
  }
  prog.functions.push_back(std::move(sf));
  for (const auto &t : prog.functions.back()->localTypes)
    if (t.kind == Type::Kind::Record) {
      bool have = false;
      for (const auto &r : prog.records) have |= r == t.record;
      if (!have) prog.records.push_back(t.record);
    }
  return prog.functions.back().get();
}

} // namespace mdh
