/** \file
 * ANTLR parse tree -> AST, and ANTLR errors -> diagnostics.
 *
 * The builder tolerates missing children everywhere (ANTLR's recovery leaves
 * null contexts and "<missing>" tokens) by producing Error nodes, so later
 * stages see a well-formed tree.
 */
#include "parse/Parser.h"

#include "parse/NestingCheck.h"
#include "parse/Tokens.h"
#include "support/EditDistance.h"

#include "MDHLexer.h"
#include "MDHParser.h"
#include "antlr4-runtime.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <map>

namespace mdh {
namespace {

using P = mdh_antlr::MDHParser;

/// Deeper expressions are cut off: every later stage walks the AST
/// recursively, and sanitizer builds use large frames.
constexpr int kMaxExprDepth = 200;

std::string describeToken(const antlr4::dfa::Vocabulary &voc, size_t type) {
  if (type == antlr4::Token::EOF) return "end of file";
  switch (type) {
  case P::ID: return "identifier";
  case P::INT: return "integer";
  case P::FLOAT: return "number";
  case P::ARROW_ASCII: return "`->`";
  default: break;
  }
  std::string lit = voc.getLiteralName(type);
  if (lit.size() >= 2 && lit.front() == '\'') return "`" + lit.substr(1, lit.size() - 2) + "`";
  return voc.getDisplayName(type);
}

/// How E0002 names a stray character: quoted as written when it shows, as
/// U+XXXX when printing it would show nothing or mislead (NUL and other
/// control characters, unusual spaces, format characters such as U+200B or
/// the bidirectional overrides).
std::string strayCharacterName(const std::string &utf8) {
  const std::u32string cps = decodeUtf8(utf8);
  const char32_t c = cps.empty() ? 0 : cps[0];
  const bool invisible = c < 0x20 || (c >= 0x7F && c <= 0xA0) || c == 0xAD || (c >= 0x2000 && c <= 0x200F) ||
                         (c >= 0x2028 && c <= 0x202F) || (c >= 0x205F && c <= 0x206F) || c == 0x3000 || c == 0xFEFF;
  if (invisible) return fmt::format("U+{:04X}", uint32_t(c));
  return "`" + utf8 + "`";
}

/// A word that can only begin a declaration (a keyword, not a name spelt like one).
bool beginsDeclaration(antlr4::Token *t) {
  const std::string w = t->getText();
  return t->getType() != P::ID &&
         (w == "import" || w == "fn" || w == "record" || w == "combine" || w == "view" || w == "mdh" || w == "@");
}

class ErrorListener : public antlr4::BaseErrorListener {
public:
  ErrorListener(FileId file, DiagnosticEngine &d, int maxErrors) : file_(file), diags_(d), max_(maxErrors) {}

  void syntaxError(antlr4::Recognizer *recognizer, antlr4::Token *tok, size_t, size_t, const std::string &msg,
                   std::exception_ptr) override {
    // ANTLR's recovery can report the same offending token twice.
    if (tok && tok->getStartIndex() == lastStart_ && tok->getType() == lastType_) return;
    if (tok) { lastStart_ = tok->getStartIndex(); lastType_ = tok->getType(); }
    // The rest of a declaration or statement that already has an error: what ANTLR's
    // recovery reports there follows from the first error (a missing `o` gave 17).
    if (tok && tok->getType() != antlr4::Token::EOF && tok->getStartIndex() < quietUntil_) return;
    auto *tokenStream = recognizer ? dynamic_cast<antlr4::TokenStream *>(recognizer->getInputStream()) : nullptr;
    if (tok && tokenStream) {
      quietUntil_ = endOfStatement(tokenStream, tok);
      // Found at the word that begins the next declaration, the error ends the one
      // before (a missing `;`): the next one is not damaged.
      if (quietUntil_ > tok->getStartIndex()) damaged_.push_back({tok->getStartIndex(), quietUntil_});
    }
    if (++count_ > max_) {
      if (count_ == max_ + 1) {
        diags_.error("E0009", range(tok), "too many syntax errors; giving up on this file");
        givenUpAt_ = range(tok).begin;
      }
      return;
    }
    if (!tok) { // lexer errors cannot happen (ERROR_CHAR catches all), but be safe
      diags_.error("E0001", {file_, 0, 0}, msg);
      return;
    }
    SourceRange r = range(tok);
    if (tokenStream && (tok->getText() == "\"" || tok->getText() == "'")) {
      antlr4::Token *prev = previousToken(tokenStream, tok);
      if (prev && prev->getText() == "import" && prev->getType() != P::ID) {
        quietUntil_ = endOfImport(tokenStream, tok); // the quoted name may hold `mdh`, where endOfStatement stopped
        if (!damaged_.empty() && damaged_.back().first == tok->getStartIndex()) damaged_.back().second = quietUntil_;
        else damaged_.push_back({tok->getStartIndex(), quietUntil_});
        diags_.error("E0001", r, "an import names a module, not a file",
                     fmt::format("write `import {};` without quotes: module `a.b` is the file a/b.mdh on the "
                                 "search path (the importing file's directory, then `-I` directories)",
                                 quotedModuleName(tokenStream, tok)));
        return;
      }
    }
    if (tok->getType() == P::ERROR_CHAR) {
      const std::string spelled = asciiSpelling(tok->getText());
      diags_.error("E0002", r, fmt::format("stray character {} in program", strayCharacterName(tok->getText())),
                   spelled.empty() ? "remove it; identifiers are ASCII letters, digits and `_`"
                                   : fmt::format("operators are ASCII: write {}", spelled));
      return;
    }
    if (tok->getType() == P::UNTERMINATED_COMMENT) {
      diags_.error("E0003", {file_, r.begin, r.begin + 2}, "unterminated block comment",
                   "close the comment with `*/`");
      return;
    }
    std::vector<std::string> expected;
    if (auto *parser = dynamic_cast<antlr4::Parser *>(recognizer)) {
      try {
        antlr4::misc::IntervalSet set = parser->getExpectedTokens();
        for (size_t t : set.toList()) {
          if (t == P::ERROR_CHAR || t == P::UNTERMINATED_COMMENT) continue;
          expected.push_back(describeToken(parser->getVocabulary(), t));
        }
      } catch (...) {
      }
    }
    // `>=` closes a meta-parameter list only as a spelling of `> =`; name `>` alone.
    auto has = [&](const char *t) { return std::find(expected.begin(), expected.end(), t) != expected.end(); };
    if (has("`>`") && has("`>=`") && !has("`<=`")) expected.erase(std::find(expected.begin(), expected.end(), "`>=`"));
    std::string found = tok->getType() == antlr4::Token::EOF ? "end of file" : "`" + tok->getText() + "`";
    std::string message;
    std::string hint;
    if (expected.size() == 1) {
      message = fmt::format("expected {}, found {}", expected[0], found);
      if (expected[0] == "`;`") hint = "add `;` to end the declaration or statement";
    } else if (!expected.empty() && expected.size() <= 8) {
      message = fmt::format("unexpected {}; expected one of {}", found, fmt::join(expected, ", "));
    } else {
      message = fmt::format("unexpected {}", found);
    }
    if (auto *parser = dynamic_cast<antlr4::Parser *>(recognizer)) {
      std::string h = numberAfterDotHint(parser->getTokenStream(), tok);
      if (h.empty()) h = lettersAfterNumberHint(parser->getTokenStream(), tok);
      if (!h.empty()) hint = h;
    }
    const std::string text = tok->getText();
    if (expected.size() == 1 && has("identifier") && isReservedWord(text))
      hint = fmt::format("`{}` is a reserved word; choose another name", text);
    else if (text == "∘" && !has("`∘`"))
      hint = "`∘` (or `o`) composes the stages of an mdh declaration; in an expression, call functions: `f(g(x))`";
    else if (tok->getType() == P::ARROW_ASCII && !has("`->`"))
      hint = "`->` (or `↦`) belongs in an index function, `(i, j) -> (i)`, and before a result type";
    if (has("`∘`") && tok->getType() != P::ID && (text == "inp_view" || text == "out_view" || text == "md_hom")) {
      diags_.error("E0004", r, fmt::format("expected the composition operator `o` or `∘` before `{}`", text),
                   "stages of an mdh are composed as `out_view<..>(..) o md_hom<..>(..) o inp_view<..>(..)`");
      return;
    }
    if (hint.empty() && std::find(expected.begin(), expected.end(), "`;`") != expected.end() &&
        tok->getType() != antlr4::Token::EOF)
      hint = "a `;` may be missing before this";
    if (hint.empty() || hint == "a `;` may be missing before this") {
      const std::string keyword = misspeltKeywordHint(tokenStream, tok);
      if (!keyword.empty()) hint = keyword;
    }
    if (antlr4::Token *loop = loopWord(tokenStream, tok)) {
      hint = fmt::format("the language has no loops (`{}`): a scalar function computes one element, and a fixed "
                         "number of steps is unrolled through helper functions (see examples/mandelbrot.mdh); "
                         "iterate over data with a dimension of the md_hom",
                         loop->getText());
      // The loop's header and body, which recovery would keep as a block, report nothing more.
      quietUntil_ = std::max(quietUntil_, endOfLoop(tokenStream, tok));
      if (!damaged_.empty() && damaged_.back().first == tok->getStartIndex()) damaged_.back().second = quietUntil_;
    }
    if (hint.empty() || hint == "a `;` may be missing before this") {
      const std::string spelling = arrowSpellingHint(tokenStream, tok, has("`->`"));
      if (!spelling.empty()) hint = spelling;
    }
    (void)msg;
    // A block left open shows up only where the next declaration (or the end of the
    // file) begins, often far below the `{`: point at the `{` too.
    antlr4::Token *open = nullptr;
    if (has("`}`") && tokenStream && (tok->getType() == antlr4::Token::EOF || beginsDeclaration(tok)))
      open = unclosedBrace(tokenStream, tok);
    if (open && hint.empty()) hint = "add `}` to close the block";
    // Likewise a `(` left open: the error comes at the `;` or `}` that ends the statement.
    antlr4::Token *openParen = nullptr;
    if (!open && tokenStream && tok->getTokenIndex() != size_t(-1) &&
        (text == ";" || text == "}" || tok->getType() == antlr4::Token::EOF || beginsDeclaration(tok)))
      openParen = unclosedParen(tokenStream, tok);
    if (openParen && (hint.empty() || hint == "a `;` may be missing before this")) hint = "add `)` to close the parenthesis";
    diags_.error("E0001", r, message, hint);
    if (open) diags_.note(range(open), "this `{` is not closed");
    if (openParen) diags_.note(range(openParen), "this `(` is not closed");
  }

