/** \file
 * computeHover: what the identifier (or keyword, or combine operator) under
 * the cursor is, in markdown.
 *
 * Declarations show their signature and `///` doc comment; an `mdh` shows
 * its MDA sizes, the kind of every dimension's combine operator and the
 * derived buffer shapes from sema's generic program; buffers show their
 * derived shapes; locals and expressions show the types sema gave them
 * (falling back to the declared types when no `mdh` instantiates the
 * function).  A position inside a combine operator of an `md_hom` also
 * shows that dimension's role.
 */
#include "Builtins.h"
#include "Describe.h"
#include "Features.h"
#include "ast/Printer.h"
#include "sema/Type.h"

#include <fmt/format.h>

namespace mdh::lsp {

namespace {

/// Resolves a written type for a record layout (records nest by value).
std::optional<Type> layoutType(const ast::TypeRef &t, Sema &sema, int depth) {
  if (depth > 32) return std::nullopt;
  if (t.kind == ast::TypeRef::Kind::Tuple) {
    std::vector<Type> elems;
    for (const auto &e : t.elems) {
      auto et = layoutType(e, sema, depth + 1);
      if (!et) return std::nullopt;
      elems.push_back(*et);
    }
    return Type::tuple(std::move(elems));
  }
  if (t.kind != ast::TypeRef::Kind::Named) return std::nullopt;
  Type p = primitiveByName(t.name.name);
  if (!p.isError()) return p;
  const ast::Decl *d = sema.lookup(t.name.name);
  const auto *rec = d ? d->as<ast::RecordDecl>() : nullptr;
  if (!rec) return std::nullopt;
  auto info = std::make_shared<RecordInfo>();
  info->name = rec->name.name;
  for (const auto &f : rec->fields) {
    auto ft = layoutType(f.type, sema, depth + 1);
    if (!ft) return std::nullopt;
    info->fields.push_back({f.name.name, *ft, 0});
  }
  info->layout();
  return Type::recordType(info);
}

std::string withDoc(std::string md, const std::string &doc) {
  if (!doc.empty()) md += "\n\n" + doc;
  return md;
}

std::string programSummary(const hl::Program &p) {
  std::string md;
  std::vector<std::string> dims;
  for (size_t d = 0; d < p.sizes.size(); ++d) dims.push_back(fmt::format("{} = {}", dimName(p, d), p.sizes[d].str()));
  md += fmt::format("**MDA** {} ({})", sizeList(p.sizes), fmt::join(dims, ", "));
  md += "\n\n**combine operators**";
  for (size_t d = 0; d < p.ops.size(); ++d)
    md += fmt::format("\n- `{}`: `{}` — {}", dimName(p, d), p.ops[d].str(),
                      combineKind(p.ops[d], d < p.sizes.size() ? p.sizes[d] : SizePoly::constant(1)));
  md += "\n\n**buffers** (derived shapes)";
  for (const auto &b : p.inputs) md += fmt::format("\n- in `{}`: `{}`", b.name, bufferShape(b));
  for (const auto &b : p.outputs) md += fmt::format("\n- out `{}`: `{}`", b.name, bufferShape(b));
  md += fmt::format("\n\n**output MDA** {}", sizeList(p.outputSizes()));
  if (p.f) md += fmt::format("\n\n**scalar function** `{}`", p.fSymbol.empty() ? p.f->sourceName : p.fSymbol);
  if (!p.dynamicSizes.empty()) md += fmt::format("\n\n**run-time sizes** {}", fmt::join(p.dynamicSizes, ", "));
  return md;
}

std::string typeText(const std::optional<ast::TypeRef> &t) { return t ? ast::printType(*t) : std::string("?"); }

std::string describeSymbol(const Analysis &a, const Symbol &s, const Occurrence &occ) {
  const std::string enclosing = s.decl ? s.decl->name.name : "";
  switch (s.kind) {
  case Symbol::Kind::Decl: {
    const ast::Decl &d = *s.decl;
    std::string md;
    if (const auto *rec = d.as<ast::RecordDecl>()) {
      std::string body = fmt::format("record {} {{", d.name.name);
      for (const auto &f : rec->fields) body += fmt::format("\n    {}: {},", f.name.name, ast::printType(f.type));
      body += "\n}";
      md = codeBlock(body);
      if (auto t = layoutType(namedType(d.name.name), a.sema(), 0))
        md += fmt::format("\n\nsize {} bytes, alignment {} (C layout)", t->size(), t->align());
      return withDoc(md, d.doc);
    }
    md = codeBlock(declSignature(d));
    md = withDoc(md, d.doc);
    if (const auto *fn = d.as<ast::FnDecl>()) {
      bool assoc = fn->hasAttribute("assoc"), comm = fn->hasAttribute("comm");
      if (assoc || comm)
        md += fmt::format("\n\ndeclared {} (usable in `pw`/`ps`)", assoc && comm ? "associative and commutative"
                                                                  : assoc        ? "associative"
                                                                                 : "commutative");
    } else if (const auto *cd = d.as<ast::CombineDecl>()) {
      switch (cd->op.kind) {
      case ast::CombineOp::Kind::Concat: md += "\n\n**concatenation**: the dimension keeps its index set"; break;
      case ast::CombineOp::Kind::PointWise:
        md += fmt::format("\n\n**point-wise** combination with `{}`: the dimension collapses to {{0}}",
                          ast::printCombineOp(cd->op));
        break;
      case ast::CombineOp::Kind::PrefixSum:
        md += fmt::format("\n\n**prefix sum** with `{}`: the dimension keeps its index set",
                          ast::printCombineOp(cd->op));
        break;
      default: break;
      }
    } else if (d.kind == ast::Decl::Kind::Mdh) {
      if (const hl::Program *p = a.facts().programOf(&d)) md += "\n\n" + programSummary(*p);
    }
    return md;
  }
  case Symbol::Kind::MetaParam:
    return fmt::format("{}\n\nmeta-parameter of `{}`{}",
                       codeBlock(fmt::format("{}: {}", s.name, s.meta ? s.meta->kind.name : "?")), enclosing,
                       s.meta && s.meta->kind.name == "size" ? " (a positive integer)" : " (a scalar type)");
  case Symbol::Kind::Param: {
    std::string md = codeBlock(fmt::format("{}: {}", s.name, typeText(s.type)));
    md += fmt::format("\n\nparameter {} of `{}`", s.position + 1, enclosing);
    if (const auto *types = a.facts().exprTypes(occ.range); types && occ.role == Occurrence::Role::ExprName) {
      if (types->size() > 1 || (types->size() == 1 && (*types)[0] != typeText(s.type)))
        md += fmt::format("; here `{}`", fmt::join(*types, "`, `"));
    }
    return md;
  }
  case Symbol::Kind::Local: {
    std::string t;
    if (s.let) {
      if (const auto *types = a.facts().letTypes(s.let->range)) t = fmt::format("{}", fmt::join(*types, " | "));
    }
    if (t.empty()) t = typeText(s.type);
    return codeBlock(fmt::format("let {}{}: {}", s.let && s.let->isMutable ? "mut " : "", s.name, t)) +
           fmt::format("\n\nlocal of `{}`", enclosing);
  }
  case Symbol::Kind::IndexVar: {
    std::string md = codeBlock(fmt::format("{}: idx", s.name));
    md += fmt::format("\n\nindex of MDA dimension {}", s.position + 1);
    if (s.decl)
      if (const hl::Program *p = a.facts().programOf(s.decl); p && s.position < p->sizes.size()) {
        md += fmt::format(" (size {}, combined with `{}`)", p->sizes[s.position].str(),
                          s.position < p->ops.size() ? p->ops[s.position].str() : "?");
        if (s.buffer && s.position < p->ops.size() && p->ops[s.position].kind == hl::CombineOperator::Kind::PointWise) {
          for (const auto &b : p->outputs)
            if (b.range.begin == s.buffer->range.begin && b.range.file == s.buffer->range.file)
              md += "; in this output view it is always 0 (point-wise dimension)";
        }
      }
    return md;
  }
  case Symbol::Kind::Field:
    return codeBlock(fmt::format("{}: {}", s.name, typeText(s.type))) +
           fmt::format("\n\nfield of record `{}`", s.record ? s.record->name.name : "?");
  case Symbol::Kind::Buffer: {
    std::vector<BufferFact> facts = s.buffer ? a.facts().buffersOf(s.buffer->range, s.decl) : std::vector<BufferFact>{};
    std::string md;
    if (facts.empty()) {
      md = codeBlock(s.name) + fmt::format("\n\n{} buffer", s.outputBuffer ? "output" : "input");
      if (s.buffer && s.buffer->hasShape) {
        std::vector<std::string> dims;
        for (const auto &e : s.buffer->shape) dims.push_back(e ? ast::printSize(*e) : "?");
        md += fmt::format(", declared shape [{}]", fmt::join(dims, ", "));
      }
      return md + " (no derived shape: no `mdh` using it type-checks)";
    }
    md = codeBlock(fmt::format("{}: {}", s.name, bufferShape(*facts[0].buffer)));
    md += fmt::format("\n\n{} buffer; shape derived from the index functions", s.outputBuffer ? "output" : "input");
    if (facts[0].owner && facts[0].owner != s.decl) md += fmt::format(" as used by `{}`", facts[0].owner->name.name);
    for (size_t i = 1; i < facts.size() && i < 6; ++i)
      md += fmt::format("\n- in `{}`: `{}`", facts[i].owner ? facts[i].owner->name.name : "?",
                        bufferShape(*facts[i].buffer));
    if (s.buffer)
      md += fmt::format("\n\n{} access{}", s.buffer->accesses.size(), s.buffer->accesses.size() == 1 ? "" : "es");
    return md;
  }
  case Symbol::Kind::Builtin: {
    if (std::string t = describePrimitiveType(s.name); !t.empty())
      return codeBlock(s.name) + "\n\nbuilt-in type: " + t;
    if (const BuiltinFunction *f = findBuiltinFunction(s.name))
      return codeBlock(f->signature) + "\n\nbuilt-in " + (f->binaryOp ? "binary operation: " : "function: ") + f->doc +
             (f->binaryOp ? "\n\nusable in combine operators: `pw(" + s.name + ")`, `ps(" + s.name + ")`" : "");
    return codeBlock(s.name);
  }
  case Symbol::Kind::Module: return codeBlock("import " + s.name) + "\n\n`" + s.modulePath + "`";
  }
  return "";
}

/// If `offset` lies in combine operator d of an `md_hom`, describes that dimension.
std::string combineContext(const Analysis &a, uint32_t offset) {
  const ast::Decl *d = a.declAt(offset);
  const auto *md = d ? d->as<ast::MdhDecl>() : nullptr;
  if (!md) return "";
  for (const auto &st : md->stages) {
    if (st.kind != ast::Stage::Kind::MdHom) continue;
    for (size_t i = 0; i < st.ops.size(); ++i) {
      const SourceRange &r = st.ops[i].range;
      if (!(r.begin <= offset && offset <= r.end)) continue;
      const hl::Program *p = a.facts().programOf(md);
      if (!p || i >= p->ops.size())
        return fmt::format("combine operator of dimension {}", i + 1);
      return fmt::format("combine operator of dimension `{}` ({} of {}): `{}` — {}", dimName(*p, i), i + 1,
                         p->ops.size(), p->ops[i].str(),
                         combineKind(p->ops[i], i < p->sizes.size() ? p->sizes[i] : SizePoly::constant(1)));
    }
  }
  return "";
}

} // namespace

std::optional<Hover> computeHover(const Analysis &a, uint32_t offset) {
  std::string md;
  std::optional<Range> range;
  const Occurrence *occ = a.index().at(a.mainFile(), offset);
  if (occ) range = a.range(occ->range);
  if (occ && occ->symbol >= 0) {
    md = describeSymbol(a, a.index().symbols()[size_t(occ->symbol)], *occ);
  } else if (occ) {
    const std::string name = a.mainSource().codePoints().empty()
                                 ? std::string()
                                 : encodeUtf8(std::u32string_view(a.mainSource().codePoints())
                                                  .substr(occ->range.begin, occ->range.end - occ->range.begin));
    switch (occ->role) {
    case Occurrence::Role::Builder:
    case Occurrence::Role::ComposeOp:
    case Occurrence::Role::MetaParamKind: md = describeKeyword(name); break;
    case Occurrence::Role::Attribute:
      md = name == "assoc"  ? "`@assoc`: declares the function associative (checked use: Lemma 10, §12.7)"
           : name == "comm" ? "`@comm`: declares the function commutative (checked use: Lemma 10, §12.7)"
                            : fmt::format("unknown attribute `@{}` (ignored)", name);
      break;
    default:
      if (!name.empty()) md = fmt::format("`{}`: unresolved name", name);
      break;
    }
  } else if (const LexToken *t = a.tokenAt(offset)) {
    if (t->kind == LexToken::Kind::Keyword || t->kind == LexToken::Kind::Operator ||
        t->kind == LexToken::Kind::Identifier) {
      md = describeKeyword(t->text);
      if (!md.empty()) range = a.range({a.mainFile(), t->begin, t->end});
    }
  }
  std::string ctx = combineContext(a, offset);
  if (!ctx.empty()) md += (md.empty() ? "" : "\n\n---\n\n") + ctx;
  if (md.empty()) return std::nullopt;
  return Hover{md, range};
}

} // namespace mdh::lsp
