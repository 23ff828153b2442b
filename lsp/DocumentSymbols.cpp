/** \file
 * computeDocumentSymbols: the outline of the main file.  Declarations are
 * the top level; a record's fields, a function's parameters, a
 * declaration's meta-parameters and the buffers of its views are children.
 * Invariant (LSP): every selectionRange lies inside its range.
 */
#include "Describe.h"
#include "Features.h"
#include "ast/Printer.h"

namespace mdh::lsp {

namespace {

SymbolKind kindOf(const ast::Decl &d) {
  switch (d.kind) {
  case ast::Decl::Kind::Fn: return SymbolKind::Function;
  case ast::Decl::Kind::Record: return SymbolKind::Struct;
  case ast::Decl::Kind::Combine: return SymbolKind::Operator;
  case ast::Decl::Kind::View: return SymbolKind::Interface;
  case ast::Decl::Kind::Mdh: return SymbolKind::Class;
  }
  return SymbolKind::Variable;
}

DocumentSymbol make(const Analysis &a, const std::string &name, const std::string &detail, SymbolKind kind,
                    SourceRange whole, SourceRange sel) {
  if (!sel.valid()) sel = whole;
  if (!whole.valid()) whole = sel;
  whole = SourceRange::merge(whole, sel);
  DocumentSymbol s;
  s.name = name;
  s.detail = detail;
  s.kind = kind;
  s.range = a.range(whole);
  s.selectionRange = a.range(sel);
  return s;
}

void addBuffers(const Analysis &a, const ast::Stage &st, const ast::Decl &owner, DocumentSymbol &parent) {
  if (st.kind != ast::Stage::Kind::InpView && st.kind != ast::Stage::Kind::OutView) return;
  for (const auto &b : st.buffers) {
    if (b.name.empty()) continue;
    std::string detail = st.kind == ast::Stage::Kind::OutView ? "output" : "input";
    auto facts = a.facts().buffersOf(b.range, &owner);
    if (!facts.empty()) detail += " " + bufferShape(*facts[0].buffer);
    parent.children.push_back(make(a, b.name.name, detail, SymbolKind::Variable, b.range, b.name.range));
  }
}

} // namespace

std::vector<DocumentSymbol> computeDocumentSymbols(const Analysis &a) {
  std::vector<DocumentSymbol> out;
  const ast::Module *m = a.mainModule();
  if (!m) return out;
  for (const auto &d : m->decls) {
    if (d->name.empty()) continue;
    std::string detail = declSignature(*d);
    if (detail.size() > 120) detail = detail.substr(0, 117) + "...";
    DocumentSymbol s = make(a, d->name.name, detail, kindOf(*d), d->range, d->name.range);
    for (const auto &mp : d->metaParams)
      if (!mp.name.empty())
        s.children.push_back(make(a, mp.name.name, mp.kind.name, SymbolKind::TypeParameter, mp.range, mp.name.range));
    if (const auto *fn = d->as<ast::FnDecl>()) {
      for (const auto &p : fn->params)
        if (!p.name.empty())
          s.children.push_back(make(a, p.name.name, ast::printType(p.type), SymbolKind::Variable, p.range, p.name.range));
    } else if (const auto *rec = d->as<ast::RecordDecl>()) {
      for (const auto &f : rec->fields)
        if (!f.name.empty())
          s.children.push_back(make(a, f.name.name, ast::printType(f.type), SymbolKind::Field, f.range, f.name.range));
    } else if (const auto *vd = d->as<ast::ViewDecl>()) {
      addBuffers(a, vd->stage, *d, s);
    } else if (const auto *md = d->as<ast::MdhDecl>()) {
      for (const auto &st : md->stages) addBuffers(a, st, *d, s);
    }
    // Children must lie inside the parent's range.
    for (auto &c : s.children) {
      if (c.range.start < s.range.start) s.range.start = c.range.start;
      if (s.range.end < c.range.end) s.range.end = c.range.end;
    }
    out.push_back(std::move(s));
  }
  return out;
}

} // namespace mdh::lsp