  /// The word of a loop statement (`while (`, `for (`, `loop {`, `do {`) when `tok`, the
  /// token the parser did not expect, is the bracket after such a word at the start of a
  /// statement; else null.
  static antlr4::Token *loopWord(antlr4::TokenStream *ts, antlr4::Token *tok) {
    if (!ts || tok->getTokenIndex() == size_t(-1) || (tok->getText() != "(" && tok->getText() != "{")) return nullptr;
    antlr4::Token *word = previousToken(ts, tok);
    if (!word || word->getType() != P::ID) return nullptr;
    const std::string w = word->getText();
    if (w != "while" && w != "for" && w != "loop" && w != "do") return nullptr;
    antlr4::Token *before = previousToken(ts, word);
    const std::string b = before ? before->getText() : "";
    return before && (b == "{" || b == "}" || b == ";") ? word : nullptr;
  }

  /// Where a loop statement beginning at its bracket `tok` ends: after the balanced
  /// `( .. )` and the `{ .. }` body that follows it (either may be missing).
  static size_t endOfLoop(antlr4::TokenStream *ts, antlr4::Token *tok) {
    size_t i = tok->getTokenIndex();
    auto skipGroup = [&](const char *openText, const char *closeText) {
      if (i >= ts->size() || ts->get(i)->getText() != openText) return;
      int depth = 0;
      for (; i < ts->size(); ++i) {
        antlr4::Token *t = ts->get(i);
        if (t->getType() == antlr4::Token::EOF) return;
        if (t->getChannel() != antlr4::Token::DEFAULT_CHANNEL) continue;
        if (t->getText() == openText) ++depth;
        else if (t->getText() == closeText && --depth == 0) { ++i; return; }
      }
    };
    auto skipHidden = [&] {
      while (i < ts->size() && ts->get(i)->getChannel() != antlr4::Token::DEFAULT_CHANNEL) ++i;
    };
    skipGroup("(", ")");
    skipHidden();
    skipGroup("{", "}");
    if (i == 0 || i > ts->size()) return tok->getStopIndex() + 1;
    return ts->get(i - 1)->getStopIndex() + 1;
  }

  /// `=>` for `->` in an index function, `): f32` for `) -> f32` after a function's
  /// parameters: the spellings of other languages.
  static std::string arrowSpellingHint(antlr4::TokenStream *ts, antlr4::Token *tok, bool arrowExpected) {
    if (!ts || tok->getTokenIndex() == size_t(-1)) return {};
    const std::string text = tok->getText();
    if (text == "=" && arrowExpected && tok->getTokenIndex() + 1 < ts->size()) {
      antlr4::Token *next = ts->get(tok->getTokenIndex() + 1);
      if (next->getText() == ">" && next->getStartIndex() == tok->getStopIndex() + 1)
        return "write `->`, not `=>`: an index function is `(i, j) -> (i)`";
    }
    antlr4::Token *prev = previousToken(ts, tok);
    if (text == ":" && prev && prev->getText() == ")")
      return "a function's result type follows `->`: `fn f(a: f32) -> f32 = ...`";
    return {};
  }

  /// The innermost `(` of the statement holding `tok` that no `)` before `tok` closes.
  static antlr4::Token *unclosedParen(antlr4::TokenStream *ts, antlr4::Token *tok) {
    int depth = 0;
    for (size_t i = std::min(tok->getTokenIndex(), ts->size()); i-- > 0;) {
      antlr4::Token *t = ts->get(i);
      if (t->getChannel() != antlr4::Token::DEFAULT_CHANNEL) continue;
      const std::string w = t->getText();
      if (w == ")") ++depth;
      else if (w == "(" && depth-- == 0) return t;
      else if (depth <= 0 && (w == ";" || w == "{" || w == "}" || beginsDeclaration(t))) return nullptr;
    }
    return nullptr;
  }

