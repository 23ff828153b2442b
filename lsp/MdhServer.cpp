/** \file
 * MdhServer: documents, lazily built analyses, cross-document navigation
 * (definition, references, rename), and the per-document features of
 * Features.h behind URI/position conversion.
 */
#include "MdhServer.h"

#include "Analysis.h"
#include "Document.h"
#include "Features.h"
#include "IncrementalParse.h"
#include "AstCopy.h"
#include "Builtins.h"
#include "ast/Printer.h"
#include "TokenCache.h"
#include "Uri.h"
#include "parse/Tokens.h"
#include "sema/Type.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

namespace mdh::lsp {

namespace {

std::string canonical(const std::string &path) {
  std::error_code ec;
  std::string c = std::filesystem::weakly_canonical(path, ec).string();
  return ec || c.empty() ? path : c;
}

bool isIdentChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

bool isIdentifier(const std::string &s) {
  if (s.empty() || (s[0] >= '0' && s[0] <= '9')) return false;
  for (char c : s)
    if (!isIdentChar(c)) return false;
  return true;
}

constexpr const char *kPlaceholder = "__mdh_lsp_completion__";

} // namespace

struct MdhServer::Impl {
  struct Entry {
    std::unique_ptr<Document> doc;
    TokenCache tokens; ///< kept in step with doc, edit by edit
    std::shared_ptr<IncrementalParser> parser = std::make_shared<IncrementalParser>();
    /// How the current analysis parsed the document (written by its parse hook).
    std::shared_ptr<IncrementalParser::Stats> parseStats = std::make_shared<IncrementalParser::Stats>();
    std::string canonicalPath;
    std::shared_ptr<const Analysis> analysis; ///< null: stale
    std::set<std::string> loaded;            ///< canonical paths the last analysis read
    bool diagnosticsTaken = false;
  };

  Options opts;
  std::string stdlibDir;
  std::map<std::string, Entry> docs; ///< by URI
  std::vector<std::shared_ptr<const Analysis>> retired; ///< replaced, to be freed when idle

  bool verifyIncremental = false;

  explicit Impl(Options o) : opts(std::move(o)) {
    stdlibDir = opts.stdlibDir.empty() ? findStdlibDir() : opts.stdlibDir;
    verifyIncremental = opts.verifyIncrementalParse;
  }

  /// Test mode: the assembled module must equal a whole-file parse, ranges included.
  static void verifyAgainstFullParse(const SourceManager &sm, FileId id, const ParseLimits &limits,
                                     const ast::Module &incremental, const std::vector<mdh::Diagnostic> &diags) {
    SourceManager scratch;
    DiagnosticEngine d;
    FileId f = scratch.addFile(sm.file(id).path(), sm.file(id).utf8());
    auto whole = parseModule(scratch, f, d, limits);
    std::vector<std::pair<uint32_t, uint32_t>> a, b;
    forEachRange(*whole, [&](const SourceRange &r) { a.push_back({r.begin, r.end}); });
    forEachRange(incremental, [&](const SourceRange &r) { b.push_back({r.begin, r.end}); });
    bool sameDiags = d.all().size() == diags.size();
    for (size_t i = 0; sameDiags && i < diags.size(); ++i) {
      const auto &x = d.all()[i], &y = diags[i];
      sameDiags = x.code == y.code && x.message == y.message && x.range.begin == y.range.begin &&
                  x.range.end == y.range.end && x.hint == y.hint && x.notes.size() == y.notes.size();
    }
    bool sameDump = ast::dumpModule(*whole) == ast::dumpModule(incremental);
    if (!sameDiags || a != b || !sameDump) {
      if (const char *dump = std::getenv("MDH_LSP_MISMATCH_DUMP")) {
        std::ofstream(dump, std::ios::binary) << sm.file(id).utf8();
      }
      std::fprintf(stderr, "mdh-lsp: incremental parse mismatch in %s (%s%s%s)\n", sm.file(id).path().c_str(),
                   sameDiags ? "" : "diagnostics ", a == b ? "" : "ranges ", sameDump ? "" : "tree");
      for (size_t i = 0; i < std::max(d.all().size(), diags.size()) && i < 6; ++i)
        std::fprintf(stderr, "  whole: %s | incremental: %s\n",
                     i < d.all().size() ? (d.all()[i].code + " " + std::to_string(d.all()[i].range.begin) + " " +
                                           d.all()[i].message).c_str() : "-",
                     i < diags.size() ? (diags[i].code + " " + std::to_string(diags[i].range.begin) + " " +
                                         diags[i].message).c_str() : "-");
    }
  }

