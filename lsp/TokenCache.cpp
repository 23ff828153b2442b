/** \file
 * Incremental re-lexing with a resynchronisation point.
 */
#include "TokenCache.h"

#include "support/Source.h"

#include <algorithm>

namespace mdh::lsp {

TokenCache::TokenCache(const std::string &utf8Text) { reset(utf8Text); }

void TokenCache::reset(const std::string &utf8Text) {
  text_ = decodeUtf8(utf8Text);
  auto toks = std::make_shared<std::vector<LexToken>>();
  toks->reserve(text_.size() / 4 + 16);
  lexTokensFrom(text_, 0, [&](LexToken t) {
    toks->push_back(std::move(t));
    return true;
  });
  tokens_ = std::move(toks);
}

uint32_t TokenCache::offsetOf(Position p) const {
  uint32_t i = 0;
  for (int line = 0; line < p.line; ++line) {
    while (i < text_.size() && !lineBreakLength(text_, i)) ++i;
    if (i >= text_.size()) return uint32_t(text_.size());
    i += uint32_t(lineBreakLength(text_, i));
  }
  int units = 0;
  while (i < text_.size() && !lineBreakLength(text_, i)) {
    int w = text_[i] >= 0x10000 ? 2 : 1;
    if (units + w > p.character) break;
    units += w;
    ++i;
  }
  return i;
}

void TokenCache::apply(const TextDocumentContentChange &c) {
  if (!c.range) {
    reset(c.text);
    return;
  }
  Position s = c.range->start, e = c.range->end;
  if (e < s) std::swap(s, e);
  edit(offsetOf(s), offsetOf(e), c.text);
}

void TokenCache::edit(uint32_t begin, uint32_t end, const std::string &replacement) {
  const std::vector<LexToken> &tokens_ = *this->tokens_;
  begin = std::min<uint32_t>(begin, uint32_t(text_.size()));
  end = std::min<uint32_t>(std::max(begin, end), uint32_t(text_.size()));
  std::u32string ins = decodeUtf8(replacement);
  const int64_t delta = int64_t(ins.size()) - int64_t(end - begin);
  text_.replace(begin, end - begin, ins);

  // Keep the old tokens that end well before the edit: the lexer looks at
  // most a few characters past a token's end (`1e+5` against `1`, `e`, `+`),
  // so a margin of 8 code points is more than enough.
  constexpr uint32_t kMargin = 8;
  size_t keep = size_t(std::lower_bound(tokens_.begin(), tokens_.end(), begin,
                                        [](const LexToken &t, uint32_t off) { return t.end < off; }) -
                       tokens_.begin());
  while (keep > 0 && tokens_[keep - 1].end + kMargin > begin) --keep;
  const uint32_t start = keep > 0 ? tokens_[keep - 1].end : 0;

  // Old tokens wholly after the edit, in new coordinates, are the candidates to resync with.
  size_t resync = size_t(std::lower_bound(tokens_.begin(), tokens_.end(), end,
                                          [](const LexToken &t, uint32_t off) { return t.begin < off; }) -
                         tokens_.begin());
  std::vector<LexToken> fresh;
  size_t matchedOld = tokens_.size(); // index of the old token the new stream met
  const uint32_t newEditEnd = uint32_t(int64_t(end) + delta);
  lexTokensFrom(text_, start, [&](LexToken t) {
    if (t.begin >= newEditEnd) {
      // Skip old candidates that start before this token.
      while (resync < tokens_.size() && int64_t(tokens_[resync].begin) + delta < int64_t(t.begin)) ++resync;
      if (resync < tokens_.size() && int64_t(tokens_[resync].begin) + delta == int64_t(t.begin) &&
          int64_t(tokens_[resync].end) + delta == int64_t(t.end) && tokens_[resync].text == t.text) {
        matchedOld = resync;
        return false;
      }
    }
    fresh.push_back(std::move(t));
    return true;
  });
  // A new vector: snapshots handed out earlier keep the old one.
  auto out = std::make_shared<std::vector<LexToken>>();
  out->reserve(keep + fresh.size() + (tokens_.size() - std::min(matchedOld, tokens_.size())));
  out->insert(out->end(), tokens_.begin(), tokens_.begin() + long(keep));
  for (auto &t : fresh) out->push_back(std::move(t));
  for (size_t i = matchedOld; i < tokens_.size(); ++i) {
    LexToken t = tokens_[i];
    t.begin = uint32_t(int64_t(t.begin) + delta);
    t.end = uint32_t(int64_t(t.end) + delta);
    out->push_back(std::move(t));
  }
  this->tokens_ = std::move(out);
}

} // namespace mdh::lsp
