/** \file
 * checkNesting: brackets, prefix-operator runs, `?` chains and `else if`
 * chains counted over the token stream.
 */
#include "parse/NestingCheck.h"

#include "antlr4-runtime.h"

#include <fmt/format.h>

#include <vector>

namespace mdh {

bool checkNesting(antlr4::CommonTokenStream &tokens, FileId file, DiagnosticEngine &diags, int limit) {
  int prefixRun = 0, conditionals = 0;
  // `else if` links of the chain running at each bracket depth (innermost
  // last), and their sum: a chain inside a branch of another chain adds up.
  std::vector<int> chainLinks{0};
  int chainTotal = 0;
  auto endChain = [&] {
    chainTotal -= chainLinks.back();
    chainLinks.back() = 0;
  };
  std::string previous; // the previous token's text
  for (antlr4::Token *t : tokens.getTokens()) {
    if (t->getChannel() != antlr4::Token::DEFAULT_CHANNEL) continue;
    const std::string text = t->getType() == antlr4::Token::EOF ? "" : t->getText();
    if (text == "if") {
      if (previous == "else") {
        ++chainLinks.back();
        ++chainTotal;
      } else {
        endChain(); // a new `if` statement
      }
    } else if (text == "{") {
      // `) {` and `else {` open a branch of the chain; any other `{` (a block
      // statement, a record) follows the end of the chain's statement.
      if (previous != ")" && previous != "else") endChain();
    } else if (text != "else" && text != "(" && text != ")" && text != "}" && text != "]") {
      endChain(); // the chain's statement is over
    }
    if (text == "(" || text == "[" || text == "{") {
      chainLinks.push_back(0);
    } else if ((text == ")" || text == "]" || text == "}") && chainLinks.size() > 1) {
      chainTotal -= chainLinks.back();
      chainLinks.pop_back();
    }
    const int depth = int(chainLinks.size()) - 1;
    if (text == "-" || text == "!" || text == "~") ++prefixRun; else prefixRun = 0;
    if (text == "?") ++conditionals;
    if (text == ";") conditionals = 0;
    previous = text;
    if (depth + chainTotal > limit || prefixRun > limit || conditionals > limit) {
      SourceRange r{file, uint32_t(t->getStartIndex()), uint32_t(t->getStopIndex() + 1)};
      if (chainTotal > depth) // mostly `else if`s: brackets are not what to reduce
        diags.error("E0008", r, fmt::format("program is nested more than {} levels deep (each `else if` is one level)", limit),
                    "split the chain: test a range first (`if (a < 100) { … } else { … }` with a shorter chain in "
                    "each branch), or move cases into helper functions");
      else
        diags.error("E0008", r, fmt::format("program is nested more than {} levels deep", limit),
                    "split deeply nested expressions with `let` bindings");
      return false;
    }
  }
  return true;
}

} // namespace mdh
