/** \file
 * computeCompletion: context-sensitive candidates from the real parser.
 *
 * Half-typed code rarely parses, so MdhServer analyses a *probe*: the text
 * with a placeholder identifier inserted at the cursor (`a.` becomes
 * `a.<placeholder>`, which parses as a field access).  The symbol index then
 * says which syntactic role the placeholder has (a type, a size, an
 * expression, a field of record `R`, a combine operator, an import path...)
 * and the candidates are exactly the names that fit that role and are in
 * scope there.  Where the placeholder lands in unparseable text, a
 * keyword-and-scope list is the fallback.  Invariants: every candidate
 * starts with the typed prefix (case-insensitively); the placeholder itself
 * is never offered.
 */
#include "Builtins.h"
#include "Describe.h"
#include "Features.h"
#include "ast/Printer.h"
#include "parse/Tokens.h"
#include "sema/Type.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fmt/format.h>
#include <set>

namespace mdh::lsp {

namespace {

enum Priority { kLocal = 0, kDecl = 1, kBuiltin = 2, kKeyword = 3 };

class Collector {
public:
  Collector(const Analysis &a, uint32_t offset, std::string prefix, std::string placeholder)
      : a_(a), offset_(offset), prefix_(std::move(prefix)), placeholder_(std::move(placeholder)) {}

  CompletionList list;

  void add(const std::string &label, CompletionItemKind kind, const std::string &detail, const std::string &doc,
           Priority prio, const std::string &insert = "", bool snippet = false) {
    if (label.empty() || label.find(placeholder_) != std::string::npos) return;
    if (!startsWithCI(label, prefix_)) return;
    if (!seen_.insert(label + "\x1f" + std::to_string(int(kind))).second) return;
    CompletionItem it;
    it.label = label;
    it.kind = kind;
    it.detail = detail;
    it.documentation = doc;
    it.insertText = insert;
    it.snippet = snippet;
    it.sortText = fmt::format("{}_{}", int(prio), label);
    list.items.push_back(std::move(it));
  }

  // ---- candidate groups ------------------------------------------------------------------------
  void decls(std::initializer_list<ast::Decl::Kind> kinds, bool binaryFnsOnly = false,
             const ast::Decl *except = nullptr) {
    for (const ast::Decl *d : a_.sema().declarations()) {
      if (std::find(kinds.begin(), kinds.end(), d->kind) == kinds.end() || d == except) continue;
      if (binaryFnsOnly) {
        const auto *fn = d->as<ast::FnDecl>();
        if (!fn || fn->params.size() != 2) continue;
      }
      add(d->name.name, itemKind(*d), declSignature(*d), d->doc, kDecl);
    }
  }

  void builtinFunctions(bool binaryOpsOnly) {
    for (const auto &f : mdh::lsp::builtinFunctions())
      if (!binaryOpsOnly || f.binaryOp) add(f.name, CompletionItemKind::Function, f.signature, f.doc, kBuiltin);
  }

  void primitiveTypes() {
    for (const auto &n : primitiveTypeNames())
      add(n, CompletionItemKind::Keyword, "built-in type", describePrimitiveType(n), kBuiltin);
  }

  void visible(std::initializer_list<Symbol::Kind> kinds, const char *metaKind = nullptr) {
    for (int id : a_.index().visibleAt(a_.mainFile(), offset_)) {
      const Symbol &s = a_.index().symbols()[size_t(id)];
      if (std::find(kinds.begin(), kinds.end(), s.kind) == kinds.end()) continue;
      if (s.kind == Symbol::Kind::MetaParam && metaKind && (!s.meta || s.meta->kind.name != metaKind)) continue;
      std::string detail;
      CompletionItemKind kind = CompletionItemKind::Variable;
      switch (s.kind) {
      case Symbol::Kind::MetaParam:
        detail = fmt::format("{}: {}", s.name, s.meta ? s.meta->kind.name : "?");
        kind = CompletionItemKind::TypeParameter;
        break;
      case Symbol::Kind::IndexVar: detail = fmt::format("index of MDA dimension {}", s.position + 1); break;
      default: detail = s.type ? ast::printType(*s.type) : ""; break;
      }
      add(s.name, kind, detail, "", kLocal);
    }
  }

