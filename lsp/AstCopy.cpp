/** \file
 * The copier: one function per AST node type, mirroring ast/AST.h.
 */
#include "AstCopy.h"

namespace mdh::lsp {

SourceRange RangeShift::operator()(const SourceRange &r) const {
  if (observe) (*observe)(r);
  if (!r.valid()) return r;
  // {0, 0} is the parser's "no position" for a construct error recovery left
  // out; it means the same wherever the piece came from.
  if (r.begin == 0 && r.end == 0) return {file, 0, 0};
  return {file, uint32_t(int64_t(r.begin) + delta), uint32_t(int64_t(r.end) + delta)};
}

namespace {

using namespace ast;

Ident copy(const Ident &i, const RangeShift &s) { return {i.name, s(i.range)}; }

TypeRef copy(const TypeRef &t, const RangeShift &s) {
  TypeRef o;
  o.kind = t.kind;
  o.name = copy(t.name, s);
  for (const auto &e : t.elems) o.elems.push_back(copy(e, s));
  o.range = s(t.range);
  return o;
}

SizeExprPtr copy(const SizeExprPtr &p, const RangeShift &s) {
  if (!p) return nullptr;
  auto o = std::make_unique<SizeExpr>();
  o->kind = p->kind;
  o->value = p->value;
  o->name = copy(p->name, s);
  o->lhs = copy(p->lhs, s);
  o->rhs = copy(p->rhs, s);
  o->range = s(p->range);
  return o;
}

MetaParam copy(const MetaParam &m, const RangeShift &s) { return {copy(m.name, s), copy(m.kind, s), s(m.range)}; }

MetaArg copy(const MetaArg &m, const RangeShift &s) {
  MetaArg o;
  o.kind = m.kind;
  o.type = copy(m.type, s);
  o.size = copy(m.size, s);
  o.range = s(m.range);
  return o;
}

std::vector<MetaArg> copy(const std::vector<MetaArg> &v, const RangeShift &s) {
  std::vector<MetaArg> o;
  for (const auto &m : v) o.push_back(copy(m, s));
  return o;
}

ExprPtr copy(const ExprPtr &p, const RangeShift &s) {
  if (!p) return nullptr;
  auto o = std::make_unique<Expr>();
  o->kind = p->kind;
  o->range = s(p->range);
  o->text = p->text;
  o->intValue = p->intValue;
  o->intOverflow = p->intOverflow;
  o->floatValue = p->floatValue;
  o->boolValue = p->boolValue;
  o->name = copy(p->name, s);
  o->unaryOp = p->unaryOp;
  o->binaryOp = p->binaryOp;
  for (const auto &e : p->operands) o->operands.push_back(copy(e, s));
  o->castType = copy(p->castType, s);
  for (const auto &f : p->fields) o->fields.push_back({copy(f.name, s), copy(f.value, s)});
  return o;
}

std::vector<StmtPtr> copy(const std::vector<StmtPtr> &v, const RangeShift &s);

StmtPtr copy(const StmtPtr &p, const RangeShift &s) {
  if (!p) return nullptr;
  auto o = std::make_unique<Stmt>();
  o->kind = p->kind;
  o->range = s(p->range);
  o->name = copy(p->name, s);
  o->isMutable = p->isMutable;
  if (p->declaredType) o->declaredType = copy(*p->declaredType, s);
  o->assignOp = p->assignOp;
  o->value = copy(p->value, s);
  o->body = copy(p->body, s);
  o->elseBody = copy(p->elseBody, s);
  o->hasElse = p->hasElse;
  // An offset, not a range: shifted like one (0 stays "unknown").
  o->thenEnd = p->thenEnd > 0 ? uint32_t(int64_t(p->thenEnd) + s.delta) : 0;
  for (const auto &n : p->damagedNames) o->damagedNames.push_back(copy(n, s));
  return o;
}

std::vector<StmtPtr> copy(const std::vector<StmtPtr> &v, const RangeShift &s) {
  std::vector<StmtPtr> o;
  for (const auto &x : v) o.push_back(copy(x, s));
  return o;
}

OpRef copy(const OpRef &r, const RangeShift &s) {
  OpRef o;
  o.kind = r.kind;
  o.symbol = r.symbol;
  o.name = copy(r.name, s);
  o.hasMetaArgs = r.hasMetaArgs;
  o.metaArgs = copy(r.metaArgs, s);
  for (const auto &e : r.elems) o.elems.push_back(copy(e, s));
  o.range = s(r.range);
  return o;
}

CombineOp copy(const CombineOp &c, const RangeShift &s) {
  CombineOp o;
  o.kind = c.kind;
  o.op = copy(c.op, s);
  o.symbolShorthand = c.symbolShorthand;
  o.name = copy(c.name, s);
  o.hasMetaArgs = c.hasMetaArgs;
  o.metaArgs = copy(c.metaArgs, s);
  o.range = s(c.range);
  return o;
}

IndexFn copy(const IndexFn &f, const RangeShift &s) {
  IndexFn o;
  for (const auto &p : f.params) o.params.push_back(copy(p, s));
  for (const auto &e : f.results) o.results.push_back(copy(e, s));
  o.range = s(f.range);
  return o;
}

BufferView copy(const BufferView &b, const RangeShift &s) {
  BufferView o;
  o.name = copy(b.name, s);
  o.hasShape = b.hasShape;
  for (const auto &e : b.shape) o.shape.push_back(copy(e, s));
  for (const auto &a : b.accesses) o.accesses.push_back(copy(a, s));
  o.range = s(b.range);
  return o;
}

ScalarFnRef copy(const ScalarFnRef &f, const RangeShift &s) {
  ScalarFnRef o;
  o.isSymbol = f.isSymbol;
  o.symbol = f.symbol;
  o.name = copy(f.name, s);
  o.hasMetaArgs = f.hasMetaArgs;
  o.metaArgs = copy(f.metaArgs, s);
  o.range = s(f.range);
  return o;
}

Stage copy(const Stage &st, const RangeShift &s) {
  Stage o;
  o.kind = st.kind;
  o.name = copy(st.name, s);
  o.hasMetaArgs = st.hasMetaArgs;
  o.metaArgs = copy(st.metaArgs, s);
  for (const auto &b : st.buffers) o.buffers.push_back(copy(b, s));
  o.fn = copy(st.fn, s);
  for (const auto &c : st.ops) o.ops.push_back(copy(c, s));
  o.range = s(st.range);
  return o;
}

void copyBase(const Decl &d, Decl &o, const RangeShift &s) {
  o.name = copy(d.name, s);
  for (const auto &m : d.metaParams) o.metaParams.push_back(copy(m, s));
  o.hasMetaParams = d.hasMetaParams;
  o.doc = d.doc;
  o.range = s(d.range);
}

} // namespace

std::unique_ptr<ast::Decl> copyDecl(const ast::Decl &d, const RangeShift &s) {
  switch (d.kind) {
  case Decl::Kind::Fn: {
    const auto &f = *d.as<FnDecl>();
    auto o = std::make_unique<FnDecl>();
    copyBase(d, *o, s);
    for (const auto &a : f.attributes) o->attributes.push_back(copy(a, s));
    for (const auto &p : f.params) o->params.push_back({copy(p.name, s), copy(p.type, s), s(p.range)});
    if (f.result) o->result = copy(*f.result, s);
    o->exprBody = f.exprBody;
    o->bodyMissing = f.bodyMissing;
    o->bodyDamaged = f.bodyDamaged;
    o->body = copy(f.body, s);
    return o;
  }
  case Decl::Kind::Record: {
    const auto &r = *d.as<RecordDecl>();
    auto o = std::make_unique<RecordDecl>();
    copyBase(d, *o, s);
    for (const auto &f : r.fields) o->fields.push_back({copy(f.name, s), copy(f.type, s), s(f.range)});
    return o;
  }
  case Decl::Kind::Combine: {
    auto o = std::make_unique<CombineDecl>();
    copyBase(d, *o, s);
    o->op = copy(d.as<CombineDecl>()->op, s);
    return o;
  }
  case Decl::Kind::View: {
    auto o = std::make_unique<ViewDecl>();
    copyBase(d, *o, s);
    o->stage = copy(d.as<ViewDecl>()->stage, s);
    return o;
  }
  case Decl::Kind::Mdh: {
    const auto &m = *d.as<MdhDecl>();
    auto o = std::make_unique<MdhDecl>();
    copyBase(d, *o, s);
    for (const auto &st : m.stages) o->stages.push_back(copy(st, s));
    for (const auto &r : m.composeOps) o->composeOps.push_back(s(r));
    return o;
  }
  }
  return nullptr;
}

ast::Import copyImport(const ast::Import &i, const RangeShift &s) {
  ast::Import o;
  for (const auto &p : i.path) o.path.push_back(copy(p, s));
  o.range = s(i.range);
  return o;
}

ast::Comment copyComment(const ast::Comment &c, const RangeShift &s) { return {s(c.range), c.text, c.isDoc}; }

void forEachRange(const ast::Module &m, const std::function<void(const SourceRange &)> &f) {
  RangeShift s{m.file, 0, &f};
  for (const auto &[isImport, i] : m.order) {
    if (isImport && i < m.imports.size()) copyImport(m.imports[i], s);
    else if (!isImport && i < m.decls.size() && m.decls[i]) copyDecl(*m.decls[i], s);
  }
  for (const auto &c : m.comments) copyComment(c, s);
}

} // namespace mdh::lsp
