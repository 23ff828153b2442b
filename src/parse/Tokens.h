/** \file
 * A lexer-only view of a .mdh source: every token (comments included) with
 * its kind and code-point range, without parsing.
 *
 * Editors need tokens where the parser gives up (semantic highlighting,
 * completion and signature help inside half-typed code), so this runs the
 * same ANTLR-generated lexer as parseModule and nothing else.  Invariants:
 * lexTokens never throws and never fails (the grammar turns any stray
 * character into an Error token); tokens are in source order, do not
 * overlap, and cover everything except whitespace; offsets are code points,
 * like SourceRange.  The reserved words come from the generated lexer's
 * vocabulary, so they cannot drift from grammar/MDH.g4.
 */
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace mdh {

struct LexToken {
  enum class Kind {
    Keyword,     ///< a reserved word: `fn`, `mdh`, `true`, ...
    Identifier,  ///< any other word (`o`, `pw`, `f32` included: they are contextual)
    Int,
    Float,
    Operator,    ///< `+`, `->`, `∘`, `++`, `=`, `@`, ...
    Punctuation, ///< `(`, `)`, `[`, `]`, `{`, `}`, `,`, `;`, `.`, `:`
    Comment,     ///< `//` and `/* */`
    DocComment,  ///< `///`
    Unterminated, ///< an unterminated `/*` (runs to the end of the file)
    Error,       ///< a character the language does not know
  };
  Kind kind = Kind::Error;
  uint32_t begin = 0; ///< first code point
  uint32_t end = 0;   ///< one past the last code point
  std::string text;   ///< UTF-8 spelling
};

/// Every token of `utf8Text` in source order (no whitespace, no EOF token).
std::vector<LexToken> lexTokens(std::string_view utf8Text);

/// Lexes `codePoints` from offset `start` (which must be where a token may
/// begin), calling `emit` for each token in order with offsets into the whole
/// text, until `emit` returns false or the text ends.  For re-lexing only
/// the part of a file that an edit touched.
void lexTokensFrom(std::u32string_view codePoints, uint32_t start, const std::function<bool(LexToken)> &emit);

/// The reserved words, in the grammar's order.
const std::vector<std::string> &reservedWords();
bool isReservedWord(std::string_view word);

/// Every fixed spelling the lexer knows (`'fn'`, `'->'`, `'∘'`...), without quotes.
const std::vector<std::string> &literalTokens();

} // namespace mdh
