/** \file
 * Building an Analysis: compile, index, collect facts, lex.
 */
#include "Analysis.h"

#include <algorithm>

namespace mdh::lsp {

Analysis::Analysis(const std::string &path, const std::string &text, CompilationOptions options)
    : path_(path), comp_(std::make_unique<Compilation>(std::move(options))) {
  mainModule_ = comp_->addSource(path, text);
  if (mainModule_) mainFile_ = mainModule_->file;
  else mainFile_ = comp_->sources().findByPath(path);
  if (mainFile_ == kNoFile) mainFile_ = comp_->sources().addFile(path, text); // cannot happen; keeps invariants
  comp_->analyze();
  index_ = SymbolIndex::build(*comp_);
  facts_ = SemaFacts::collect(*comp_);
  tokens_ = lexTokens(text);
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
  auto it = std::lower_bound(tokens_.begin(), tokens_.end(), offset,
                             [](const LexToken &t, uint32_t off) { return t.end < off; });
  const LexToken *touching = nullptr;
  for (; it != tokens_.end() && it->begin <= offset; ++it) {
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
