/** \file
 * Collecting SemaFacts: a walk over the generic program of every `mdh`.
 */
#include "SemaFacts.h"

#include <algorithm>

namespace mdh::lsp {

namespace {

void addUnique(std::vector<std::string> &v, const std::string &s) {
  if (std::find(v.begin(), v.end(), s) == v.end()) v.push_back(s);
}

struct Walker {
  std::map<std::tuple<FileId, uint32_t, uint32_t>, std::vector<std::string>> &exprs, &lets;
  const hl::ScalarFunction *fn = nullptr;

  void expr(const hl::SExpr &e, int depth = 0) {
    if (depth > 1000) return;
    if (e.range.valid() && !e.type.isError()) addUnique(exprs[{e.range.file, e.range.begin, e.range.end}], e.type.str());
    for (const auto &a : e.args)
      if (a) expr(*a, depth + 1);
  }
  void stmts(const std::vector<hl::SStmtPtr> &ss, int depth = 0) {
    if (depth > 1000) return;
    for (const auto &s : ss) {
      if (!s) continue;
      if (s->kind == hl::SStmt::Kind::Assign && s->slot >= 0 && size_t(s->slot) < fn->localTypes.size() &&
          s->range.valid())
        addUnique(lets[{s->range.file, s->range.begin, s->range.end}], fn->localTypes[size_t(s->slot)].str());
      if (s->value) expr(*s->value);
      stmts(s->thenBody, depth + 1);
      stmts(s->elseBody, depth + 1);
    }
  }
};

} // namespace

SemaFacts SemaFacts::collect(Compilation &comp) {
  SemaFacts f;
  for (const auto &m : comp.modules()) {
    for (const auto &d : m->decls) {
      if (d->kind != ast::Decl::Kind::Mdh || d->name.empty()) continue;
      const hl::Program *p = comp.sema().genericProgram(d->name.name);
      // A duplicate declaration is not in scope; its program (if any) is the first one's.
      if (!p || comp.sema().lookup(d->name.name) != d.get()) continue;
      f.programs_[d.get()] = p;
      for (int out = 0; out < 2; ++out)
        for (const auto &b : out ? p->outputs : p->inputs)
          f.buffers_[key(b.range)].push_back({p, &b, d.get(), out == 1});
      for (const auto &fn : p->functions) {
        if (!fn) continue;
        f.functions_[key(fn->range)].push_back(fn.get());
        Walker w{f.exprTypes_, f.letTypes_, fn.get()};
        w.stmts(fn->body);
      }
    }
  }
  return f;
}

const hl::Program *SemaFacts::programOf(const ast::Decl *mdh) const {
  auto it = programs_.find(mdh);
  return it == programs_.end() ? nullptr : it->second;
}

const std::vector<std::string> *SemaFacts::exprTypes(const SourceRange &r) const {
  auto it = exprTypes_.find(key(r));
  return it == exprTypes_.end() ? nullptr : &it->second;
}

const std::vector<std::string> *SemaFacts::letTypes(const SourceRange &r) const {
  auto it = letTypes_.find(key(r));
  return it == letTypes_.end() ? nullptr : &it->second;
}

std::vector<BufferFact> SemaFacts::buffersOf(const SourceRange &r, const ast::Decl *preferOwner) const {
  auto it = buffers_.find(key(r));
  if (it == buffers_.end()) return {};
  std::vector<BufferFact> out = it->second;
  std::stable_partition(out.begin(), out.end(), [&](const BufferFact &b) { return b.owner == preferOwner; });
  return out;
}

std::vector<const hl::ScalarFunction *> SemaFacts::instancesOf(const ast::FnDecl *fn) const {
  if (!fn) return {};
  auto it = functions_.find(key(fn->range));
  return it == functions_.end() ? std::vector<const hl::ScalarFunction *>{} : it->second;
}

} // namespace mdh::lsp
