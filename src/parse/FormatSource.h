/** \file
 * Formatting a source text safely: `mdhc fmt` and the language server's
 * formatting request both go through formatSource().
 *
 * Invariants: a text with syntax errors is never formatted (that could lose
 * what the parser skipped), and a formatted text is returned only when it
 * parses again without an error — the printer's parentheses must not push
 * a deeply nested program past a limit (E0008), or a file would be replaced
 * by one that no longer compiles. A file just under the size limit (E0010) whose
 * formatted text would exceed it is left alone, for the same reason (TooLarge).
 */
#pragma once

#include "support/Diagnostics.h"
#include "support/Source.h"

#include <string>

namespace mdh {

struct FormatOutcome {
  enum class Status { Formatted, SyntaxErrors, TooLarge, NotReparsable };
  Status status = Status::SyntaxErrors;
  std::string text;    ///< Formatted: the new text
  std::string problem; ///< TooLarge: why; NotReparsable: the formatted text's first error
};

/// Parses `file` (its syntax errors go to `diags`) and formats it.
FormatOutcome formatSource(const SourceManager &sm, FileId file, DiagnosticEngine &diags);

} // namespace mdh
