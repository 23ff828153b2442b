/** \file
 * computeSemanticTokens: every token of the main file classified by what it
 * is, not just how it looks: the lexer gives keywords, numbers, comments and
 * decorators; the symbol index says whether an identifier is a function, a
 * record, a meta-parameter, a buffer, a field...  Contextual words (`o`,
 * `pw`, `ps`, `type`, `size`) are keywords only where the parser read them
 * so.  Invariants: tokens are emitted in order, never overlap, and never
 * span lines (multi-line comments are split), so clients without
 * multilineTokenSupport accept them; lengths are UTF-16 units.
 */
#include "Features.h"

#include <algorithm>

namespace mdh::lsp {

namespace {

struct Classified {
  TokenType type;
  uint32_t mods;
};

std::optional<Classified> classifySymbol(const Symbol &s, const Analysis &a, const std::string &stdlibDir) {
  uint32_t mods = 0;
  if (s.def.valid() && !stdlibDir.empty() && s.def.file < a.sources().size()) {
    const std::string &p = a.sources().file(s.def.file).path();
    if (p.compare(0, stdlibDir.size(), stdlibDir) == 0) mods |= ModDefaultLibrary;
  }
  switch (s.kind) {
  case Symbol::Kind::Decl:
    switch (s.decl->kind) {
    case ast::Decl::Kind::Fn: return Classified{TokenType::Function, mods};
    case ast::Decl::Kind::Record: return Classified{TokenType::Struct, mods};
    case ast::Decl::Kind::Combine: return Classified{TokenType::Operator, mods};
    case ast::Decl::Kind::View: return Classified{TokenType::Interface, mods};
    case ast::Decl::Kind::Mdh: return Classified{TokenType::Class, mods};
    }
    break;
  case Symbol::Kind::MetaParam:
    return Classified{TokenType::TypeParameter, mods | (s.meta && s.meta->kind.name == "size" ? ModReadonly : 0u)};
  case Symbol::Kind::Param: return Classified{TokenType::Parameter, mods};
  case Symbol::Kind::Local:
    return Classified{TokenType::Variable, mods | (s.let && !s.let->isMutable ? ModReadonly : 0u)};
  case Symbol::Kind::IndexVar: return Classified{TokenType::Parameter, mods | ModReadonly};
  case Symbol::Kind::Field: return Classified{TokenType::Property, mods};
  case Symbol::Kind::Buffer: return Classified{TokenType::Variable, mods};
  case Symbol::Kind::Builtin:
    if (!primitiveByName(s.name).isError()) return Classified{TokenType::Type, ModDefaultLibrary};
    return Classified{TokenType::Function, ModDefaultLibrary};
  case Symbol::Kind::Module: return Classified{TokenType::Namespace, 0};
  }
  return std::nullopt;
}

} // namespace

SemanticTokens computeSemanticTokens(const Analysis &a, const std::string &stdlibDir) {
  SemanticTokens out;
  const SourceFile &src = a.mainSource();
  const std::u32string &cps = src.codePoints();
  int prevLine = 0, prevChar = 0;
  auto emit = [&](uint32_t begin, uint32_t end, TokenType type, uint32_t mods) {
    // Split at line breaks; each piece is one token.
    while (begin < end) {
      uint32_t stop = begin;
      while (stop < end && !lineBreakLength(cps, stop)) ++stop;
      uint32_t len = 0;
      for (uint32_t i = begin; i < stop; ++i) len += cps[i] >= 0x10000 ? 2 : 1;
      if (len > 0) {
        Position p = a.position(a.mainFile(), begin);
        out.data.push_back(uint32_t(p.line - prevLine));
        out.data.push_back(uint32_t(p.line == prevLine ? p.character - prevChar : p.character));
        out.data.push_back(len);
        out.data.push_back(uint32_t(type));
        out.data.push_back(mods);
        prevLine = p.line;
        prevChar = p.character;
      }
      begin = stop + 1;
    }
  };
  const auto &occs = a.index().occurrences();
  for (const auto &t : a.tokens()) {
    if (t.end > cps.size() || t.begin >= t.end) continue;
    switch (t.kind) {
    case LexToken::Kind::Comment:
    case LexToken::Kind::Unterminated: emit(t.begin, t.end, TokenType::Comment, 0); break;
    case LexToken::Kind::DocComment: emit(t.begin, t.end, TokenType::Comment, ModDocumentation); break;
    case LexToken::Kind::Keyword: emit(t.begin, t.end, TokenType::Keyword, 0); break;
    case LexToken::Kind::Int:
    case LexToken::Kind::Float: emit(t.begin, t.end, TokenType::Number, 0); break;
    case LexToken::Kind::Operator:
      // Plain operators are left to the editor's grammar; `<`/`>` are brackets as often as not.
      if (t.text == "@") emit(t.begin, t.end, TokenType::Decorator, 0);
      else if (t.text == "∘") emit(t.begin, t.end, TokenType::Keyword, 0);
      break;
    case LexToken::Kind::Identifier: {
      auto it = std::lower_bound(occs.begin(), occs.end(), t.begin, [&](const Occurrence &o, uint32_t off) {
        return o.range.file != a.mainFile() ? o.range.file < a.mainFile() : o.range.begin < off;
      });
      if (it == occs.end() || it->range.file != a.mainFile() || it->range.begin != t.begin) break;
      std::optional<Classified> c;
      if (it->symbol >= 0) {
        c = classifySymbol(a.index().symbols()[size_t(it->symbol)], a, stdlibDir);
      } else {
        switch (it->role) {
        case Occurrence::Role::Builder:
        case Occurrence::Role::ComposeOp:
        case Occurrence::Role::MetaParamKind: c = Classified{TokenType::Keyword, 0}; break;
        case Occurrence::Role::Attribute: c = Classified{TokenType::Decorator, 0}; break;
        default: break;
        }
      }
      if (!c) break;
      if (it->role == Occurrence::Role::Definition) c->mods |= ModDeclaration | ModDefinition;
      emit(t.begin, t.end, c->type, c->mods);
      break;
    }
    default: break;
    }
  }
  return out;
}

} // namespace mdh::lsp
