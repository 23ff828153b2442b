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

LexToken::Kind classify(const antlr4::Token &t) {
  switch (t.getType()) {
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
  const std::string text = t.getText();
  if (isWord(text)) return LexToken::Kind::Keyword;
  static const std::string punct[] = {"(", ")", "[", "]", "{", "}", ",", ";", ".", ":"};
  if (std::find(std::begin(punct), std::end(punct), text) != std::end(punct)) return LexToken::Kind::Punctuation;
  return LexToken::Kind::Operator;
}

} // namespace

std::vector<LexToken> lexTokens(std::string_view utf8Text) {
  std::vector<LexToken> out;
  try {
    // The runtime throws on invalid UTF-8: lex the text as SourceFile decodes
    // it (invalid bytes become U+FFFD), which keeps offsets aligned with it.
    antlr4::ANTLRInputStream input{encodeUtf8(decodeUtf8(utf8Text))};
    L lexer(&input);
    lexer.removeErrorListeners();
    for (auto t = lexer.nextToken(); t && t->getType() != antlr4::Token::EOF; t = lexer.nextToken()) {
      size_t b = t->getStartIndex(), e = t->getStopIndex();
      if (b == size_t(-1)) continue;
      LexToken tok;
      tok.kind = classify(*t);
      tok.begin = uint32_t(b);
      tok.end = uint32_t(std::max(b, e) + 1);
      tok.text = t->getText();
      out.push_back(std::move(tok));
    }
  } catch (...) {
    // The grammar's ERROR_CHAR rule means the lexer cannot fail; keep what we have if it ever does.
  }
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