  CompilationOptions compilationOptions() {
    CompilationOptions co;
    co.includeDirs = opts.includeDirs;
    co.stdlibDir = stdlibDir;
    // Open buffers win over the files on disk, as the user sees them.
    co.readFile = [this](const std::string &path, std::string &text) {
      std::string c = canonical(path);
      for (const auto &[uri, e] : docs)
        if (e.canonicalPath == c) {
          text = e.doc->text();
          return true;
        }
      std::error_code ec;
      if (!std::filesystem::is_regular_file(path, ec)) return false;
      std::ifstream in(path, std::ios::binary);
      if (!in) return false;
      std::ostringstream ss;
      ss << in.rdbuf();
      text = ss.str();
      return !in.bad();
    };
    return co;
  }

  Entry *entry(const std::string &uri) {
    auto it = docs.find(uri);
    return it == docs.end() ? nullptr : &it->second;
  }

  /// Analyses `text`; with the document's parser and tokens, unchanged declarations are not re-parsed.
  std::shared_ptr<const Analysis> analyze(const std::string &path, const std::string &text,
                                          std::shared_ptr<const std::vector<LexToken>> tokens = nullptr,
                                          std::shared_ptr<IncrementalParser> parser = nullptr, bool keepCache = true,
                                          std::shared_ptr<IncrementalParser::Stats> stats = nullptr) {
    try {
      CompilationOptions co = compilationOptions();
      if (parser && tokens) {
        bool verify = verifyIncremental;
        co.parse = [parser, tokens, keepCache, verify, stats](const SourceManager &sm, FileId id,
                                                              DiagnosticEngine &d, const ParseLimits &limits) {
          if (id != 0) return parseModule(sm, id, d, limits); // imports: the main file is the first one loaded
          const size_t before = d.all().size();
          auto m = parser->parse(sm, id, d, limits, *tokens, keepCache);
          if (stats) *stats = parser->lastStats();
          if (verify && !parser->lastStats().fullParse)
            verifyAgainstFullParse(sm, id, limits, *m,
                                   std::vector<mdh::Diagnostic>(d.all().begin() + long(before), d.all().end()));
          return m;
        };
      }
      return std::make_shared<const Analysis>(path, text, std::move(co), std::move(tokens));
    } catch (...) {
      // A front-end bug must not take the server down: answer as for an empty file.
      return std::make_shared<const Analysis>(path, std::string(), compilationOptions());
    }
  }

  std::shared_ptr<const Analysis> analysisFor(const std::string &uri) {
    Entry *e = entry(uri);
    if (!e) return nullptr;
    if (!e->analysis) {
      *e->parseStats = IncrementalParser::Stats{};
      e->parseStats->fullParse = true;
      e->analysis = analyze(e->doc->path(), e->doc->text(), e->tokens.tokens(), e->parser, true, e->parseStats);
      e->loaded.clear();
      for (const auto &p : e->analysis->loadedPaths()) e->loaded.insert(canonical(p));
    }
    return e->analysis;
  }

  /// Marks `changed` and every open document that read it as stale.
  void invalidate(const Entry &changed) {
    for (auto &[uri, e] : docs) {
      if (&e == &changed || e.loaded.count(changed.canonicalPath)) {
        if (e.analysis) retired.push_back(std::move(e.analysis));
        e.analysis.reset();
        e.diagnosticsTaken = false;
      }
    }
  }

  std::string uriOfPath(const std::string &path) {
    std::string c = canonical(path);
    for (const auto &[uri, e] : docs)
      if (e.canonicalPath == c || e.doc->path() == path) return uri;
    return uriFromPath(path);
  }

  Location locationOf(const Analysis &a, const SourceRange &r) {
    return {uriOfPath(a.pathOf(r.file)), a.range(r)};
  }

