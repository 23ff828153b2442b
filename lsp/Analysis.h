/** \file
 * One analysis of one open document: a fresh Compilation of its current
 * text (imports served from open buffers first, then disk), the resulting
 * diagnostics, the symbol index, the sema facts and (lazily) the main file's
 * tokens, plus conversions between code-point offsets and LSP positions.
 *
 * An analysis is immutable once built (the lazily built index, facts and
 * tokens aside, which only memoise pure functions of it) and is replaced as a whole after an
 * edit, so a request never sees a half-updated state.  Invariants: the
 * main file is FileId `mainFile` of `comp`; the index and facts point into
 * `comp`, which the analysis owns; the diagnostics are exactly those of the
 * compilation (what `mdhc check` prints for the same text).
 */
#pragma once

#include "Protocol.h"
#include "SemaFacts.h"
#include "SymbolIndex.h"
#include "driver/Compilation.h"
#include "parse/Tokens.h"

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mdh::lsp {

class Analysis {
public:
  /// Analyses `text` as the file `path`.  `options.readFile` (if set) serves imports.
  /// `tokens`, if given, must be lexTokens(text) (the document's TokenCache).
  Analysis(const std::string &path, const std::string &text, CompilationOptions options,
           std::shared_ptr<const std::vector<LexToken>> tokens = nullptr);

  /// Sema and the diagnostics are only read after construction (lookups are const in effect).
  Sema &sema() const { return comp_->sema(); }
  const std::vector<mdh::Diagnostic> &diagnostics() const { return comp_->diags().all(); }
  const SourceManager &sources() const { return comp_->sources(); }
  FileId mainFile() const { return mainFile_; }
  const ast::Module *mainModule() const { return mainModule_; }
  /// Built on first use: publishing diagnostics needs neither.
  const SymbolIndex &index() const;
  const SemaFacts &facts() const;
  /// The main file's tokens, lexed on first use (most requests never need them).
  const std::vector<LexToken> &tokens() const;
  const SourceFile &mainSource() const { return comp_->sources().file(mainFile_); }
  const std::string &path() const { return path_; }

  // ---- coordinates --------------------------------------------------------------------------------
  /// Code-point offset in the main file of an LSP position (clamped).
  uint32_t offsetAt(Position p) const;
  Position position(FileId file, uint32_t offset) const;
  Range range(const SourceRange &r) const;
  /// The file's path (for a Location's URI).
  std::string pathOf(FileId file) const;

  /// The top-level declaration of the main file whose range contains `offset`.
  const ast::Decl *declAt(uint32_t offset) const;
  /// The main-file token containing `offset` (or ending at it), or nullptr.
  const LexToken *tokenAt(uint32_t offset) const;

  /// Paths of every file this analysis read (for invalidation when one changes).
  std::vector<std::string> loadedPaths() const;

private:
  std::string path_;
  std::unique_ptr<Compilation> comp_;
  FileId mainFile_ = kNoFile;
  const ast::Module *mainModule_ = nullptr;
  mutable std::optional<SymbolIndex> index_;
  mutable std::optional<SemaFacts> facts_;
  mutable std::shared_ptr<const std::vector<LexToken>> tokens_;
};

} // namespace mdh::lsp