  /// A help for a misspelt keyword: a name that begins a statement or declaration and is
  /// one or two edits from a keyword. That name is the unexpected token itself between
  /// declarations, where no name can begin one (`improt std;`), else the name before it
  /// (in a statement the parser takes `retrun` for an assignment's target and fails at
  /// the `a` of `retrun a;`).
  static std::string misspeltKeywordHint(antlr4::TokenStream *ts, antlr4::Token *tok) {
    if (!ts || tok->getTokenIndex() == size_t(-1)) return {};
    static const std::vector<std::string> keywords = {"return", "let",     "mut",  "if",  "else", "import",
                                                      "fn",     "combine", "view", "mdh", "record"};
    for (antlr4::Token *word : {tok, previousToken(ts, tok)}) {
      if (!word || word->getType() != P::ID) continue;
      antlr4::Token *before = previousToken(ts, word);
      const std::string b = before ? before->getText() : "";
      if (before && b != "{" && b != "}" && b != ";") continue;
      const std::string close = closestWord(word->getText(), keywords);
      if (!close.empty()) return fmt::format("`{}` is not a keyword: did you mean `{}`?", word->getText(), close);
    }
    return {};
  }

  /// How to write a mathematical operator symbol in ASCII (empty: not one).
  static std::string asciiSpelling(const std::string &utf8) {
    static const std::map<std::string, std::string> ops = {
        {"⊕", "`+` (or the combine operator `add`)"}, {"⊗", "`*` (or `mul`)"}, {"×", "`*`"}, {"·", "`*`"},
        {"÷", "`/`"}, {"−", "`-`"}, {"≤", "`<=`"}, {"≥", "`>=`"}, {"≠", "`!=`"}, {"¬", "`!`"},
        {"∧", "`&&`"}, {"∨", "`||`"}, {"⊙", "`*`"}};
    auto it = ops.find(utf8);
    return it == ops.end() ? "" : it->second;
  }

  /// `0x10` lexes as `0` then the name `x10`, `1e` as `1` then `e`: neither is a number.
  static std::string lettersAfterNumberHint(antlr4::TokenStream *ts, antlr4::Token *tok) {
    if (!ts || tok->getType() != P::ID || tok->getTokenIndex() == size_t(-1) || tok->getTokenIndex() == 0) return {};
    antlr4::Token *num = ts->get(tok->getTokenIndex() - 1);
    if ((num->getType() != P::INT && num->getType() != P::FLOAT) || num->getStopIndex() + 1 != tok->getStartIndex())
      return {};
    const std::string n = num->getText(), w = tok->getText();
    if (n == "0" && (w[0] == 'x' || w[0] == 'X')) {
      const std::string digits = w.substr(1);
      const bool hex = !digits.empty() && digits.size() <= 15 &&
                       digits.find_first_not_of("0123456789abcdefABCDEF") == std::string::npos;
      return hex ? fmt::format("there are no hexadecimal literals: write `{}`", std::stoull(digits, nullptr, 16))
                 : "there are no hexadecimal literals: write the value in decimal";
    }
    if ((w[0] == 'e' || w[0] == 'E') && w.find_first_not_of("eE") == std::string::npos)
      return fmt::format("an exponent needs digits: write `{}e0`, or `{}`", n, n);
    return fmt::format("a number cannot be followed by letters: put an operator or a space between `{}` and `{}`", n, w);
  }


  /// The innermost `{` before `tok` that no `}` closes.
  static antlr4::Token *unclosedBrace(antlr4::TokenStream *ts, antlr4::Token *tok) {
    std::vector<antlr4::Token *> open;
    const size_t end = std::min(tok->getTokenIndex(), ts->size());
    for (size_t i = 0; i < end; ++i) {
      antlr4::Token *t = ts->get(i);
      if (t->getChannel() != antlr4::Token::DEFAULT_CHANNEL) continue;
      if (t->getText() == "{") open.push_back(t);
      else if (t->getText() == "}" && !open.empty()) open.pop_back();
    }
    return open.empty() ? nullptr : open.back();
  }

  /// Where the statement or declaration holding `tok` ends: just after the next `;`
  /// outside brackets, or at the next word that can only begin a declaration.
  static size_t endOfStatement(antlr4::TokenStream *ts, antlr4::Token *tok) {
    if (tok->getTokenIndex() == size_t(-1)) return tok->getStartIndex();
    int depth = 0;
    for (size_t i = tok->getTokenIndex(); i < ts->size(); ++i) {
      antlr4::Token *t = ts->get(i);
      if (t->getType() == antlr4::Token::EOF) return t->getStartIndex();
      if (t->getChannel() != antlr4::Token::DEFAULT_CHANNEL) continue;
      const std::string w = t->getText();
      if (depth <= 0 && beginsDeclaration(t)) return t->getStartIndex();
      if (w == "(" || w == "[" || w == "{") ++depth;
      else if (w == ")" || w == "]" || w == "}") --depth;
      else if (w == ";" && depth <= 0) return t->getStopIndex() + 1;
    }
    return tok->getStartIndex();
  }

  /// Just after the `;` that ends `import "name";` (the quoted name may hold any word,
  /// `mdh` included), or after the closing quote when no `;` follows it.
  static size_t endOfImport(antlr4::TokenStream *ts, antlr4::Token *openQuote) {
    for (size_t i = openQuote->getTokenIndex() + 1; i < ts->size(); ++i) {
      antlr4::Token *t = ts->get(i);
      if (t->getType() == antlr4::Token::EOF) return t->getStartIndex();
      if (t->getText() == ";") return t->getStopIndex() + 1;
      if (t->getText() != openQuote->getText()) continue;
      for (size_t k = i + 1; k < ts->size(); ++k) {
        antlr4::Token *n = ts->get(k);
        if (n->getChannel() != antlr4::Token::DEFAULT_CHANNEL) continue;
        return n->getText() == ";" ? n->getStopIndex() + 1 : t->getStopIndex() + 1;
      }
      return t->getStopIndex() + 1;
    }
    return openQuote->getStartIndex();
  }

  static antlr4::Token *previousToken(antlr4::TokenStream *ts, antlr4::Token *tok) {
    size_t i = tok->getTokenIndex();
    if (i == size_t(-1)) return nullptr;
    while (i > 0) {
      antlr4::Token *t = ts->get(--i);
      if (t->getChannel() == antlr4::Token::DEFAULT_CHANNEL) return t;
    }
    return nullptr;
  }

  /// `std` for `import "std.mdh";`, `a.b` for `import "a/b.mdh";`.
  static std::string quotedModuleName(antlr4::TokenStream *ts, antlr4::Token *openQuote) {
    std::string name;
    for (size_t i = openQuote->getTokenIndex() + 1; i < ts->size(); ++i) {
      antlr4::Token *t = ts->get(i);
      const std::string w = t->getText();
      if (t->getType() == antlr4::Token::EOF || w == openQuote->getText() || w == ";") break;
      if (t->getChannel() == antlr4::Token::DEFAULT_CHANNEL) name += w == "/" ? "." : w;
    }
    const std::string suffix = ".mdh";
    if (name.size() > suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0)
      name.resize(name.size() - suffix.size());
    return name.empty() ? "std" : name;
  }

