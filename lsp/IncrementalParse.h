/** \file
 * Parsing an edited buffer without re-parsing what did not change.
 *
 * The buffer's tokens (kept current by TokenCache) split it into top-level
 * items: an item ends at a `;` at bracket depth 0, or at a `}` that closes
 * depth 0 and is followed by the start of a declaration or the end of the
 * file.  Each item's text, with the whitespace and comments before it, is
 * parsed on its own with the real parser (parseModule) and cached by its text;
 * a module is then assembled from copies of the cached items, moved to their
 * place (AstCopy.h).  After an edit, only the items whose text changed are
 * parsed again.
 *
 * Exactness: `module : topLevel* EOF` parses a sequence of items item by item,
 * so when every item parses without a diagnostic the assembled module equals
 * the whole-file parse.  From the first item with a diagnostic (a syntax
 * error, or an error the AST builder reports) on, the rest of the file is
 * parsed as one piece: the parser starts it in the state a whole-file parse
 * is in there (between items, no error yet), so recovery and messages are the
 * same.  Verdicts about the whole file (nesting too deep, which yields no
 * tree at all; the size limit; an error at the file's first character) and
 * an error in the first item fall back to parsing the whole file, as `mdhc`
 * does.  The fuzz test runs the server with --verify-incremental, which
 * checks every assembled module and its diagnostics against a whole-file
 * parse.  Invariant: the cache holds only items of the last
 * parse (plus those of the probe parses of completion, which never evict).
 */
#pragma once

#include "parse/Parser.h"
#include "parse/Tokens.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace mdh::lsp {

class IncrementalParser {
public:
  /// Parses file `id` of `sm`, whose tokens are `tokens` (lexTokens of its text).
  /// `keepCache`: replace the cache with this parse's items (false for throwaway probes).
  std::unique_ptr<ast::Module> parse(const SourceManager &sm, FileId id, DiagnosticEngine &diags,
                                     const ParseLimits &limits, const std::vector<LexToken> &tokens, bool keepCache);

  /// Code-point ranges of the top-level items (exposed for tests).
  static std::vector<std::pair<uint32_t, uint32_t>> splitItems(const std::vector<LexToken> &tokens, uint32_t size);

  struct Stats {
    size_t items = 0, reparsed = 0;
    bool fullParse = false;
    uint32_t tailFrom = ~0u; ///< where the re-parsed rest of the file starts (a syntax error), or ~0
    bool clean() const { return !fullParse && tailFrom == ~0u; }
  };
  const Stats &lastStats() const { return stats_; }

private:
  struct Item {
    std::unique_ptr<ast::Module> module; ///< parsed alone, ranges relative to the item's start
    bool clean = false;                  ///< no diagnostic at all
  };
  std::map<std::string, std::shared_ptr<const Item>> cache_; ///< by item text
  Stats stats_;
};

} // namespace mdh::lsp
