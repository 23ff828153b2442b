/** \file
 * The tokens of one open document, kept up to date edit by edit.
 *
 * Lexing a 2,000-line file with the ANTLR lexer costs about as much as a
 * third of a full analysis, and an edit changes a few tokens; so after an
 * edit only the touched region is re-lexed, from the token the edit starts
 * in until the new tokens fall into step with the old ones again.  The MDH
 * lexer has one mode and no predicates, so two token streams that have a
 * token boundary at the same (shifted) place agree from there on.
 * Invariant: tokens() always equals lexTokens(text()) (the unit tests check
 * this on random edits).
 */
#pragma once

#include "parse/Tokens.h"

#include "Protocol.h"

#include <memory>
#include <string>
#include <vector>

namespace mdh::lsp {

class TokenCache {
public:
  explicit TokenCache(const std::string &utf8Text = "");

  /// Replaces code points [begin, end) of the text by `replacement` (UTF-8).
  void edit(uint32_t begin, uint32_t end, const std::string &replacement);
  /// Applies an LSP content change (UTF-16 range, clamped as Document does).
  void apply(const TextDocumentContentChange &change);
  /// Replaces the whole text.
  void reset(const std::string &utf8Text);

  /// The current tokens; the snapshot stays valid (and unchanged) after later edits.
  std::shared_ptr<const std::vector<LexToken>> tokens() const { return tokens_; }
  const std::u32string &text() const { return text_; }
  /// Code-point offset of an LSP position in the current text (clamped).
  uint32_t offsetOf(Position p) const;

private:
  std::u32string text_;
  std::shared_ptr<const std::vector<LexToken>> tokens_;
};

} // namespace mdh::lsp