  /// Source ranges [begin, end) where syntax errors were reported: the builder does not
  /// add its own errors about what ANTLR's recovery made of them.
  const std::vector<std::pair<size_t, size_t>> &damaged() const { return damaged_; }

  /// The lexer reads digits, `.`, digits as one float: `t.1.0` is `t . 1.0`, and
  /// `2.` is `2 .` (a float needs digits after the point).  Explains both.
  static std::string numberAfterDotHint(antlr4::TokenStream *ts, antlr4::Token *tok) {
    if (!ts || tok->getTokenIndex() == size_t(-1)) return {};
    auto before = [&](size_t idx) -> antlr4::Token * { // previous token on the default channel
      while (idx > 0) {
        antlr4::Token *t = ts->get(--idx);
        if (t->getChannel() == antlr4::Token::DEFAULT_CHANNEL) return t;
      }
      return nullptr;
    };
    antlr4::Token *dot = before(tok->getTokenIndex());
    if (!dot || dot->getText() != ".") return {};
    antlr4::Token *base = before(dot->getTokenIndex());
    const std::string text = tok->getText();
    if (tok->getType() == P::FLOAT && text.find_first_not_of("0123456789.") == std::string::npos) {
      size_t p = text.find('.');
      std::string a = text.substr(0, p), b = text.substr(p + 1);
      std::string obj = base && base->getType() == P::ID ? base->getText() : "x";
      return fmt::format("`.{}` is read as the number `{}`; write `({}.{}).{}` to access a nested tuple element", text,
                         text, obj, a, b);
    }
    if (base && base->getType() == P::INT && base->getStopIndex() + 1 == dot->getStartIndex())
      return fmt::format("`{}.` is not a number; write `{}.0`", base->getText(), base->getText());
    return {};
  }

  SourceRange range(antlr4::Token *t) const {
    if (!t) return {file_, 0, 0};
    size_t b = t->getStartIndex(), e = t->getStopIndex();
    if (t->getType() == antlr4::Token::EOF || b == kInvalidIndex) return {file_, uint32_t(b == kInvalidIndex ? 0 : b), uint32_t(b == kInvalidIndex ? 0 : b)};
    return {file_, uint32_t(b), uint32_t(std::max(b, e) + 1)};
  }
  int count() const { return count_; }
  /// Where E0009 gave up on the file (UINT32_MAX: it did not).
  uint32_t givenUpAt() const { return givenUpAt_; }

private:
  static constexpr size_t kInvalidIndex = ~size_t(0);
  FileId file_;
  DiagnosticEngine &diags_;
  int max_;
  int count_ = 0;
  size_t lastStart_ = ~size_t(0), lastType_ = 0;
  size_t quietUntil_ = 0;
  uint32_t givenUpAt_ = UINT32_MAX;
  std::vector<std::pair<size_t, size_t>> damaged_;
};

class Builder {
public:
  Builder(FileId file, DiagnosticEngine &d, antlr4::CommonTokenStream &tokens,
          const std::vector<std::pair<size_t, size_t>> &damaged, uint32_t givenUpAt)
      : file_(file), diags_(d), tokens_(tokens), damaged_(damaged), givenUpAt_(givenUpAt) {}

  std::unique_ptr<ast::Module> build(P::ModuleContext *m) {
    auto mod = std::make_unique<ast::Module>();
    mod->file = file_;
    mod->givenUpAt = givenUpAt_;
    collectComments(*mod);
    if (!m) return mod;
    for (auto *top : m->topLevel()) {
      if (!top) continue;
      if (auto *imp = top->importDecl()) {
        ast::Import i;
        i.range = range(imp);
        // A syntax error inside the module name leaves a name the user did not write
        // (`import 54_x;` kept `_x`): looking for it would only add a made-up E0101.
        // (A missing `;` after a good name is found at the next word: the name stands.)
        if (!imp->ident().empty()) {
          SourceRange name = range(imp->ident().back());
          if (damagedWithin({file_, i.range.begin, name.end})) continue;
        }
        for (auto *id : imp->ident()) i.path.push_back(ident(id));
        mod->order.push_back({true, mod->imports.size()});
        mod->imports.push_back(std::move(i));
      } else if (auto *d = top->decl()) {
        auto decl = buildDecl(d);
        if (!decl) continue;
        decl->doc = docBefore(d->getStart());
        mod->order.push_back({false, mod->decls.size()});
        mod->decls.push_back(std::move(decl));
      }
    }
    return mod;
  }

private:
  FileId file_;
  DiagnosticEngine &diags_;
  antlr4::CommonTokenStream &tokens_;
  const std::vector<std::pair<size_t, size_t>> &damaged_; ///< ErrorListener::damaged()
  uint32_t givenUpAt_;                                     ///< ErrorListener::givenUpAt()
  bool reportedDepth_ = false;

  /// The builder's own errors, but none where the parser gave up on the file.
  template <class... Args> void error(const char *code, SourceRange r, Args &&...args) {
    if (r.begin < givenUpAt_) diags_.error(code, r, std::forward<Args>(args)...);
  }

  /// Whether ANTLR's recovery left an error node (a skipped or made-up token) in `t`.
  static bool treeHasError(antlr4::tree::ParseTree *t) {
    if (!t) return false;
    if (dynamic_cast<antlr4::tree::ErrorNode *>(t)) return true;
    if (auto *ctx = dynamic_cast<antlr4::ParserRuleContext *>(t); ctx && ctx->exception) return true;
    for (auto *c : t->children)
      if (treeHasError(c)) return true;
    return false;
  }

  bool damagedWithin(const SourceRange &r) const {
    for (const auto &[b, e] : damaged_)
      if (b >= r.begin && b < r.end) return true;
    return false;
  }

  bool inDamagedRegion(const SourceRange &r) const {
    for (const auto &[b, e] : damaged_)
      if (r.begin >= b && r.begin < e) return true;
    return false;
  }

  SourceRange range(antlr4::Token *t) const {
    if (!t || t->getStartIndex() == size_t(-1)) return {file_, 0, 0};
    return {file_, uint32_t(t->getStartIndex()), uint32_t(std::max(t->getStartIndex(), t->getStopIndex()) + 1)};
  }
  SourceRange range(antlr4::ParserRuleContext *c) const {
    if (!c) return {file_, 0, 0};
    SourceRange b = range(c->getStart());
    antlr4::Token *stop = c->getStop();
    if (!stop || stop->getTokenIndex() < c->getStart()->getTokenIndex() || stop->getStartIndex() == size_t(-1))
      return {file_, b.begin, b.begin};
    return {file_, b.begin, uint32_t(std::max(stop->getStartIndex(), stop->getStopIndex()) + 1)};
  }
  SourceRange range(antlr4::tree::TerminalNode *n) const { return n ? range(n->getSymbol()) : SourceRange{file_, 0, 0}; }

  void collectComments(ast::Module &mod) {
    for (antlr4::Token *t : tokens_.getTokens()) {
      if (t->getChannel() != antlr4::Token::HIDDEN_CHANNEL) continue;
      ast::Comment c;
      c.range = range(t);
      c.text = t->getText();
      c.isDoc = t->getType() == P::DOC_COMMENT;
      mod.comments.push_back(std::move(c));
    }
  }

