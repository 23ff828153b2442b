/** \file
 * Preparation of a program's functions and operators.
 */
#include "interp/PreparedProgram.h"

#include "interp/LeafLayout.h"

#include <fmt/format.h>

#include <stdexcept>

namespace mdh::interp {

PreparedProgram::PreparedProgram(const hl::Program &p) : prog_(p) {
  if (!p.f) throw std::logic_error("program `" + p.name + "` has no scalar function");
  if (p.ops.size() != p.dims()) throw std::logic_error("program `" + p.name + "` needs one combine operator per dimension");
  f_ = &functions_.get(*p.f);
  const Type &elem = p.f->result;
  elementLeaves_ = leafCount(elem);
  const size_t nOut = p.numOutputAccesses();
  for (size_t k = 0; k < nOut; ++k) {
    if (nOut == 1) {
      accessFirst_.push_back(0);
      accessLeaves_.push_back(elementLeaves_);
    } else {
      accessFirst_.push_back(componentLeafOffset(elem, k));
      accessLeaves_.push_back(leafCount(elem.elems.at(k)));
    }
  }
  for (const auto &c : p.ops)
    ops_.push_back(c.kind == hl::CombineOperator::Kind::Concat ? PreparedOperator{} : prepareOperator(c.op, elem, 0));
}

PreparedOperator PreparedProgram::prepareOperator(const hl::BinaryOperator &op, const Type &t, uint32_t firstLeaf) {
  PreparedOperator r;
  r.kind = op.kind;
  r.builtin = op.builtin;
  r.firstLeaf = firstLeaf;
  r.leaves = leafCount(t);
  switch (op.kind) {
  case hl::BinaryOperator::Kind::Builtin: r.leafKinds = leafLayout(t).kinds; break;
  case hl::BinaryOperator::Kind::User: r.user = &functions_.get(*op.user); break;
  case hl::BinaryOperator::Kind::Tuple:
    if (t.kind != Type::Kind::Tuple || t.elems.size() != op.elems.size())
      throw std::logic_error("tuple operator `" + op.str() + "` on `" + t.str() + "`");
    for (size_t i = 0; i < op.elems.size(); ++i)
      r.parts.push_back(prepareOperator(op.elems[i], t.elems[i], firstLeaf + componentLeafOffset(t, i)));
    break;
  }
  return r;
}

std::vector<const PreparedFunction *> PreparedProgram::topLevelFunctions() const {
  std::vector<const PreparedFunction *> fns{f_};
  std::vector<const PreparedOperator *> todo;
  for (const auto &o : ops_) todo.push_back(&o);
  while (!todo.empty()) {
    const PreparedOperator *o = todo.back();
    todo.pop_back();
    if (o->user) fns.push_back(o->user);
    for (const auto &p : o->parts) todo.push_back(&p);
  }
  return fns;
}

std::string PreparedProgram::dimName(size_t d) const {
  if (d < prog_.dimNames.size() && !prog_.dimNames[d].empty()) return prog_.dimNames[d];
  return fmt::format("i{}", d + 1);
}

} // namespace mdh::interp
