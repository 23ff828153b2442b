/** \file
 * lexTokens: the ANTLR-generated MDHLexer run on its own, its token types
 * mapped to the coarse LexToken kinds editors use.
 */
#include "parse/Tokens.h"

#include "support/Source.h"

#include "MDHLexer.h"
#include "antlr4-runtime.h"

#include <algorithm>
#include <cctype>

namespace mdh {
namespace {

using L = mdh_antlr::MDHLexer;

/// Literal names of the generated vocabulary ("'fn'" -> "fn").
std::vector<std::string> vocabularyLiterals() {
  antlr4::ANTLRInputStream input(std::string{});
  L lexer(&input);
  const antlr4::dfa::Vocabulary &voc = lexer.getVocabulary();
  std::vector<std::string> out;
  for (size_t t = 1; t <= voc.getMaxTokenType(); ++t) {
    std::string lit = voc.getLiteralName(t);
    if (lit.size() >= 2 && lit.front() == '\'' && lit.back() == '\'') out.push_back(lit.substr(1, lit.size() - 2));
  }
  return out;
}

bool isWord(const std::string &s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isalnum(c) || c == '_'; }) &&
         !std::isdigit(static_cast<unsigned char>(s[0]));
}

LexToken::Kind classify(size_t type, const std::string &text) {
  switch (type) {
  case L::ID: return LexToken::Kind::Identifier;
  case L::INT: return LexToken::Kind::Int;
  case L::FLOAT: return LexToken::Kind::Float;
  case L::DOC_COMMENT: return LexToken::Kind::DocComment;
  case L::LINE_COMMENT:
  case L::BLOCK_COMMENT: return LexToken::Kind::Comment;
  case L::UNTERMINATED_COMMENT: return LexToken::Kind::Unterminated;
  case L::ERROR_CHAR: return LexToken::Kind::Error;
  case L::ARROW_ASCII: return LexToken::Kind::Operator;
  default: break;
  }
  if (isWord(text)) return LexToken::Kind::Keyword;
  static const std::string punct[] = {"(", ")", "[", "]", "{", "}", ",", ";", ".", ":"};
  if (std::find(std::begin(punct), std::end(punct), text) != std::end(punct)) return LexToken::Kind::Punctuation;
  return LexToken::Kind::Operator;
}

/// An input stream over text that is already decoded (SourceFile's way:
/// invalid bytes are U+FFFD), so offsets agree with SourceRange and the
/// runtime's own, slower UTF-8 decoder is not needed.
class CodePointStream : public antlr4::ANTLRInputStream {
public:
  explicit CodePointStream(std::u32string text) {
    _data = std::move(text);
    p = 0;
  }
};

} // namespace

void lexTokensFrom(std::u32string_view cps, uint32_t start, const std::function<bool(LexToken)> &emit) {
  if (start >= cps.size()) return;
  try {
    CodePointStream input(std::u32string(cps.substr(start)));
    L lexer(&input);
    lexer.removeErrorListeners();
    const size_t n = cps.size() - start;
    for (auto t = lexer.nextToken(); t && t->getType() != antlr4::Token::EOF; t = lexer.nextToken()) {
      size_t b = t->getStartIndex(), e = t->getStopIndex();
      if (b == size_t(-1) || b >= n) continue;
      e = std::min(std::max(b, e), n - 1);
      LexToken tok;
      tok.begin = uint32_t(start + b);
      tok.end = uint32_t(start + e + 1);
      tok.text = encodeUtf8(cps.substr(tok.begin, tok.end - tok.begin));
      tok.kind = classify(t->getType(), tok.text);
      if (!emit(std::move(tok))) return;
    }
  } catch (...) {
    // The grammar's ERROR_CHAR rule means the lexer cannot fail; keep what we have if it ever does.
  }
}

std::vector<LexToken> lexTokens(std::string_view utf8Text) {
  std::vector<LexToken> out;
  std::u32string cps = decodeUtf8(utf8Text);
  out.reserve(cps.size() / 4 + 16);
  lexTokensFrom(cps, 0, [&](LexToken t) {
    out.push_back(std::move(t));
    return true;
  });
  return out;
}

const std::vector<std::string> &literalTokens() {
  static const std::vector<std::string> lits = vocabularyLiterals();
  return lits;
}

const std::vector<std::string> &reservedWords() {
  static const std::vector<std::string> words = [] {
    std::vector<std::string> w;
    for (const auto &l : literalTokens())
      if (isWord(l)) w.push_back(l);
    return w;
  }();
  return words;
}

bool isReservedWord(std::string_view word) {
  const auto &w = reservedWords();
  return std::find(w.begin(), w.end(), word) != w.end();
}

} // namespace mdh