  std::string docBefore(antlr4::Token *start) {
    if (!start || start->getTokenIndex() == size_t(-1)) return {};
    std::vector<antlr4::Token *> hidden = tokens_.getHiddenTokensToLeft(start->getTokenIndex());
    std::string doc;
    // Only the run of doc comments directly above the declaration counts.
    std::vector<std::string> lines;
    for (auto it = hidden.rbegin(); it != hidden.rend(); ++it) {
      if ((*it)->getType() != P::DOC_COMMENT) break;
      std::string text = (*it)->getText().substr(3);
      if (!text.empty() && text[0] == ' ') text.erase(0, 1);
      lines.push_back(text);
    }
    for (auto it = lines.rbegin(); it != lines.rend(); ++it) doc += (doc.empty() ? "" : "\n") + *it;
    return doc;
  }

  ast::Ident ident(P::IdentContext *c) {
    ast::Ident id;
    if (!c || !c->ID()) {
      if (c) id.range = range(c);
      return id;
    }
    antlr4::Token *t = c->ID()->getSymbol();
    if (t->getTokenIndex() == size_t(-1) || t->getText().rfind("<missing", 0) == 0) {
      id.range = range(t);
      return id;
    }
    id.name = t->getText();
    id.range = range(t);
    return id;
  }

  // ---- declarations -------------------------------------------------------------------------
  std::unique_ptr<ast::Decl> buildDecl(P::DeclContext *d) {
    if (auto *f = dynamic_cast<P::FnTopContext *>(d)) return buildFn(f);
    if (auto *r = dynamic_cast<P::RecordTopContext *>(d)) return buildRecord(r->recordDecl());
    if (auto *c = dynamic_cast<P::CombineTopContext *>(d)) return buildCombine(c->combineDecl());
    if (auto *v = dynamic_cast<P::ViewTopContext *>(d)) return buildView(v->viewDecl());
    if (auto *m = dynamic_cast<P::MdhTopContext *>(d)) return buildMdh(m->mdhDecl());
    return nullptr;
  }

  void metaParams(P::MetaParamsContext *c, ast::Decl &d) {
    if (!c) return;
    metaParamList(c->metaParam(), d);
  }

  /// `<...> =`, or `<...>=` where the lexer made `>=` one token.
  void defineEq(P::DefineEqContext *c, ast::Decl &d) {
    if (!c) return;
    if (c->open) metaParamList(c->metaParam(), d);
  }

  void metaParamList(const std::vector<P::MetaParamContext *> &params, ast::Decl &d) {
    d.hasMetaParams = true;
    for (auto *p : params) {
      ast::MetaParam mp;
      auto ids = p->ident();
      if (ids.size() > 0) mp.name = ident(ids[0]);
      if (ids.size() > 1) mp.kind = ident(ids[1]);
      mp.range = range(p);
      d.metaParams.push_back(std::move(mp));
    }
  }

  std::unique_ptr<ast::Decl> buildFn(P::FnTopContext *top) {
    auto fn = std::make_unique<ast::FnDecl>();
    fn->range = range(top);
    for (auto *a : top->attribute()) fn->attributes.push_back(ident(a->ident()));
    P::FnDeclContext *c = top->fnDecl();
    if (!c) return fn;
    fn->name = ident(c->ident());
    metaParams(c->metaParams(), *fn);
    for (auto *p : c->param()) {
      ast::Param prm;
      prm.name = ident(p->ident());
      prm.type = typeRef(p->typeRef());
      prm.range = range(p);
      fn->params.push_back(std::move(prm));
    }
    if (c->typeRef()) fn->result = typeRef(c->typeRef());
    if (c->block()) {
      fn->body = block(c->block());
      fn->bodyDamaged = damagedWithin(fn->range) || treeHasError(c->block());
    } else if (c->expr()) {
      fn->exprBody = true;
      auto ret = std::make_unique<ast::Stmt>();
      ret->kind = ast::Stmt::Kind::Return;
      ret->value = expr(c->expr());
      ret->range = ret->value->range;
      fn->body.push_back(std::move(ret));
    } else {
      fn->bodyMissing = true; // the syntax error that cut it off is reported
    }
    return fn;
  }

  std::unique_ptr<ast::Decl> buildRecord(P::RecordDeclContext *c) {
    auto rec = std::make_unique<ast::RecordDecl>();
    if (!c) return rec;
    rec->range = range(c);
    rec->name = ident(c->ident());
    for (auto *f : c->field()) {
      ast::Field fld;
      fld.name = ident(f->ident());
      fld.type = typeRef(f->typeRef());
      fld.range = range(f);
      rec->fields.push_back(std::move(fld));
    }
    return rec;
  }

  std::unique_ptr<ast::Decl> buildCombine(P::CombineDeclContext *c) {
    auto cd = std::make_unique<ast::CombineDecl>();
    if (!c) return cd;
    cd->range = range(c);
    cd->name = ident(c->ident());
    defineEq(c->defineEq(), *cd);
    cd->op = combineOp(c->combineOp());
    return cd;
  }

  std::unique_ptr<ast::Decl> buildView(P::ViewDeclContext *c) {
    auto vd = std::make_unique<ast::ViewDecl>();
    if (!c) return vd;
    vd->range = range(c);
    vd->name = ident(c->ident());
    defineEq(c->defineEq(), *vd);
    vd->stage = stage(c->stage());
    return vd;
  }

  std::unique_ptr<ast::Decl> buildMdh(P::MdhDeclContext *c) {
    auto md = std::make_unique<ast::MdhDecl>();
    if (!c) return md;
    md->range = range(c);
    md->name = ident(c->ident());
    defineEq(c->defineEq(), *md);
    for (auto *s : c->stage()) md->stages.push_back(stage(s));
    // What recovery kept of a declaration with a syntax error is no composition to check
    // (E0613 would only repeat the error): an Error stage makes sema pass over it.
    if (damagedWithin(md->range)) md->stages.push_back(ast::Stage{});
    for (auto *op : c->composeOp()) {
      SourceRange r = range(op);
      md->composeOps.push_back(r);
      if (op->ident()) {
        ast::Ident id = ident(op->ident());
        if (!id.empty() && id.name != "o" && !inDamagedRegion(r))
          error("E0004", r, fmt::format("expected the composition operator `o` or `∘`, found `{}`", id.name),
                "stages of an mdh are composed as `out_view<..>(..) o md_hom<..>(..) o inp_view<..>(..)`");
      }
    }
    return md;
  }

  // ---- meta arguments, types, sizes ------------------------------------------------------------
  void metaArgs(P::MetaArgsContext *c, bool &has, std::vector<ast::MetaArg> &out) {
    if (!c) return;
    has = true;
    for (auto *a : c->metaArg()) {
      ast::MetaArg m;
      m.range = range(a);
      if (dynamic_cast<P::DynamicArgContext *>(a)) {
        m.kind = ast::MetaArg::Kind::Dynamic;
      } else if (auto *t = dynamic_cast<P::TypeArgContext *>(a)) {
        m.kind = ast::MetaArg::Kind::Type;
        m.type = typeRef(t->typeRef());
      } else if (auto *s = dynamic_cast<P::SizeArgContext *>(a)) {
        m.kind = ast::MetaArg::Kind::Size;
        m.size = sizeExpr(s->sizeExpr());
      }
      out.push_back(std::move(m));
    }
  }

