/** \file
 * The nesting guard: a scan of the token stream that runs before parsing.
 *
 * ANTLR's parser, the AST builder, sema, the formatter, the interpreter and
 * the code generators all recurse once per level of nesting, so a program
 * nested deeper than a fixed limit is rejected with E0008 before any of them
 * sees it, and hostile input cannot overflow their stacks.  What counts as a
 * level: an open bracket, a prefix operator in a run of them, a `?` in one
 * statement, and an `else if` (it puts the next `if` inside the previous
 * one's else branch, exactly as `else { if … }` would).  Long flat chains of
 * binary operators are bounded by the AST builder instead (E0008 as well).
 */
#pragma once

#include "support/Diagnostics.h"

namespace antlr4 {
class CommonTokenStream;
}

namespace mdh {

/// False (after reporting E0008 at the token that went too deep) when the
/// filled token stream nests more than `limit` levels.
bool checkNesting(antlr4::CommonTokenStream &tokens, FileId file, DiagnosticEngine &diags, int limit);

} // namespace mdh