  void keywords(std::initializer_list<const char *> words) {
    for (const char *w : words) add(w, CompletionItemKind::Keyword, "", describeKeyword(w), kKeyword);
  }

  void topLevel() {
    keywords({"import", "fn", "record", "combine", "view", "mdh"});
    add("mdh", CompletionItemKind::Snippet, "mdh declaration (out_view ∘ md_hom ∘ inp_view)", "", kKeyword,
        "mdh ${1:name}<${2:T}: type, ${3:N}: size> =\n    out_view<${2:T}>( ${4:Out}: (${5:i}) -> (${5:i}) )\n"
        "  o md_hom<${3:N}>( ${6:id}, (${7:++}) )\n  o inp_view<${2:T}>( ${8:In}: (${5:i}) -> (${5:i}) );",
        true);
    add("fn", CompletionItemKind::Snippet, "scalar function", "", kKeyword,
        "fn ${1:name}<${2:T}: type>(${3:x}: ${2:T}) -> ${2:T} = ${0:x};", true);
    add("record", CompletionItemKind::Snippet, "record type", "", kKeyword,
        "record ${1:Name} {\n    ${2:field}: ${3:f32},\n}", true);
  }

  void fields(const Occurrence &occ) {
    if (!occ.baseRecord.empty()) {
      const ast::Decl *d = a_.sema().lookup(occ.baseRecord);
      if (const auto *rec = d ? d->as<ast::RecordDecl>() : nullptr)
        for (const auto &f : rec->fields)
          add(f.name.name, CompletionItemKind::Field, ast::printType(f.type),
              fmt::format("field of record `{}`", rec->name.name), kLocal);
    } else if (occ.baseTupleArity > 0) {
      for (int i = 0; i < occ.baseTupleArity && i < 64; ++i)
        add(std::to_string(i), CompletionItemKind::Field, fmt::format("tuple element {}", i), "", kLocal);
    }
  }

  void recordFields(const std::string &record) {
    const ast::Decl *d = a_.sema().lookup(record);
    if (const auto *rec = d ? d->as<ast::RecordDecl>() : nullptr)
      for (const auto &f : rec->fields)
        add(f.name.name, CompletionItemKind::Field, ast::printType(f.type), "", kLocal, f.name.name + ": ");
  }

  void importPaths(const std::vector<std::string> &dirs) {
    for (const auto &dir : dirs) {
      std::error_code ec;
      std::filesystem::directory_iterator it(dir.empty() ? "." : dir, ec), end;
      for (int n = 0; !ec && it != end && n < 500; it.increment(ec), ++n) {
        const auto &p = it->path();
        if (p.extension() == ".mdh") add(p.stem().string(), CompletionItemKind::Module, p.string(), "", kDecl);
        else if (it->is_directory(ec)) add(p.filename().string(), CompletionItemKind::Folder, p.string(), "", kDecl);
      }
    }
  }

  void expressionNames() {
    visible({Symbol::Kind::Param, Symbol::Kind::Local, Symbol::Kind::IndexVar, Symbol::Kind::MetaParam}, nullptr);
    decls({ast::Decl::Kind::Fn, ast::Decl::Kind::Record});
    builtinFunctions(false);
    keywords({"true", "false"});
  }

  static CompletionItemKind itemKind(const ast::Decl &d) {
    switch (d.kind) {
    case ast::Decl::Kind::Fn: return CompletionItemKind::Function;
    case ast::Decl::Kind::Record: return CompletionItemKind::Struct;
    case ast::Decl::Kind::Combine: return CompletionItemKind::Operator;
    case ast::Decl::Kind::View: return CompletionItemKind::Interface;
    case ast::Decl::Kind::Mdh: return CompletionItemKind::Class;
    }
    return CompletionItemKind::Text;
  }

private:
  const Analysis &a_;
  uint32_t offset_;
  std::string prefix_, placeholder_;
  std::set<std::string> seen_;