  ast::TypeRef typeRef(P::TypeRefContext *c) {
    ast::TypeRef t;
    if (!c) return t;
    t.range = range(c);
    if (auto *n = dynamic_cast<P::NamedTypeContext *>(c)) {
      t.kind = ast::TypeRef::Kind::Named;
      t.name = ident(n->ident());
      if (t.name.empty()) t.kind = ast::TypeRef::Kind::Error;
    } else if (auto *tu = dynamic_cast<P::TupleTypeContext *>(c)) {
      t.kind = ast::TypeRef::Kind::Tuple;
      for (auto *e : tu->typeRef()) t.elems.push_back(typeRef(e));
    } else if (dynamic_cast<P::UnitTypeContext *>(c)) {
      t.kind = ast::TypeRef::Kind::Unit;
    }
    return t;
  }

  ast::SizeExprPtr sizeExpr(P::SizeExprContext *c, int depth = 0) {
    auto s = std::make_unique<ast::SizeExpr>();
    if (!c) return s;
    s->range = range(c);
    if (depth > kMaxExprDepth) {
      reportTooDeep(s->range, "compute the size, or pass part of it as a size meta-parameter");
      return s;
    }
    if (auto *i = dynamic_cast<P::SizeIntContext *>(c)) {
      s->kind = ast::SizeExpr::Kind::Int;
      s->value = parseSizeInt(i->INT());
    } else if (auto *n = dynamic_cast<P::SizeNameContext *>(c)) {
      s->kind = ast::SizeExpr::Kind::Name;
      s->name = ident(n->ident());
      if (s->name.empty()) s->kind = ast::SizeExpr::Kind::Error;
    } else if (auto *p = dynamic_cast<P::SizeParenContext *>(c)) {
      return sizeExpr(p->sizeExpr(), depth + 1);
    } else if (auto *m = dynamic_cast<P::SizeMulContext *>(c)) {
      auto ops = m->sizeExpr();
      std::string op = m->op ? m->op->getText() : "*";
      s->kind = op == "*" ? ast::SizeExpr::Kind::Mul : op == "/" ? ast::SizeExpr::Kind::Div : ast::SizeExpr::Kind::Mod;
      s->lhs = sizeExpr(ops.size() > 0 ? ops[0] : nullptr, depth + 1);
      s->rhs = sizeExpr(ops.size() > 1 ? ops[1] : nullptr, depth + 1);
    } else if (auto *a = dynamic_cast<P::SizeAddContext *>(c)) {
      auto ops = a->sizeExpr();
      s->kind = a->op && a->op->getText() == "-" ? ast::SizeExpr::Kind::Sub : ast::SizeExpr::Kind::Add;
      s->lhs = sizeExpr(ops.size() > 0 ? ops[0] : nullptr, depth + 1);
      s->rhs = sizeExpr(ops.size() > 1 ? ops[1] : nullptr, depth + 1);
    }
    return s;
  }

  int64_t parseSizeInt(antlr4::tree::TerminalNode *n) {
    if (!n) return 0;
    const std::string text = n->getText();
    errno = 0;
    unsigned long long v = std::strtoull(text.c_str(), nullptr, 10);
    if (errno == ERANGE || v >= (1ull << 62)) {
      error("E0005", range(n), fmt::format("size `{}` is too large", text), "sizes must be below 2^62");
      return 1;
    }
    return int64_t(v);
  }

  // ---- stages ------------------------------------------------------------------------------------
  ast::Stage stage(P::StageContext *c) {
    ast::Stage s;
    if (!c) return s;
    s.range = range(c);
    if (auto *v = dynamic_cast<P::ViewStageContext *>(c)) {
      s.kind = v->kind && v->kind->getText() == "out_view" ? ast::Stage::Kind::OutView : ast::Stage::Kind::InpView;
      metaArgs(v->metaArgs(), s.hasMetaArgs, s.metaArgs);
      for (auto *b : v->bufferView()) s.buffers.push_back(bufferView(b));
    } else if (auto *m = dynamic_cast<P::MdHomStageContext *>(c)) {
      s.kind = ast::Stage::Kind::MdHom;
      metaArgs(m->metaArgs(), s.hasMetaArgs, s.metaArgs);
      s.fn = scalarFnRef(m->scalarFnRef());
      for (auto *op : m->combineOp()) s.ops.push_back(combineOp(op));
    } else if (auto *r = dynamic_cast<P::RefStageContext *>(c); r && !inDamagedRegion(s.range)) {
      // (In a damaged region a name here is what recovery made of the tokens after the
      // error, e.g. the `T` of `inp_view<T>` after a missing `o`: it stays an Error stage.)
      s.kind = ast::Stage::Kind::Ref;
      s.name = ident(r->ident());
      metaArgs(r->metaArgs(), s.hasMetaArgs, s.metaArgs);
    }
    return s;
  }

  ast::BufferView bufferView(P::BufferViewContext *c) {
    ast::BufferView b;
    b.range = range(c);
    b.name = ident(c->ident());
    if (auto *sd = c->shapeDecl()) {
      b.hasShape = true;
      for (auto *e : sd->sizeExpr()) b.shape.push_back(sizeExpr(e));
    }
    for (auto *f : c->indexFn()) {
      ast::IndexFn fn;
      fn.range = range(f);
      for (auto *id : f->ident()) fn.params.push_back(ident(id));
      for (auto *e : f->expr()) fn.results.push_back(expr(e));
      b.accesses.push_back(std::move(fn));
    }
    return b;
  }

  ast::ScalarFnRef scalarFnRef(P::ScalarFnRefContext *c) {
    ast::ScalarFnRef f;
    if (!c) return f;
    f.range = range(c);
    if (auto *n = dynamic_cast<P::NamedFnRefContext *>(c)) {
      f.name = ident(n->ident());
      metaArgs(n->metaArgs(), f.hasMetaArgs, f.metaArgs);
    } else if (auto *s = dynamic_cast<P::SymbolFnRefContext *>(c)) {
      f.isSymbol = true;
      f.symbol = s->opSymbol() ? s->opSymbol()->getText() : "*";
    }
    return f;
  }

  ast::CombineOp combineOp(P::CombineOpContext *c) {
    ast::CombineOp op;
    if (!c) return op;
    op.range = range(c);
    if (dynamic_cast<P::ConcatOpContext *>(c)) {
      op.kind = ast::CombineOp::Kind::Concat;
    } else if (auto *b = dynamic_cast<P::BuilderOpContext *>(c)) {
      op.name = ident(b->ident());
      op.op = opRef(b->opRef());
      if (op.name.name == "pw") op.kind = ast::CombineOp::Kind::PointWise;
      else if (op.name.name == "ps") op.kind = ast::CombineOp::Kind::PrefixSum;
      else if (!op.name.empty())
        error("E0006", op.name.range, fmt::format("unknown combine-operator builder `{}`", op.name.name),
              "use `pw(op)` for point-wise combination or `ps(op)` for a prefix sum");
    } else if (auto *s = dynamic_cast<P::SymbolOpContext *>(c)) {
      op.kind = ast::CombineOp::Kind::PointWise;
      op.symbolShorthand = true;
      op.op.kind = ast::OpRef::Kind::Symbol;
      op.op.symbol = s->opSymbol() ? s->opSymbol()->getText() : "+";
      op.op.range = op.range;
    } else if (auto *n = dynamic_cast<P::NamedOpContext *>(c)) {
      op.kind = ast::CombineOp::Kind::Named;
      op.name = ident(n->ident());
      metaArgs(n->metaArgs(), op.hasMetaArgs, op.metaArgs);
    }
    return op;
  }

