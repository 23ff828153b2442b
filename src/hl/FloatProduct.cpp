// FloatProduct.cpp — see FloatProduct.h.
#include "hl/FloatProduct.h"

#include "hl/HLIR.h"

#include <set>

namespace mdh::hl {

bool multipliesTwoFloats(const ScalarFunction &f) {
  if (f.numParams != 2 || f.body.size() != 1 || !f.result.isFloat()) return false;
  if (f.localTypes.size() < 2 || f.localTypes[0] != f.result || f.localTypes[1] != f.result) return false;
  const SStmt &ret = *f.body[0];
  if (ret.kind != SStmt::Kind::Return || !ret.value) return false;
  const SExpr &e = *ret.value;
  if (e.kind != SExpr::Kind::Binary || e.binOp != BinOp::Mul || e.type != f.result || e.args.size() != 2) return false;
  std::set<int> slots;
  for (const auto &arg : e.args) {
    if (arg->kind != SExpr::Kind::Local || arg->type != f.result) return false;
    slots.insert(arg->slot);
  }
  return slots == std::set<int>{0, 1};
}

bool sumsFloatProducts(const Program &p) {
  if (!p.f || !multipliesTwoFloats(*p.f)) return false;
  bool reduces = false;
  for (const CombineOperator &c : p.ops) {
    if (c.kind == CombineOperator::Kind::Concat) continue;
    if (c.kind != CombineOperator::Kind::PointWise || c.op.kind != BinaryOperator::Kind::Builtin ||
        c.op.builtin != BuiltinOp::Add || c.op.type != p.f->result)
      return false;
    reduces = true;
  }
  return reduces;
}

} // namespace mdh::hl
