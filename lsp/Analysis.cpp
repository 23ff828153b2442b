/** \file
 * Building an Analysis: compile, index, collect facts, lex.
 */
#include "Analysis.h"

#include <algorithm>

namespace mdh::lsp {

Analysis::Analysis(const std::string &path, const std::string &text, CompilationOptions options,
                   std::shared_ptr<const std::vector<LexToken>> tokens)
    : path_(path), comp_(std::make_unique<Compilation>(std::move(options))), tokens_(std::move(tokens)) {
  mainModule_ = comp_->addSource(path, text);
  if (mainModule_) mainFile_ = mainModule_->file;
  else mainFile_ = comp_->sources().findByPath(path);
  if (mainFile_ == kNoFile) mainFile_ = comp_->sources().addFile(path, text); // cannot happen; keeps invariants
  comp_->analyze();
}

const SymbolIndex &Analysis::index() const {
  if (!index_) index_ = SymbolIndex::build(*comp_);
  return *index_;
}

const SemaFacts &Analysis::facts() const {
  if (!facts_) facts_ = SemaFacts::collect(*comp_);
  return *facts_;
}

const std::vector<LexToken> &Analysis::tokens() const {
  if (!tokens_) tokens_ = std::make_shared<const std::vector<LexToken>>(lexTokens(mainSource().utf8()));
  return *tokens_;
}

uint32_t Analysis::offsetAt(Position p) const {
  return mainSource().offsetOfUtf16(uint32_t(std::max(0, p.line)), uint32_t(std::max(0, p.character)));
}

Position Analysis::position(FileId file, uint32_t offset) const {
  if (file == kNoFile || file >= sources().size()) return {};
  const SourceFile &f = sources().file(file);
  LineCol lc = f.lineCol(offset);
  return {int(lc.line - 1), int(f.utf16Column(offset))};
}

Range Analysis::range(const SourceRange &r) const {
  if (!r.valid()) return {};
  return {position(r.file, r.begin), position(r.file, std::max(r.begin, r.end))};
}

std::string Analysis::pathOf(FileId file) const {
  if (file == kNoFile || file >= sources().size()) return path_;
  return sources().file(file).path();
}

const ast::Decl *Analysis::declAt(uint32_t offset) const {
  if (!mainModule_) return nullptr;
  for (const auto &d : mainModule_->decls)
    if (d->range.valid() && d->range.begin <= offset && offset <= d->range.end) return d.get();
  return nullptr;
}

const LexToken *Analysis::tokenAt(uint32_t offset) const {
  const auto &toks = tokens();
  auto it = std::lower_bound(toks.begin(), toks.end(), offset,
                             [](const LexToken &t, uint32_t off) { return t.end < off; });
  const LexToken *touching = nullptr;
  for (; it != toks.end() && it->begin <= offset; ++it) {
    if (offset < it->end) return &*it;
    if (offset == it->end) touching = &*it;
  }
  return touching;
}

std::vector<std::string> Analysis::loadedPaths() const {
  std::vector<std::string> out;
  for (FileId f = 0; f < sources().size(); ++f) out.push_back(sources().file(f).path());
  return out;
}

} // namespace mdh::lsp
