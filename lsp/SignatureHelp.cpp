/** \file
 * computeSignatureHelp: which call, meta-argument list, record construction
 * or md_hom the cursor is inside, and which argument it is at.
 *
 * Works on the tokens before the cursor (not the AST), because the text
 * being typed rarely parses: it walks back over balanced brackets to the
 * innermost unclosed `(`, `<` or `{`, counting the commas at that level.  A
 * bare `(` (a tuple, as in md_hom's operator list) is looked through to the
 * enclosing call.  Invariant: stops at `;` or at a block's `{`, so it never
 * reaches into the previous statement or declaration.
 */
#include "Builtins.h"
#include "Describe.h"
#include "Features.h"
#include "ast/Printer.h"

#include <fmt/format.h>

namespace mdh::lsp {

namespace {

SignatureInformation fromParts(const std::string &head, const std::vector<std::string> &params,
                               const std::string &open, const std::string &close, const std::string &tail,
                               const std::string &doc) {
  SignatureInformation s;
  s.label = head + open;
  for (size_t i = 0; i < params.size(); ++i) {
    s.label += (i ? ", " : "") + params[i];
    s.parameters.push_back({params[i], ""});
  }
  s.label += close + tail;
  s.documentation = doc;
  return s;
}

std::optional<SignatureInformation> callSignature(const Analysis &a, const std::string &name) {
  if (name == "md_hom")
    return fromParts("md_hom<N1, …, ND>", {"f", "(⊛1, …, ⊛D)"}, "(", ")", "", describeKeyword("md_hom"));
  if (name == "inp_view" || name == "out_view")
    return fromParts(name + "<T1, …>", {"buffer: (i1, …, iD) -> (e1, …)"}, "(", ", …)", "", describeKeyword(name));
  if (name == "pw" || name == "ps") return fromParts(name, {"op"}, "(", ")", "", describeKeyword(name));
  if (const ast::Decl *d = a.sema().lookup(name)) {
    if (const auto *fn = d->as<ast::FnDecl>()) {
      std::vector<std::string> ps;
      for (const auto &p : fn->params) ps.push_back(fmt::format("{}: {}", p.name.name, ast::printType(p.type)));
      return fromParts("fn " + name + metaParamList(*fn), ps, "(", ")",
                       fn->result ? " -> " + ast::printType(*fn->result) : "", fn->doc);
    }
    return std::nullopt;
  }
  if (const BuiltinFunction *f = findBuiltinFunction(name)) {
    std::vector<std::string> ps(f->params.begin(), f->params.end());
    std::string sig = f->signature;
    return fromParts(name, ps, "(", ")", sig.substr(sig.find(')') + 1), f->doc);
  }
  return std::nullopt;
}

std::optional<SignatureInformation> metaSignature(const Analysis &a, const std::string &name) {
  if (name == "md_hom") return fromParts("md_hom", {"N1, …, ND"}, "<", ">", "", "the sizes of the MDA dimensions");
  if (name == "inp_view" || name == "out_view")
    return fromParts(name, {"T1, …"}, "<", ">", "", "element types of the buffers, in view order");
  const ast::Decl *d = a.sema().lookup(name);
  if (!d || d->metaParams.empty()) return std::nullopt;
  std::vector<std::string> ps;
  for (const auto &p : d->metaParams) ps.push_back(fmt::format("{}: {}", p.name.name, p.kind.name));
  return fromParts(std::string(declKeyword(*d)) + " " + name, ps, "<", ">", "", d->doc);
}

std::optional<SignatureInformation> recordSignature(const Analysis &a, const std::string &name) {
  const ast::Decl *d = a.sema().lookup(name);
  const auto *rec = d ? d->as<ast::RecordDecl>() : nullptr;
  if (!rec) return std::nullopt;
  std::vector<std::string> ps;
  for (const auto &f : rec->fields) ps.push_back(fmt::format("{}: {}", f.name.name, ast::printType(f.type)));
  return fromParts(name, ps, " { ", " }", "", rec->doc);
}

bool isName(const LexToken &t) { return t.kind == LexToken::Kind::Identifier || t.kind == LexToken::Kind::Keyword; }

} // namespace

std::optional<SignatureHelp> computeSignatureHelp(const Analysis &a, uint32_t offset) {
  // Significant tokens wholly before the cursor.
  std::vector<const LexToken *> toks;
  for (const auto &t : a.tokens()) {
    if (t.end > offset) break;
    if (t.kind == LexToken::Kind::Comment || t.kind == LexToken::Kind::DocComment) continue;
    toks.push_back(&t);
  }
  std::vector<std::string> closers;
  int commas = 0;
  for (size_t k = toks.size(); k-- > 0;) {
    const LexToken &t = *toks[k];
    const std::string &x = t.text;
    if (x == ")" || x == "]" || x == "}") {
      closers.push_back(x);
      continue;
    }
    if (x == "(" || x == "[" || x == "{") {
      if (!closers.empty()) {
        closers.pop_back();
        continue;
      }
      const LexToken *prev = k > 0 ? toks[k - 1] : nullptr;
      std::optional<SignatureInformation> sig;
      if (x == "(") {
        if (prev && isName(*prev)) {
          sig = callSignature(a, prev->text);
        } else if (prev && prev->text == ">") {
          // name<...>( : find the matching `<`.
          int depth = 0;
          for (size_t j = k - 1; j-- > 0;) {
            if (toks[j]->text == ">") ++depth;
            else if (toks[j]->text == "<") {
              if (depth == 0) {
                if (j > 0 && isName(*toks[j - 1])) sig = callSignature(a, toks[j - 1]->text);
                break;
              }
              --depth;
            } else if (toks[j]->text == ";") break;
          }
        } else {
          // A tuple: look through it to the enclosing call.
          commas = 0;
          continue;
        }
      } else if (x == "{") {
        if (prev && prev->kind == LexToken::Kind::Identifier) sig = recordSignature(a, prev->text);
      }
      if (!sig) return std::nullopt;
      SignatureHelp h;
      h.activeParameter = std::min<int>(commas, int(sig->parameters.size()) - 1);
      if (h.activeParameter < 0) h.activeParameter = 0;
      h.signatures.push_back(std::move(*sig));
      return h;
    }
    if (!closers.empty()) continue;
    if (x == ",") {
      ++commas;
    } else if (x == ";") {
      return std::nullopt;
    } else if (x == "<" && k > 0 && isName(*toks[k - 1])) {
      if (auto sig = metaSignature(a, toks[k - 1]->text)) {
        SignatureHelp h;
        h.activeParameter = std::max(0, std::min<int>(commas, int(sig->parameters.size()) - 1));
        h.signatures.push_back(std::move(*sig));
        return h;
      }
    }
  }
  return std::nullopt;
}

} // namespace mdh::lsp
