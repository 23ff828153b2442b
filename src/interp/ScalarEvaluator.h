/** \file
 * Evaluation of the HL scalar IR (scalar functions and user operators) over
 * a number domain D (NativeArith or PreciseArith).
 *
 * Values are runs of leaves (LeafLayout.h) on one presized stack, so an
 * application allocates nothing.  Semantics (docs/language.md §8, §14):
 * integers wrap modulo 2^n (IntegerArith.h); `&&`, `||` and `?:` evaluate
 * only what they need; integer division by zero is an error reported with
 * the current MDA index; with --trap-overflow the first integer result that
 * does not fit its type is an error too; floats follow the domain.
 * Invariants: the stack is sized for the deepest call chain before any
 * evaluation (reserve()), so pointers into it stay valid; arguments() is the
 * parameter area of the outermost frame.
 */
#pragma once

#include "interp/EvalLocation.h"
#include "interp/IntegerArith.h"
#include "interp/PreparedFunction.h"
#include "interp/RuntimeError.h"

#include <fmt/format.h>

#include <vector>

namespace mdh::interp {

template <class D> class ScalarEvaluator {
public:
  using Value = typename D::Value;

  ScalarEvaluator(bool trapOverflow, const EvalLocation &where) : trapOverflow_(trapOverflow), where_(where) {}

  /// Makes room for calls of `fn` (call once per function before evaluating).
  void reserve(const PreparedFunction &fn) {
    if (stack_.size() < fn.stackLeaves + 1) stack_.resize(fn.stackLeaves + 1);
  }

  /// Parameter area of the outermost frame: put the arguments here, then run().
  Value *arguments() { return stack_.data(); }

  /// Runs `fn` on the arguments in arguments() and writes its result leaves to `result`
  /// (which must not point into the stack).
  void run(const PreparedFunction &fn, Value *result) { call(fn, stack_.data(), result); }

  /// One built-in combine operation ⊕ on a primitive leaf (pw(add), ps(max), ...).
  Value builtinOperator(hl::BuiltinOp op, Type::Kind k, const Value &a, const Value &b, SourceRange range) {
    const bool isBool = k == Type::Kind::Bool;
    switch (op) {
    case hl::BuiltinOp::Add: return arithmetic(hl::BinOp::Add, k, a, b, range);
    case hl::BuiltinOp::Mul: return arithmetic(hl::BinOp::Mul, k, a, b, range);
    case hl::BuiltinOp::Max:
    case hl::BuiltinOp::Min: {
      Value args[3] = {a, b, b};
      return builtin(op == hl::BuiltinOp::Max ? hl::Builtin::Max : hl::Builtin::Min, k, args, range);
    }
    case hl::BuiltinOp::And: return D::fromBits(isBool ? (D::bits(a) && D::bits(b)) : (D::bits(a) & D::bits(b)));
    case hl::BuiltinOp::Or: return D::fromBits(isBool ? (D::bits(a) || D::bits(b)) : (D::bits(a) | D::bits(b)));
    case hl::BuiltinOp::Xor: return D::fromBits(D::bits(a) ^ D::bits(b));
    }
    return a;
  }

private:
  bool trapOverflow_;
  const EvalLocation &where_;
  std::vector<Value> stack_;
  Value *frameEnd_ = nullptr; ///< end of the running function's frame

  [[noreturn]] void fail(const char *code, SourceRange range, const std::string &what, std::string hint = {}) {
    throw RuntimeError(code, fmt::format("{} {}", what, where_.describe()), range, std::move(hint));
  }

  // ---- statements -------------------------------------------------------------------------
  void call(const PreparedFunction &fn, Value *frame, Value *result) {
    Value *callerFrameEnd = frameEnd_;
    frameEnd_ = frame + fn.frameLeaves; // callees of fn start here
    if (!block(fn.body, frame, result))
      throw std::logic_error("scalar function `" + fn.name + "` ended without `return`");
    frameEnd_ = callerFrameEnd;
  }

  /// Returns true once a `return` has written the result.
  bool block(const std::vector<PreparedStmt> &stmts, Value *frame, Value *result) {
    for (const auto &s : stmts) {
      switch (s.op) {
      case PreparedStmt::Op::Assign:
        if (s.value.isPrimitive()) {
          frame[s.offset] = primitive(s.value, frame);
        } else {
          // Stage the new value first: it may read the slot it replaces.
          into(s.value, frame, frame + s.temp);
          std::copy(frame + s.temp, frame + s.temp + s.leaves, frame + s.offset);
        }
        break;
      case PreparedStmt::Op::Return: into(s.value, frame, result); return true;
      case PreparedStmt::Op::If:
        if (D::bits(primitive(s.value, frame)) ? block(s.thenBody, frame, result) : block(s.elseBody, frame, result))
          return true;
        break;
      case PreparedStmt::Op::Block:
        if (block(s.thenBody, frame, result)) return true;
        break;
      }
    }
    return false;
  }

  // ---- expressions ------------------------------------------------------------------------
  /// Any expression: writes its leaves to dst.
  void into(const PreparedExpr &e, Value *frame, Value *dst) {
    switch (e.op) {
    case PreparedExpr::Op::Local: std::copy(frame + e.offset, frame + e.offset + e.leaves, dst); return;
    case PreparedExpr::Op::Cond:
      into(D::bits(primitive(e.args[0], frame)) ? e.args[1] : e.args[2], frame, dst);
      return;
    case PreparedExpr::Op::Call: {
      const PreparedFunction &callee = *e.callee;
      Value *args = frame + e.temp;
      uint32_t at = 0;
      for (const auto &a : e.args) {
        into(a, frame, args + at);
        at += a.leaves;
      }
      Value *calleeFrame = frameEnd_;
      std::copy(args, args + callee.paramLeaves, calleeFrame);
      call(callee, calleeFrame, dst);
      return;
    }
    case PreparedExpr::Op::Aggregate:
      for (size_t i = 0; i < e.args.size(); ++i) into(e.args[i], frame, dst + e.partOffsets[i]);
      return;
    case PreparedExpr::Op::Field: {
      Value *base = frame + e.temp;
      into(e.args[0], frame, base);
      std::copy(base + e.offset, base + e.offset + e.leaves, dst);
      return;
    }
    default: *dst = primitive(e, frame); return;
    }
  }

  /// A primitive-valued expression.
  Value primitive(const PreparedExpr &e, Value *frame) {
    switch (e.op) {
    case PreparedExpr::Op::Const:
      return D::isFloat(e.kind) ? D::floatConstant(e.kind, e.constant.fvalue) : D::fromBits(e.constant.bits);
    case PreparedExpr::Op::Local: return frame[e.offset];
    case PreparedExpr::Op::Unary: return unary(e, primitive(e.args[0], frame));
    case PreparedExpr::Op::Binary: {
      if (e.binOp == hl::BinOp::And)
        return D::fromBits(D::bits(primitive(e.args[0], frame)) && D::bits(primitive(e.args[1], frame)) ? 1 : 0);
      if (e.binOp == hl::BinOp::Or)
        return D::fromBits(D::bits(primitive(e.args[0], frame)) || D::bits(primitive(e.args[1], frame)) ? 1 : 0);
      Value a = primitive(e.args[0], frame);
      Value b = primitive(e.args[1], frame);
      return binary(e, a, b);
    }
    case PreparedExpr::Op::Cond:
      return primitive(D::bits(primitive(e.args[0], frame)) ? e.args[1] : e.args[2], frame);
    case PreparedExpr::Op::Cast: return cast(e.kind, e.operandKind, primitive(e.args[0], frame));
    case PreparedExpr::Op::Builtin: {
      Value args[3] = {D::fromBits(0), D::fromBits(0), D::fromBits(0)};
      for (size_t i = 0; i < e.args.size() && i < 3; ++i) args[i] = primitive(e.args[i], frame);
      return builtin(e.builtin, e.operandKind, args, e.range);
    }
    default: {
      Value v[1];
      into(e, frame, v); // a call, field or aggregate of one leaf
      return v[0];
    }
    }
  }

  Value unary(const PreparedExpr &e, const Value &a) {
    const Type::Kind k = e.operandKind;
    switch (e.unOp) {
    case hl::UnOp::Neg:
      if (D::isFloat(k)) return D::floatNeg(k, a);
      return checked(intarith::neg(k, D::bits(a)), e.range, [&] {
        const std::string v = D::format(k, a); // `-(-128)`, not `--128` (a decrement)
        return v.rfind('-', 0) == 0 ? fmt::format("-({})", v) : "-" + v;
      }, k);
    case hl::UnOp::Not: return D::fromBits(D::bits(a) ? 0 : 1);
    case hl::UnOp::BitNot: return D::fromBits(intarith::bitNot(k, D::bits(a)));
    }
    return a;
  }

  Value binary(const PreparedExpr &e, const Value &a, const Value &b) {
    const Type::Kind k = e.operandKind;
    switch (e.binOp) {
    case hl::BinOp::Lt:
    case hl::BinOp::Le:
    case hl::BinOp::Gt:
    case hl::BinOp::Ge:
    case hl::BinOp::Eq:
    case hl::BinOp::Ne: {
      bool r;
      if (D::isFloat(k)) {
        r = D::floatCompare(e.binOp, k, a, b);
      } else {
        int c = intarith::compare(k, D::bits(a), D::bits(b));
        r = e.binOp == hl::BinOp::Lt   ? c < 0
            : e.binOp == hl::BinOp::Le ? c <= 0
            : e.binOp == hl::BinOp::Gt ? c > 0
            : e.binOp == hl::BinOp::Ge ? c >= 0
            : e.binOp == hl::BinOp::Eq ? c == 0
                                       : c != 0;
      }
      return D::fromBits(r ? 1 : 0);
    }
    case hl::BinOp::Shl: return D::fromBits(intarith::shl(k, D::bits(a), D::bits(b)));
    case hl::BinOp::Shr: return D::fromBits(intarith::shr(k, D::bits(a), D::bits(b)));
    case hl::BinOp::BitAnd: return D::fromBits(D::bits(a) & D::bits(b));
    case hl::BinOp::BitOr: return D::fromBits(D::bits(a) | D::bits(b));
    case hl::BinOp::BitXor: return D::fromBits(D::bits(a) ^ D::bits(b));
    default: return arithmetic(e.binOp, k, a, b, e.range);
    }
  }

  /// + - * / % on two values of kind k.
  Value arithmetic(hl::BinOp op, Type::Kind k, const Value &a, const Value &b, SourceRange range) {
    if (D::isFloat(k)) return D::floatArith(op, k, a, b);
    const uint64_t x = D::bits(a), y = D::bits(b);
    auto text = [&] { return fmt::format("{} {} {}", D::format(k, a), hl::binOpSpelling(op), D::format(k, b)); };
    switch (op) {
    case hl::BinOp::Add: return checked(intarith::add(k, x, y), range, text, k);
    case hl::BinOp::Sub: return checked(intarith::sub(k, x, y), range, text, k);
    case hl::BinOp::Mul: return checked(intarith::mul(k, x, y), range, text, k);
    case hl::BinOp::Div:
    case hl::BinOp::Mod:
      if (y == 0)
        fail(codes::kDivisionByZero, range, fmt::format("integer division by zero (`{}`)", text()),
             "guard the divisor, e.g. `d == 0 ? 0 : n / d`; generated code yields 0 here");
      return checked(op == hl::BinOp::Div ? intarith::div(k, x, y) : intarith::mod(k, x, y), range, text, k);
    default: return a;
    }
  }

  template <class Text> Value checked(intarith::Result r, SourceRange range, const Text &text, Type::Kind k) {
    if (r.overflow && trapOverflow_)
      fail(codes::kIntegerOverflow, range,
           fmt::format("integer overflow: `{}` does not fit in {} (wraps to {})", text(), Type::prim(k).str(),
                       intarith::toString(k, r.bits)),
           "without --trap-overflow the result wraps around modulo 2^n");
    return D::fromBits(r.bits);
  }

  Value cast(Type::Kind to, Type::Kind from, const Value &a) {
    if (to == from) return a;
    if (to == Type::Kind::Bool) {
      if (D::isFloat(from)) return D::fromBits(D::floatIsNonZero(from, a) ? 1 : 0);
      return D::fromBits(D::bits(a) != 0 ? 1 : 0);
    }
    if (D::isFloat(to)) return D::toFloat(to, from, a);
    if (D::isFloat(from)) return D::fromBits(D::floatToInt(to, from, a));
    return D::fromBits(intarith::canonical(to, D::bits(a)));
  }

  Value builtin(hl::Builtin b, Type::Kind k, const Value *args, SourceRange range) {
    if (D::isFloat(k)) return D::floatBuiltin(b, k, args);
    const uint64_t x = D::bits(args[0]), y = D::bits(args[1]);
    switch (b) {
    case hl::Builtin::Abs:
      return checked(intarith::abs(k, x), range, [&] { return fmt::format("abs({})", D::format(k, args[0])); }, k);
    case hl::Builtin::Min: return intarith::compare(k, x, y) <= 0 ? args[0] : args[1];
    case hl::Builtin::Max: return intarith::compare(k, x, y) >= 0 ? args[0] : args[1];
    default: throw std::logic_error(std::string("built-in `") + hl::builtinName(b) + "` on an integer");
    }
  }
};

} // namespace mdh::interp
