/** \file
 * Parsing a .mdh source file into an AST.
 *
 * The ANTLR-generated lexer/parser do the recognition; this module turns the
 * parse tree into ast::Module and every ANTLR complaint into a Diagnostic with
 * a stable code and a range.  Invariants: parseModule never throws and always
 * returns a module (possibly partial); hostile input (deep nesting, huge
 * files) is rejected with a diagnostic before it can exhaust the stack.
 */
#pragma once

#include "ast/AST.h"
#include "support/Diagnostics.h"

#include <memory>

namespace mdh {

struct ParseLimits {
  size_t maxFileCodePoints = 4u << 20; ///< 4 Mi code points
  int maxNesting = 200;                 ///< brackets and prefix operators
  int maxSyntaxErrors = 25;
};

std::unique_ptr<ast::Module> parseModule(const SourceManager &sm, FileId file, DiagnosticEngine &diags,
                                         const ParseLimits &limits = {});

} // namespace mdh
