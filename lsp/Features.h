/** \file
 * The per-document language features, each a pure function of one
 * Analysis (and a position as a code-point offset in its main file).
 * MdhServer converts LSP positions, picks the analysis and calls these;
 * each is implemented in its own file (Hover.cpp, Completion.cpp, ...).
 *
 * Invariants: no feature throws on any analysis, however broken the source;
 * each returns "nothing" (empty, nullopt) rather than guessing when the
 * position is outside anything it understands.
 */
#pragma once

#include "Analysis.h"
#include "Protocol.h"

#include <optional>
#include <string>
#include <vector>

namespace mdh::lsp {

/// Exactly the compilation's diagnostics; those located in other files are
/// shown at the import that brings them in, with the real place attached.
std::vector<Diagnostic> computeDiagnostics(const Analysis &a);

std::optional<Hover> computeHover(const Analysis &a, uint32_t offset);
std::vector<DocumentSymbol> computeDocumentSymbols(const Analysis &a);
/// `probe` is an analysis of the text with a placeholder identifier
/// inserted at `offset` (see MdhServer::completion); `prefix` is the part
/// of the identifier already typed; `importDirs` are searched for `import` completion.
CompletionList computeCompletion(const Analysis &probe, uint32_t offset, const std::string &prefix,
                                 const std::string &placeholder, const std::vector<std::string> &importDirs);
std::optional<SignatureHelp> computeSignatureHelp(const Analysis &a, uint32_t offset);
SemanticTokens computeSemanticTokens(const Analysis &a, const std::string &stdlibDir);
std::vector<FoldingRange> computeFoldingRanges(const Analysis &a);
std::vector<InlayHint> computeInlayHints(const Analysis &a, Range range);
std::vector<DocumentHighlight> computeHighlights(const Analysis &a, uint32_t offset);
/// The formatter's edits for `text`, or nullopt (with `error`) when it has syntax errors.
std::optional<std::vector<TextEdit>> computeFormatting(const std::string &path, const std::string &text,
                                                       std::string &error);
/// The one edit that turns `text` into `formatted`, covering only the lines that differ.
std::vector<TextEdit> formattingEdits(const std::string &text, const std::string &formatted);

} // namespace mdh::lsp