  /// Every occurrence of the symbol under the cursor, in this document's
  /// compilation and (for top-level symbols) in every other open document's.
  std::vector<std::pair<Location, Occurrence::Role>> occurrencesAt(const std::string &uri, Position pos,
                                                                   const Symbol **symbolOut = nullptr) {
    std::vector<std::pair<Location, Occurrence::Role>> out;
    auto a = analysisFor(uri);
    if (!a) return out;
    const Occurrence *occ = a->index().at(a->mainFile(), a->offsetAt(pos));
    if (!occ || occ->symbol < 0) return out;
    if (symbolOut) *symbolOut = &a->index().symbols()[size_t(occ->symbol)];
    std::set<std::tuple<std::string, int, int, int, int>> seen;
    auto push = [&](const Analysis &an, const Occurrence &o) {
      Location l = locationOf(an, o.range);
      if (seen.insert({l.uri, l.range.start.line, l.range.start.character, l.range.end.line, l.range.end.character})
              .second)
        out.push_back({l, o.role});
    };
    for (const Occurrence *o : a->index().occurrencesOf(occ->symbol)) push(*a, *o);
    std::string key = a->index().globalKey(occ->symbol, a->sources());
    if (key.empty()) return out;
    std::vector<std::string> others;
    for (const auto &[u, e] : docs)
      if (u != uri) others.push_back(u);
    for (const auto &u : others) {
      auto b = analysisFor(u);
      if (!b) continue;
      for (size_t i = 0; i < b->index().symbols().size(); ++i) {
        if (b->index().globalKey(int(i), b->sources()) != key) continue;
        for (const Occurrence *o : b->index().occurrencesOf(int(i))) push(*b, *o);
      }
    }
    return out;
  }
};

MdhServer::MdhServer(Options options) : impl_(std::make_unique<Impl>(std::move(options))) {}
MdhServer::~MdhServer() = default;

// ---- documents -------------------------------------------------------------------------------------
void MdhServer::openDocument(const std::string &uri, std::string text, int version) {
  auto &e = impl_->docs[uri];
  e.tokens.reset(text);
  e.doc = std::make_unique<Document>(uri, std::move(text), version);
  e.canonicalPath = canonical(e.doc->path());
  impl_->invalidate(e);
}

bool MdhServer::changeDocument(const std::string &uri, const std::vector<TextDocumentContentChange> &changes,
                               int version) {
  Impl::Entry *e = impl_->entry(uri);
  if (!e) return false;
  for (const auto &c : changes) e->tokens.apply(c);
  e->doc->apply(changes, version);
  impl_->invalidate(*e);
  return true;
}

void MdhServer::closeDocument(const std::string &uri) {
  Impl::Entry *e = impl_->entry(uri);
  if (!e) return;
  impl_->invalidate(*e); // importers now read the file from disk
  impl_->docs.erase(uri);
}

void MdhServer::releaseRetired() { impl_->retired.clear(); }

void MdhServer::invalidateAll() {
  for (auto &[uri, e] : impl_->docs) {
    if (e.analysis) impl_->retired.push_back(std::move(e.analysis));
    e.analysis.reset();
    e.diagnosticsTaken = false;
  }
}

std::vector<std::string> MdhServer::openDocuments() const {
  std::vector<std::string> out;
  for (const auto &[uri, e] : impl_->docs) out.push_back(uri);
  return out;
}

std::vector<std::string> MdhServer::staleDiagnostics() const {
  std::vector<std::string> out;
  for (const auto &[uri, e] : impl_->docs)
    if (!e.diagnosticsTaken) out.push_back(uri);
  return out;
}

std::optional<std::string> MdhServer::documentText(const std::string &uri) const {
  auto it = impl_->docs.find(uri);
  if (it == impl_->docs.end()) return std::nullopt;
  return it->second.doc->text();
}

// ---- queries -----------------------------------------------------------------------------------------
std::vector<Diagnostic> MdhServer::diagnostics(const std::string &uri, int &version) {
  auto a = impl_->analysisFor(uri);
  Impl::Entry *e = impl_->entry(uri);
  if (!a || !e) return {};
  e->diagnosticsTaken = true;
  version = e->doc->version();
  return computeDiagnostics(*a);
}

std::optional<Hover> MdhServer::hover(const std::string &uri, Position pos) {
  auto a = impl_->analysisFor(uri);
  if (!a) return std::nullopt;
  return computeHover(*a, a->offsetAt(pos));
}

std::vector<Location> MdhServer::definition(const std::string &uri, Position pos) {
  auto a = impl_->analysisFor(uri);
  if (!a) return {};
  const Occurrence *occ = a->index().at(a->mainFile(), a->offsetAt(pos));
  if (!occ || occ->symbol < 0) return {};
  const Symbol &s = a->index().symbols()[size_t(occ->symbol)];
  if (s.kind == Symbol::Kind::Module) return {Location{impl_->uriOfPath(s.modulePath), Range{}}};
  if (!s.def.valid()) return {};
  return {impl_->locationOf(*a, s.def)};
}

std::vector<Location> MdhServer::references(const std::string &uri, Position pos, bool includeDeclaration) {
  std::vector<Location> out;
  for (auto &[loc, role] : impl_->occurrencesAt(uri, pos))
    if (includeDeclaration || role != Occurrence::Role::Definition) out.push_back(loc);
  return out;
}

std::vector<DocumentHighlight> MdhServer::highlights(const std::string &uri, Position pos) {
  auto a = impl_->analysisFor(uri);
  if (!a) return {};
  return computeHighlights(*a, a->offsetAt(pos));
}

std::optional<Range> MdhServer::prepareRename(const std::string &uri, Position pos, std::string &error) {
  auto a = impl_->analysisFor(uri);
  if (!a) {
    error = "the document is not open";
    return std::nullopt;
  }
  const Occurrence *occ = a->index().at(a->mainFile(), a->offsetAt(pos));
  if (!occ || occ->symbol < 0) {
    error = "there is no renamable name here";
    return std::nullopt;
  }
  const Symbol &s = a->index().symbols()[size_t(occ->symbol)];
  if (s.kind == Symbol::Kind::Builtin || s.kind == Symbol::Kind::Module) {
    error = fmt::format("`{}` is built into the language and cannot be renamed", s.name);
    if (s.kind == Symbol::Kind::Module) error = "rename the module's file instead";
    return std::nullopt;
  }
  if (s.def.valid() && s.def.file != a->mainFile()) {
    const std::string path = canonical(a->pathOf(s.def.file));
    const std::string lib = canonical(impl_->stdlibDir);
    if (!lib.empty() && path.compare(0, lib.size(), lib) == 0) {
      error = fmt::format("`{}` is declared in the standard library and cannot be renamed", s.name);
      return std::nullopt;
    }
  }
  return a->range(occ->range);
}

std::optional<WorkspaceEdit> MdhServer::rename(const std::string &uri, Position pos, const std::string &newName,
                                               std::string &error) {
  if (!prepareRename(uri, pos, error)) return std::nullopt;
  if (!isIdentifier(newName)) {
    error = fmt::format("`{}` is not an identifier", newName);
    return std::nullopt;
  }
  if (isReservedWord(newName)) {
    error = fmt::format("`{}` is a reserved word", newName);
    return std::nullopt;
  }
  const Symbol *sym = nullptr;
  auto occs = impl_->occurrencesAt(uri, pos, &sym);
  if (!sym) {
    error = "there is no renamable name here";
    return std::nullopt;
  }
  // Built-in names are not reserved words, but sema refuses declarations named
  // like them (E0204, E0222), and a local of that name would hide the built-in.
  // Record fields may take them (`max: f32`): a field is always reached with `.`.
  if (sym->kind != Symbol::Kind::Field) {
    if (!primitiveByName(newName).isError()) {
      error = fmt::format("`{}` is a built-in type; choose another name", newName);
      return std::nullopt;
    }
    if (const BuiltinFunction *f = findBuiltinFunction(newName)) {
      error = fmt::format("`{}` is a built-in {}; choose another name", newName, f->binaryOp ? "operation" : "function");
      return std::nullopt;
    }
  }
  auto a = impl_->analysisFor(uri);
  if (sym->kind == Symbol::Kind::Decl && sym->name != newName && a->sema().lookup(newName)) {
    error = fmt::format("`{}` is already defined", newName);
    return std::nullopt;
  }
  // A field or buffer beside one of the new name: two fields `y` of one record (E0209), a buffer
  // named twice in one view (E0620), or an input that is also an output (E0624).
  if (sym->kind == Symbol::Kind::Field || sym->kind == Symbol::Kind::Buffer) {
    for (const Symbol &other : a->index().symbols()) {
      if (&other == sym || other.kind != sym->kind || other.name != newName) continue;
      if (sym->kind == Symbol::Kind::Field && other.record == sym->record) {
        error = fmt::format("record `{}` already has a field `{}`", sym->record ? sym->record->name.name : "", newName);
        return std::nullopt;
      }
      if (sym->kind == Symbol::Kind::Buffer && other.decl == sym->decl) {
        error = fmt::format("`{}` already has {} buffer `{}`", sym->decl ? sym->decl->name.name : "",
                            other.outputBuffer ? "an output" : "an input", newName);
        return std::nullopt;
      }
    }
  }
  if (sym->kind != Symbol::Kind::Decl && sym->kind != Symbol::Kind::Field) {
    // A local name must not capture another name visible where it is used.
    for (const auto &[loc, role] : occs) {
      uint32_t off = a->offsetAt(loc.range.start);
      for (int id : a->index().visibleAt(a->mainFile(), off))
        if (a->index().symbols()[size_t(id)].name == newName && &a->index().symbols()[size_t(id)] != sym) {
          error = fmt::format("`{}` is already visible there", newName);
          return std::nullopt;
        }
    }
  }
  WorkspaceEdit edit;
  for (const auto &[loc, role] : occs) edit.changes[loc.uri].push_back({loc.range, newName});
  return edit;
}

std::vector<DocumentSymbol> MdhServer::documentSymbols(const std::string &uri) {
  auto a = impl_->analysisFor(uri);
  if (!a) return {};
  return computeDocumentSymbols(*a);
}

CompletionList MdhServer::completion(const std::string &uri, Position pos) {
  Impl::Entry *e = impl_->entry(uri);
  if (!e) return {};
  const std::string &text = e->doc->text();
  size_t byte = e->doc->byteOffset(pos);
  size_t start = byte;
  while (start > 0 && isIdentChar(text[start - 1])) --start;
  std::string prefix = text.substr(start, byte - start);
  // A word right after the cursor joins the placeholder (`x.|best` completes
  // the field access `x.best`), which keeps the probe's parse intact.  The
  // probe is the only analysis completion needs.
  std::string probeText = text.substr(0, byte) + kPlaceholder + text.substr(byte);
  TokenCache probeTokens = e->tokens; // re-lexes only around the placeholder
  uint32_t at = probeTokens.offsetOf(pos);
  probeTokens.edit(at, at, kPlaceholder);
  auto probe = impl_->analyze(e->doc->path(), probeText, probeTokens.tokens(), e->parser, /*keepCache=*/false);
  uint32_t offset = probe->offsetAt(pos);
  // No completion inside comments.
  if (const LexToken *t = probe->tokenAt(offset)) {
    bool comment = t->kind == LexToken::Kind::Comment || t->kind == LexToken::Kind::DocComment ||
                   t->kind == LexToken::Kind::Unterminated;
    if (comment && t->begin < offset && offset < t->end) return {};
  }
  std::vector<std::string> dirs = impl_->opts.includeDirs;
  dirs.push_back(impl_->stdlibDir);
  try {
    return computeCompletion(*probe, offset, prefix, kPlaceholder, dirs);
  } catch (...) {
    return {};
  }
}

std::optional<SignatureHelp> MdhServer::signatureHelp(const std::string &uri, Position pos) {
  auto a = impl_->analysisFor(uri);
  if (!a) return std::nullopt;
  return computeSignatureHelp(*a, a->offsetAt(pos));
}

SemanticTokens MdhServer::semanticTokens(const std::string &uri) {
  auto a = impl_->analysisFor(uri);
  if (!a) return {};
  return computeSemanticTokens(*a, impl_->stdlibDir);
}

std::vector<FoldingRange> MdhServer::foldingRanges(const std::string &uri) {
  auto a = impl_->analysisFor(uri);
  if (!a) return {};
  return computeFoldingRanges(*a);
}

std::vector<InlayHint> MdhServer::inlayHints(const std::string &uri, Range range) {
  auto a = impl_->analysisFor(uri);
  if (!a) return {};
  return computeInlayHints(*a, range);
}

std::optional<std::vector<TextEdit>> MdhServer::format(const std::string &uri, std::string &error) {
  Impl::Entry *e = impl_->entry(uri);
  if (!e) {
    error = "the document is not open";
    return std::nullopt;
  }
  // Always `mdhc fmt`'s path, which parses the result again before offering it.
  return computeFormatting(e->doc->path(), e->doc->text(), error);
}

} // namespace mdh::lsp
