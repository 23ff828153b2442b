/** \file
 * Deep copies of AST nodes moved to another place: every SourceRange gets a
 * new file and is shifted by a number of code points.
 *
 * The incremental parser (IncrementalParse.h) parses a declaration once and
 * reuses it, wherever the declaration moves, in later analyses; this is how
 * a cached declaration is placed into a new module.  Invariant: the copy is
 * equal to the original in every field except the ranges, which are exactly
 * `original + delta` in `file` (the unit tests compare a copied module with
 * a fresh parse, ranges included, through forEachRange).  Every field of
 * ast/AST.h is listed here: a field added there must be added here too.
 */
#pragma once

#include "ast/AST.h"

#include <functional>
#include <memory>

namespace mdh::lsp {

struct RangeShift {
  FileId file;
  int64_t delta = 0;
  const std::function<void(const SourceRange &)> *observe = nullptr; ///< sees every original range
  SourceRange operator()(const SourceRange &r) const;
};

std::unique_ptr<ast::Decl> copyDecl(const ast::Decl &d, const RangeShift &s);
ast::Import copyImport(const ast::Import &i, const RangeShift &s);
ast::Comment copyComment(const ast::Comment &c, const RangeShift &s);

/// Calls `f` with every SourceRange in the module, in a fixed order.
void forEachRange(const ast::Module &m, const std::function<void(const SourceRange &)> &f);

} // namespace mdh::lsp
