/** \file
 * computeFoldingRanges: multi-line declarations, bracket pairs, runs of
 * line comments, block comments and the import block.  Brackets come from
 * the tokens, so folding keeps working in code that does not parse.
 * Invariants: startLine < endLine for every range; no two ranges start on
 * the same line (the outermost wins, which is what editors show).
 */
#include "Features.h"

#include <algorithm>
#include <map>

namespace mdh::lsp {

std::vector<FoldingRange> computeFoldingRanges(const Analysis &a) {
  const SourceFile &src = a.mainSource();
  auto line = [&](uint32_t off) { return int(src.lineCol(off).line) - 1; };
  std::map<int, FoldingRange> byStart;
  auto add = [&](int s, int e, const char *kind) {
    if (e <= s) return;
    auto it = byStart.find(s);
    if (it == byStart.end() || it->second.endLine < e) byStart[s] = FoldingRange{s, e, kind};
  };
  // Declarations (an mdh spans lines without brackets of its own).
  if (const ast::Module *m = a.mainModule()) {
    // A declaration ending in `}` folds by its braces (keeping the `}` line visible).
    const std::u32string &cps = src.codePoints();
    for (const auto &d : m->decls)
      if (d->range.valid() && d->range.end > d->range.begin && d->range.end <= cps.size() &&
          cps[d->range.end - 1] != U'}')
        add(line(d->range.begin), line(d->range.end - 1), "");
    if (m->imports.size() > 1) {
      uint32_t b = m->imports.front().range.begin, e = m->imports.back().range.end;
      if (e > b) add(line(b), line(e - 1), "imports");
    }
  }
  // Brackets and comments.
  std::vector<const LexToken *> open;
  int commentStart = -1, commentEnd = -1;
  auto flushComments = [&] {
    if (commentStart >= 0 && commentEnd > commentStart) add(commentStart, commentEnd, "comment");
    commentStart = commentEnd = -1;
  };
  for (const auto &t : a.tokens()) {
    bool lineComment = (t.kind == LexToken::Kind::Comment || t.kind == LexToken::Kind::DocComment) &&
                       t.text.compare(0, 2, "//") == 0;
    if (lineComment) {
      int l = line(t.begin);
      if (commentStart >= 0 && l == commentEnd + 1) commentEnd = l;
      else {
        flushComments();
        commentStart = commentEnd = l;
      }
      continue;
    }
    flushComments();
    if (t.kind == LexToken::Kind::Comment || t.kind == LexToken::Kind::Unterminated) {
      add(line(t.begin), line(std::max(t.begin, t.end - 1)), "comment");
      continue;
    }
    if (t.kind != LexToken::Kind::Punctuation) continue;
    if (t.text == "(" || t.text == "[" || t.text == "{") open.push_back(&t);
    else if ((t.text == ")" || t.text == "]" || t.text == "}") && !open.empty()) {
      const LexToken *o = open.back();
      open.pop_back();
      // Keep the closing bracket's line visible: fold up to the line before it.
      int s = line(o->begin), e = line(t.begin) - 1;
      if (e > s) add(s, e, "");
    }
  }
  flushComments();
  std::vector<FoldingRange> out;
  for (auto &[k, v] : byStart) out.push_back(v);
  return out;
}

} // namespace mdh::lsp