  ast::OpRef opRef(P::OpRefContext *c) {
    ast::OpRef r;
    if (!c) return r;
    r.range = range(c);
    if (auto *s = dynamic_cast<P::SymbolOpRefContext *>(c)) {
      r.kind = ast::OpRef::Kind::Symbol;
      r.symbol = s->opSymbol() ? s->opSymbol()->getText() : "+";
    } else if (auto *n = dynamic_cast<P::NamedOpRefContext *>(c)) {
      r.kind = ast::OpRef::Kind::Named;
      r.name = ident(n->ident());
      metaArgs(n->metaArgs(), r.hasMetaArgs, r.metaArgs);
    } else if (auto *t = dynamic_cast<P::TupleOpRefContext *>(c)) {
      r.kind = ast::OpRef::Kind::Tuple;
      for (auto *e : t->opRef()) r.elems.push_back(opRef(e));
    }
    return r;
  }

  // ---- statements and expressions ------------------------------------------------------------------
  std::vector<ast::StmtPtr> block(P::BlockContext *c) {
    std::vector<ast::StmtPtr> out;
    if (!c) return out;
    for (auto *s : c->stmt()) out.push_back(stmt(s));
    return out;
  }

  ast::StmtPtr stmt(P::StmtContext *c) {
    auto s = std::make_unique<ast::Stmt>();
    if (!c) return s;
    s->range = range(c);
    if (auto *l = dynamic_cast<P::LetStmtContext *>(c)) {
      s->kind = ast::Stmt::Kind::Let;
      s->isMutable = l->mut != nullptr;
      s->name = ident(l->ident());
      if (l->typeRef()) s->declaredType = typeRef(l->typeRef());
      s->value = expr(l->expr());
    } else if (auto *a = dynamic_cast<P::AssignStmtContext *>(c)) {
      // An "assignment" with a syntax error in it is often the recovery's guess, not the
      // program's: `retrun a;` (a made-up `=`), `lte x = a;` (`x` dropped).  Nothing in it
      // is checked, and the names it holds are known afterwards (`return x;` is no error).
      if (!a->op || a->op->getTokenIndex() == size_t(-1) || treeHasError(a)) {
        s->damagedNames = namesIn(c);
        return s; // Kind::Error
      }
      s->kind = ast::Stmt::Kind::Assign;
      s->name = ident(a->ident());
      s->assignOp = a->op ? a->op->getText() : "=";
      s->value = expr(a->expr());
    } else if (auto *i = dynamic_cast<P::IfStmtContext *>(c)) {
      s->kind = ast::Stmt::Kind::If;
      s->value = expr(i->expr());
      auto blocks = i->block();
      if (!blocks.empty()) {
        s->body = block(blocks[0]);
        s->thenEnd = range(blocks[0]).end;
      }
      if (blocks.size() > 1) {
        s->hasElse = true;
        s->elseBody = block(blocks[1]);
      } else if (i->ifTail) {
        s->hasElse = true;
        s->elseBody.push_back(stmt(i->ifTail));
      }
    } else if (auto *r = dynamic_cast<P::ReturnStmtContext *>(c)) {
      s->kind = ast::Stmt::Kind::Return;
      s->value = expr(r->expr());
    } else if (auto *b = dynamic_cast<P::BlockStmtContext *>(c); b && inDamagedRegion(s->range)) {
      // A block inside a statement with a syntax error: the body of `while (..) { .. }`,
      // which recovery keeps as a block of its own.
      s->damagedNames = namesIn(c);
      return s; // Kind::Error
    } else if (auto *b = dynamic_cast<P::BlockStmtContext *>(c)) {
      s->kind = ast::Stmt::Kind::Block;
      s->body = block(b->block());
    }
    return s;
  }

  /// The names (identifier tokens) of the source text of `c`.
  std::vector<ast::Ident> namesIn(antlr4::ParserRuleContext *c) const {
    std::vector<ast::Ident> out;
    if (!c || !c->getStart() || !c->getStop()) return out;
    const size_t first = c->getStart()->getTokenIndex(), last = c->getStop()->getTokenIndex();
    if (first == size_t(-1) || last == size_t(-1)) return out;
    for (size_t i = first; i <= last && i < tokens_.size(); ++i) {
      antlr4::Token *t = tokens_.get(i);
      if (t->getType() == P::ID && t->getChannel() == antlr4::Token::DEFAULT_CHANNEL) {
        ast::Ident id;
        id.name = t->getText();
        id.range = range(t);
        out.push_back(std::move(id));
      }
    }
    return out;
  }

  /// E0008, once per file: the node at `r` is dropped (an Error node), and
  /// the error keeps every command, the formatter included, from using the tree.
  void reportTooDeep(SourceRange r, const char *hint) {
    if (reportedDepth_) return;
    reportedDepth_ = true;
    error("E0008", r, "expression is nested too deeply", hint);
  }

  ast::ExprPtr errorExpr(SourceRange r) {
    auto e = std::make_unique<ast::Expr>();
    e->kind = ast::Expr::Kind::Error;
    e->range = r;
    return e;
  }

