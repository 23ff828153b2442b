/** \file
 * Frame layout of scalar functions.
 */
#include "interp/PreparedFunction.h"

#include "interp/LeafLayout.h"

#include <stdexcept>

namespace mdh::interp {

namespace {

Type::Kind primitiveKind(const Type &t) { return t.isPrimitive() ? t.kind : Type::Kind::Error; }

class Preparer {
public:
  Preparer(PreparedFunctions &all, const hl::ScalarFunction &src, PreparedFunction &out) : all_(all), src_(src), out_(out) {}

  void run() {
    uint32_t next = 0;
    for (size_t i = 0; i < src_.localTypes.size(); ++i) {
      slotOffset_.push_back(next);
      slotLeaves_.push_back(leafCount(src_.localTypes[i]));
      next += slotLeaves_.back();
      if (i + 1 == src_.numParams) out_.paramLeaves = next;
    }
    if (src_.numParams == 0) out_.paramLeaves = 0;
    frameTop_ = next;
    out_.name = src_.sourceName.empty() ? src_.name : src_.sourceName;
    out_.source = &src_;
    out_.resultLeaves = leafCount(src_.result);
    for (const auto &s : src_.body) out_.body.push_back(stmt(*s));
    out_.frameLeaves = frameTop_;
    out_.stackLeaves = out_.frameLeaves + deepestCallee_;
  }

private:
  PreparedFunctions &all_;
  const hl::ScalarFunction &src_;
  PreparedFunction &out_;
  std::vector<uint32_t> slotOffset_, slotLeaves_;
  uint32_t frameTop_ = 0;
  size_t deepestCallee_ = 0;

  uint32_t temporary(uint32_t leaves) {
    uint32_t at = frameTop_;
    frameTop_ += leaves;
    return at;
  }

  PreparedStmt stmt(const hl::SStmt &s) {
    PreparedStmt p;
    p.range = s.range;
    switch (s.kind) {
    case hl::SStmt::Kind::Assign:
      p.op = PreparedStmt::Op::Assign;
      p.offset = slotOffset_.at(size_t(s.slot));
      p.leaves = slotLeaves_.at(size_t(s.slot));
      p.value = expr(*s.value);
      if (!p.value.isPrimitive()) p.temp = temporary(p.leaves);
      break;
    case hl::SStmt::Kind::Return: p.op = PreparedStmt::Op::Return; p.value = expr(*s.value); break;
    case hl::SStmt::Kind::If:
      p.op = PreparedStmt::Op::If;
      p.value = expr(*s.value);
      for (const auto &t : s.thenBody) p.thenBody.push_back(stmt(*t));
      for (const auto &e : s.elseBody) p.elseBody.push_back(stmt(*e));
      break;
    case hl::SStmt::Kind::Block:
      p.op = PreparedStmt::Op::Block;
      for (const auto &t : s.thenBody) p.thenBody.push_back(stmt(*t));
      break;
    }
    return p;
  }

  /// A field chain on a local (`z.re`, `(t.0).1`) is a slice of the local's leaves.
  bool localSlice(const hl::SExpr &e, uint32_t &offset) {
    if (e.kind == hl::SExpr::Kind::Local) {
      offset = slotOffset_.at(size_t(e.slot));
      return true;
    }
    if (e.kind == hl::SExpr::Kind::Field && localSlice(*e.args[0], offset)) {
      offset += componentLeafOffset(e.args[0]->type, size_t(e.field));
      return true;
    }
    return false;
  }

  PreparedExpr expr(const hl::SExpr &e) {
    PreparedExpr p;
    p.range = e.range;
    p.kind = primitiveKind(e.type);
    p.leaves = leafCount(e.type);
    if (e.type.isError() || e.type.containsParam())
      throw std::logic_error("the interpreter needs an instantiated program without errors");
    uint32_t slice = 0;
    switch (e.kind) {
    case hl::SExpr::Kind::Const: p.op = PreparedExpr::Op::Const; p.constant = e.value; return p;
    case hl::SExpr::Kind::Local:
      p.op = PreparedExpr::Op::Local;
      p.offset = slotOffset_.at(size_t(e.slot));
      return p;
    case hl::SExpr::Kind::Field:
      if (localSlice(e, slice)) {
        p.op = PreparedExpr::Op::Local;
        p.offset = slice;
        return p;
      }
      p.op = PreparedExpr::Op::Field;
      p.offset = componentLeafOffset(e.args[0]->type, size_t(e.field));
      p.args.push_back(expr(*e.args[0]));
      p.temp = temporary(p.args[0].leaves);
      return p;
    case hl::SExpr::Kind::Unary: p.op = PreparedExpr::Op::Unary; p.unOp = e.unOp; break;
    case hl::SExpr::Kind::Binary: p.op = PreparedExpr::Op::Binary; p.binOp = e.binOp; break;
    case hl::SExpr::Kind::Cond: p.op = PreparedExpr::Op::Cond; break;
    case hl::SExpr::Kind::Cast: p.op = PreparedExpr::Op::Cast; break;
    case hl::SExpr::Kind::Builtin: p.op = PreparedExpr::Op::Builtin; p.builtin = e.builtin; break;
    case hl::SExpr::Kind::Call: {
      p.op = PreparedExpr::Op::Call;
      p.callee = &all_.get(*e.callee);
      p.temp = temporary(p.callee->paramLeaves);
      deepestCallee_ = std::max(deepestCallee_, p.callee->stackLeaves);
      break;
    }
    case hl::SExpr::Kind::Tuple:
    case hl::SExpr::Kind::Record: {
      p.op = PreparedExpr::Op::Aggregate;
      for (size_t i = 0; i < e.args.size(); ++i) p.partOffsets.push_back(componentLeafOffset(e.type, i));
      break;
    }
    }
    for (const auto &a : e.args) p.args.push_back(expr(*a));
    if (!p.args.empty()) p.operandKind = p.args[0].kind;
    return p;
  }
};

} // namespace

const PreparedFunction &PreparedFunctions::get(const hl::ScalarFunction &fn) {
  auto it = fns_.find(&fn);
  if (it != fns_.end()) return *it->second;
  auto p = std::make_unique<PreparedFunction>();
  PreparedFunction &ref = *p;
  fns_.emplace(&fn, std::move(p));
  Preparer(*this, fn, ref).run();
  return ref;
}

} // namespace mdh::interp
