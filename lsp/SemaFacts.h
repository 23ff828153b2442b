/** \file
 * What sema computed for one compilation, indexed by source range for the
 * editor: the generic hl::Program of every `mdh` declaration (derived buffer
 * shapes, combine operators, MDA sizes) and the types sema gave to
 * expressions and `let`s while instantiating them.
 *
 * Sema checks every declaration generically and keeps the generic program of
 * each `mdh` (Sema::genericProgram); scalar functions are typed inside those
 * programs.  A function no `mdh` uses has no recorded types, and an
 * expression typed in several instances has several types.  Invariants: the
 * facts point into the Compilation (its ASTs and Sema), so they must not
 * outlive it; lookups by range compare the exact (file, begin, end) triple.
 */
#pragma once

#include "driver/Compilation.h"
#include "hl/HLIR.h"

#include <map>
#include <string>
#include <tuple>
#include <vector>

namespace mdh::lsp {

struct BufferFact {
  const hl::Program *program = nullptr;
  const hl::Buffer *buffer = nullptr;
  const ast::Decl *owner = nullptr; ///< the mdh whose program this is
  bool isOutput = false;
};

class SemaFacts {
public:
  static SemaFacts collect(Compilation &comp);

  /// The generic program of an `mdh` declaration, if sema could build it.
  const hl::Program *programOf(const ast::Decl *mdh) const;
  /// Types sema gave to the expression at exactly `r` (distinct, in order of discovery).
  const std::vector<std::string> *exprTypes(const SourceRange &r) const;
  /// Type of the local bound by the `let` statement at exactly `r`.
  const std::vector<std::string> *letTypes(const SourceRange &r) const;
  /// Every program buffer built from the buffer view at `r`; the one built by
  /// `preferOwner` comes first.
  std::vector<BufferFact> buffersOf(const SourceRange &r, const ast::Decl *preferOwner = nullptr) const;
  /// The instantiated scalar functions built from `fn` (any program).
  std::vector<const hl::ScalarFunction *> instancesOf(const ast::FnDecl *fn) const;

private:
  using Key = std::tuple<FileId, uint32_t, uint32_t>;
  static Key key(const SourceRange &r) { return {r.file, r.begin, r.end}; }
  std::map<const ast::Decl *, const hl::Program *> programs_;
  std::map<Key, std::vector<std::string>> exprTypes_, letTypes_;
  std::map<Key, std::vector<BufferFact>> buffers_;
  std::map<Key, std::vector<const hl::ScalarFunction *>> functions_;
};

} // namespace mdh::lsp