  ast::ExprPtr expr(P::ExprContext *c, int depth = 0) {
    if (!c) return errorExpr({file_, 0, 0});
    auto e = std::make_unique<ast::Expr>();
    e->range = range(c);
    if (depth > kMaxExprDepth) {
      reportTooDeep(e->range, "split it with `let` bindings");
      return e;
    }
    using K = ast::Expr::Kind;
    if (auto *f = dynamic_cast<P::FieldExprContext *>(c)) {
      e->kind = K::Field;
      e->operands.push_back(expr(f->expr(), depth + 1));
      if (f->ident()) e->name = ident(f->ident());
      else if (f->INT() && f->INT()->getSymbol()->getTokenIndex() != size_t(-1) &&
               f->INT()->getText().rfind("<missing", 0) != 0)
        e->name = {f->INT()->getText(), range(f->INT())};
      // A field name lost to a syntax error (reported already): no follow-on errors.
      if (e->name.empty()) e->kind = K::Error;
    } else if (auto *call = dynamic_cast<P::CallExprContext *>(c)) {
      e->kind = K::Call;
      e->name = ident(call->ident());
      for (auto *a : call->expr()) e->operands.push_back(expr(a, depth + 1));
    } else if (auto *rec = dynamic_cast<P::RecordExprContext *>(c)) {
      e->kind = K::Record;
      e->name = ident(rec->ident());
      for (auto *fi : rec->fieldInit()) e->fields.push_back({ident(fi->ident()), expr(fi->expr(), depth + 1)});
    } else if (auto *u = dynamic_cast<P::UnaryExprContext *>(c)) {
      e->kind = K::Unary;
      std::string op = u->op ? u->op->getText() : "-";
      e->unaryOp = op == "!" ? ast::UnaryOp::Not : op == "~" ? ast::UnaryOp::BitNot : ast::UnaryOp::Neg;
      e->operands.push_back(expr(u->expr(), depth + 1));
    } else if (auto *cast = dynamic_cast<P::CastExprContext *>(c)) {
      e->kind = K::Cast;
      e->operands.push_back(expr(cast->expr(), depth + 1));
      e->castType = typeRef(cast->typeRef());
    } else if (auto *b = dynamic_cast<P::BinaryExprContext *>(c)) {
      e->kind = K::Binary;
      e->binaryOp = binaryOp(b->op ? b->op->getText() : "+");
      auto ops = b->expr();
      e->operands.push_back(expr(ops.size() > 0 ? ops[0] : nullptr, depth + 1));
      e->operands.push_back(expr(ops.size() > 1 ? ops[1] : nullptr, depth + 1));
    } else if (auto *cond = dynamic_cast<P::CondExprContext *>(c)) {
      e->kind = K::Cond;
      auto ops = cond->expr();
      for (size_t i = 0; i < 3; ++i) e->operands.push_back(expr(i < ops.size() ? ops[i] : nullptr, depth + 1));
    } else if (auto *p = dynamic_cast<P::ParenExprContext *>(c)) {
      auto inner = expr(p->expr(), depth + 1);
      inner->range = e->range; // keep the parentheses in the range for diagnostics
      return inner;
    } else if (auto *t = dynamic_cast<P::TupleExprContext *>(c)) {
      e->kind = K::Tuple;
      for (auto *x : t->expr()) e->operands.push_back(expr(x, depth + 1));
    } else if (auto *i = dynamic_cast<P::IntExprContext *>(c)) {
      e->kind = K::Int;
      e->text = i->INT() ? i->INT()->getText() : "0";
      errno = 0;
      unsigned long long v = std::strtoull(e->text.c_str(), nullptr, 10);
      if (errno == ERANGE) {
        e->intOverflow = true;
        error("E0007", e->range, fmt::format("integer literal `{}` does not fit in 64 bits", e->text),
              "integer literals are at most 18446744073709551615; for a larger magnitude write a float literal "
              "such as `1e23`");
      }
      e->intValue = v;
    } else if (auto *fl = dynamic_cast<P::FloatExprContext *>(c)) {
      e->kind = K::Float;
      e->text = fl->FLOAT() ? fl->FLOAT()->getText() : "0.0";
      e->floatValue = std::strtod(e->text.c_str(), nullptr);
    } else if (auto *bl = dynamic_cast<P::BoolExprContext *>(c)) {
      e->kind = K::Bool;
      e->boolValue = bl->getText() == "true";
    } else if (auto *n = dynamic_cast<P::NameExprContext *>(c)) {
      e->kind = K::Name;
      e->name = ident(n->ident());
      if (e->name.empty()) e->kind = K::Error;
    }
    return e;
  }

  static ast::BinaryOp binaryOp(const std::string &s) {
    using B = ast::BinaryOp;
    static const std::pair<const char *, B> table[] = {
        {"*", B::Mul}, {"/", B::Div}, {"%", B::Mod}, {"+", B::Add}, {"-", B::Sub}, {"<<", B::Shl},
        {">>", B::Shr}, {"<", B::Lt}, {"<=", B::Le}, {">", B::Gt}, {">=", B::Ge}, {"==", B::Eq},
        {"!=", B::Ne}, {"&", B::BitAnd}, {"^", B::BitXor}, {"|", B::BitOr}, {"&&", B::And}, {"||", B::Or}};
    for (const auto &[k, v] : table)
      if (s == k) return v;
    return B::Add;
  }
};

/// ANTLR's recovery, except between declarations: a token there that cannot begin one
/// (`improt std;`) made the module rule throw, and its recovery consumed the rest of
/// the file, so nothing after the typo was parsed or checked.  Here the error is
/// reported as usual and the tokens up to the next word that can only begin a
/// declaration are skipped.
class TopLevelRecovery : public antlr4::DefaultErrorStrategy {
public:
  void sync(antlr4::Parser *parser) override {
    if (!dynamic_cast<P::ModuleContext *>(parser->getContext()) || inErrorRecoveryMode(parser))
      return antlr4::DefaultErrorStrategy::sync(parser);
    antlr4::Token *t = parser->getCurrentToken();
    if (t->getType() == antlr4::Token::EOF || beginsDeclaration(t)) return;
    beginErrorCondition(parser);
    parser->notifyErrorListeners(t, "extraneous input", nullptr);
    while (parser->getCurrentToken()->getType() != antlr4::Token::EOF && !beginsDeclaration(parser->getCurrentToken()))
      parser->consume();
    endErrorCondition(parser);
  }
};

} // namespace

std::unique_ptr<ast::Module> parseModule(const SourceManager &sm, FileId file, DiagnosticEngine &diags,
                                         const ParseLimits &limits) {
  const SourceFile &src = sm.file(file);
  if (src.codePoints().size() > limits.maxFileCodePoints) {
    diags.error("E0010", {file, 0, 0},
                fmt::format("file is too large ({} characters; the limit is {})", src.codePoints().size(),
                            limits.maxFileCodePoints),
                "split it into modules and `import` them");
    auto m = std::make_unique<ast::Module>();
    m->file = file;
    return m;
  }
  // The runtime throws on invalid UTF-8: give it the text as we decoded it
  // (invalid bytes are U+FFFD), which also keeps code-point offsets aligned.
  antlr4::ANTLRInputStream input(encodeUtf8(src.codePoints()));
  mdh_antlr::MDHLexer lexer(&input);
  lexer.removeErrorListeners();
  antlr4::CommonTokenStream tokens(&lexer);
  tokens.fill();
  P parser(&tokens);
  parser.removeErrorListeners();
  ErrorListener listener(file, diags, limits.maxSyntaxErrors);
  parser.addErrorListener(&listener);
  P::ModuleContext *tree = nullptr;
  if (checkNesting(tokens, file, diags, limits.maxNesting)) {
    try {
      // SLL first (fast); fall back to full LL only when SLL reports an error.
      parser.getInterpreter<antlr4::atn::ParserATNSimulator>()->setPredictionMode(antlr4::atn::PredictionMode::SLL);
      parser.setErrorHandler(std::make_shared<antlr4::BailErrorStrategy>());
      tree = parser.module();
    } catch (...) {
      tokens.seek(0);
      parser.reset();
      parser.setErrorHandler(std::make_shared<TopLevelRecovery>());
      parser.getInterpreter<antlr4::atn::ParserATNSimulator>()->setPredictionMode(antlr4::atn::PredictionMode::LL);
      try {
        tree = parser.module();
      } catch (...) {
        diags.error("E0001", {file, 0, 0}, "the parser could not recover from earlier errors");
        tree = nullptr;
      }
    }
  }
  Builder builder(file, diags, tokens, listener.damaged(), listener.givenUpAt());
  return builder.build(tree);
}

} // namespace mdh