  static bool startsWithCI(const std::string &s, const std::string &p) {
    if (p.size() > s.size()) return false;
    for (size_t i = 0; i < p.size(); ++i)
      if (std::tolower(static_cast<unsigned char>(s[i])) != std::tolower(static_cast<unsigned char>(p[i]))) return false;
    return true;
  }
};

/// The token that opens the innermost bracket (`(` or `<`) around `offset` that is
/// still open there, and the token before it; {nullptr, nullptr} when none.  With
/// `commas`, also how many of its arguments come before the cursor's.
std::pair<const LexToken *, const LexToken *> enclosingOpener(const Analysis &a, uint32_t offset, int *commas = nullptr) {
  const auto &toks = a.tokens();
  size_t k = 0;
  while (k < toks.size() && toks[k].end <= offset) ++k;
  int round = 0, angle = 0;
  if (commas) *commas = 0;
  for (size_t j = k; j-- > 0;) {
    const std::string &t = toks[j].text;
    if (toks[j].kind == LexToken::Kind::Comment || toks[j].kind == LexToken::Kind::DocComment) continue;
    if (t == ";" || t == "{" || t == "}") break; // a statement or declaration boundary
    if (t == ")") ++round;
    else if (t == ">") ++angle;
    else if (t == "," && round == 0 && angle == 0 && commas) ++*commas;
    else if (t == "(" && round-- == 0) return {&toks[j], j > 0 ? &toks[j - 1] : nullptr};
    else if (t == "<" && angle-- == 0) return {&toks[j], j > 0 ? &toks[j - 1] : nullptr};
  }
  return {nullptr, nullptr};
}

/// Inside `md_hom<...>`: only sizes are meta-arguments there.
bool inMdHomSizes(const Analysis &a, uint32_t offset) {
  auto [open, before] = enclosingOpener(a, offset);
  return open && open->text == "<" && before && before->text == "md_hom";
}

/// The kind (`type` or `size`) of the meta-parameter whose argument the cursor is in,
/// `name<T, |>`, from the declaration `name` names; empty when unknown.
std::string metaArgKind(const Analysis &a, uint32_t offset) {
  int commas = 0;
  auto [open, before] = enclosingOpener(a, offset, &commas);
  if (!open || open->text != "<" || !before) return "";
  const ast::Decl *d = a.sema().lookup(before->text);
  return d && size_t(commas) < d->metaParams.size() ? d->metaParams[size_t(commas)].kind.name : "";
}

/// Inside the result of an index function, `(i, j) -> ( ... )`: only its index
/// variables, sizes and integers may appear there (docs/language.md §6).
bool inIndexFunctionBody(const Analysis &a, uint32_t offset) {
  auto [open, before] = enclosingOpener(a, offset);
  return open && open->text == "(" && before && (before->text == "->" || before->text == "↦" || before->text == "→");
}

/// The fields of the value before `.` in `a.b.<cursor>`, resolved from the
/// tokens and the declared types of the names in scope; nullopt when the
/// cursor does not follow such a chain.
std::optional<std::vector<std::pair<std::string, std::string>>> fieldsFromTokens(const Analysis &a, uint32_t offset) {
  const auto &toks = a.tokens();
  size_t k = 0;
  while (k < toks.size() && toks[k].end <= offset) ++k;
  if (k >= toks.size() || k < 2 || toks[k].begin > offset || toks[k - 1].text != ".") return std::nullopt;
  std::vector<std::string> chain;
  size_t j = k - 1; // at a '.'
  while (j >= 1 && toks[j].text == "." &&
         (toks[j - 1].kind == LexToken::Kind::Identifier || toks[j - 1].kind == LexToken::Kind::Int)) {
    chain.insert(chain.begin(), toks[j - 1].text);
    if (j < 2) break;
    j -= 2;
  }
  if (chain.empty()) return std::nullopt;
  std::optional<ast::TypeRef> t;
  for (int id : a.index().visibleAt(a.mainFile(), offset)) {
    const Symbol &s = a.index().symbols()[size_t(id)];
    if (s.name == chain[0]) t = s.type; // later (inner) declarations win
  }
  auto recordOf = [&](const ast::TypeRef &ty) -> const ast::RecordDecl * {
    if (ty.kind != ast::TypeRef::Kind::Named) return nullptr;
    const ast::Decl *d = a.sema().lookup(ty.name.name);
    return d ? d->as<ast::RecordDecl>() : nullptr;
  };
  for (size_t i = 1; i < chain.size() && t; ++i) {
    std::optional<ast::TypeRef> next;
    if (const auto *rec = recordOf(*t)) {
      for (const auto &f : rec->fields)
        if (f.name.name == chain[i]) next = f.type;
    } else if (t->kind == ast::TypeRef::Kind::Tuple && !chain[i].empty() && chain[i].size() < 4 &&
               std::all_of(chain[i].begin(), chain[i].end(), [](char ch) { return ch >= '0' && ch <= '9'; })) {
      size_t n = size_t(std::stoi(chain[i]));
      if (n < t->elems.size()) next = t->elems[n];
    }
    t = next;
  }
  if (!t) return std::vector<std::pair<std::string, std::string>>{};
  std::vector<std::pair<std::string, std::string>> out;
  if (const auto *rec = recordOf(*t)) {
    for (const auto &f : rec->fields) out.push_back({f.name.name, ast::printType(f.type)});
  } else if (t->kind == ast::TypeRef::Kind::Tuple) {
    for (size_t i = 0; i < t->elems.size(); ++i) out.push_back({std::to_string(i), ast::printType(t->elems[i])});
  }
  return out;
}

/// In `import a.b.<cursor>`: the module path's complete segments before the cursor (`a`,
/// `b`); nullopt when the cursor is not after a `.` of an import path.
std::optional<std::vector<std::string>> importPathBefore(const Analysis &a, uint32_t offset) {
  const auto &toks = a.tokens();
  size_t k = 0;
  while (k < toks.size() && toks[k].end <= offset) ++k;
  std::vector<std::string> segments;
  bool sawDot = false;
  for (size_t j = k; j-- > 0;) {
    const LexToken &t = toks[j];
    if (t.kind == LexToken::Kind::Comment || t.kind == LexToken::Kind::DocComment) continue;
    if (t.text == ".") {
      sawDot = true;
      continue;
    }
    if (t.kind == LexToken::Kind::Keyword && t.text == "import") {
      if (!sawDot) return std::nullopt;
      return segments;
    }
    if (t.kind != LexToken::Kind::Identifier) return std::nullopt;
    // The word being typed (it ends at the cursor) is the prefix, not a segment.
    if (t.end < offset || sawDot) segments.insert(segments.begin(), t.text);
  }
  return std::nullopt;
}

} // namespace

CompletionList computeCompletion(const Analysis &probe, uint32_t offset, const std::string &prefix,
                                 const std::string &placeholder, const std::vector<std::string> &importDirs) {
  Collector c(probe, offset, prefix, placeholder);
  using R = Occurrence::Role;
  // `import a.b.|`: the modules and folders in a/b of the search path (before the field
  // completion below, which every `.` would otherwise take).
  if (auto segments = importPathBefore(probe, offset)) {
    std::vector<std::string> dirs{std::filesystem::path(probe.path()).parent_path().string()};
    dirs.insert(dirs.end(), importDirs.begin(), importDirs.end());
    for (auto &d : dirs) {
      std::filesystem::path p = d.empty() ? std::filesystem::path(".") : std::filesystem::path(d);
      for (const auto &s : *segments) p /= s;
      d = p.string();
    }
    c.importPaths(dirs);
    return c.list;
  }
  const Occurrence *occ = probe.index().at(probe.mainFile(), offset);
  if (!occ || occ->role != R::FieldName) {
    // After `.` only fields make sense, even where the parser read something else.
    if (auto t = fieldsFromTokens(probe, offset)) {
      for (const auto &[label, detail] : *t) c.add(label, CompletionItemKind::Field, detail, "", kLocal);
      return c.list;
    }
  }
  if (occ && occ->range.file == probe.mainFile()) {
    switch (occ->role) {
    case R::Definition: return c.list; // naming something new
    case R::TypeName:
      c.visible({Symbol::Kind::MetaParam}, "type");
      c.decls({ast::Decl::Kind::Record});
      c.primitiveTypes();
      return c.list;
    case R::SizeName: c.visible({Symbol::Kind::MetaParam}, "size"); return c.list;
    case R::MetaArgName:
      if (inMdHomSizes(probe, offset)) {
        c.visible({Symbol::Kind::MetaParam}, "size");
        return c.list;
      }
      if (const std::string kind = metaArgKind(probe, offset); kind == "size") {
        c.visible({Symbol::Kind::MetaParam}, "size"); // `*` (a run-time size) is typed, not completed
      } else {
        c.visible({Symbol::Kind::MetaParam}, kind == "type" ? "type" : nullptr); // unknown: both kinds
        c.decls({ast::Decl::Kind::Record});
        c.primitiveTypes();
      }
      return c.list;
    case R::ExprName:
      if (inIndexFunctionBody(probe, offset)) {
        c.visible({Symbol::Kind::MetaParam}, "size");
        c.visible({Symbol::Kind::IndexVar});
        return c.list;
      }
      c.expressionNames();
      return c.list;
    case R::AssignTarget:
      c.keywords({"let", "if", "return"});
      c.visible({Symbol::Kind::Local});
      return c.list;
    case R::CallName:
      c.decls({ast::Decl::Kind::Fn});
      c.builtinFunctions(false);
      return c.list;
    case R::RecordName: c.decls({ast::Decl::Kind::Record}); return c.list;
    case R::FieldName: c.fields(*occ); return c.list;
    case R::FieldInitName: {
      // The record being constructed: the RecordName occurrence before this one.
      const auto &occs = probe.index().occurrences();
      for (auto it = occs.begin(); it != occs.end(); ++it) {
        if (&*it != occ) continue;
        for (auto back = it; back != occs.begin();) {
          --back;
          if (back->role == R::RecordName) {
            if (back->symbol >= 0) c.recordFields(probe.index().symbols()[size_t(back->symbol)].name);
            break;
          }
          if (back->role != R::FieldInitName && back->role != R::ExprName && back->role != R::FieldName &&
              back->role != R::CallName)
            break;
        }
        break;
      }
      return c.list;
    }
    case R::StageRef:
      // Not the mdh being declared: a stage naming it is a cycle (E0612).
      c.decls({ast::Decl::Kind::View, ast::Decl::Kind::Mdh}, false, probe.declAt(offset));
      c.keywords({"inp_view", "out_view", "md_hom"});
      return c.list;
    case R::FnRef:
      c.decls({ast::Decl::Kind::Fn});
      c.builtinFunctions(true);
      return c.list;
    case R::CombineRef:
    case R::Builder:
      c.decls({ast::Decl::Kind::Combine});
      c.add("pw", CompletionItemKind::Keyword, "pw(op)", describeKeyword("pw"), kKeyword, "pw(${1:add})", true);
      c.add("ps", CompletionItemKind::Keyword, "ps(op)", describeKeyword("ps"), kKeyword, "ps(${1:add})", true);
      return c.list;
    case R::OpRef:
      c.builtinFunctions(true);
      c.decls({ast::Decl::Kind::Fn}, /*binaryFnsOnly=*/true);
      return c.list;
    case R::ComposeOp: c.keywords({"o"}); return c.list;
    case R::Attribute:
      c.add("assoc", CompletionItemKind::Keyword, "@assoc", "declares the function associative", kKeyword);
      c.add("comm", CompletionItemKind::Keyword, "@comm", "declares the function commutative", kKeyword);
      return c.list;
    case R::MetaParamKind: c.keywords({"type", "size"}); return c.list;
    case R::ImportPath: {
      std::vector<std::string> dirs{std::filesystem::path(probe.path()).parent_path().string()};
      dirs.insert(dirs.end(), importDirs.begin(), importDirs.end());
      c.importPaths(dirs);
      return c.list;
    }
    }
  }
  // The placeholder did not land in a parsed construct.
  if (!probe.declAt(offset)) {
    c.topLevel();
    return c.list;
  }
  c.expressionNames();
  c.decls({ast::Decl::Kind::Combine, ast::Decl::Kind::View, ast::Decl::Kind::Mdh});
  c.primitiveTypes();
  for (const auto &w : reservedWords()) c.add(w, CompletionItemKind::Keyword, "", describeKeyword(w), kKeyword);
  return c.list;
}

} // namespace mdh::lsp
