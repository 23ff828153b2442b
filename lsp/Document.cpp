/** \file
 * Incremental text synchronisation on UTF-8 text.
 */
#include "Document.h"

#include "Uri.h"
#include "support/Source.h"

namespace mdh::lsp {

Document::Document(std::string uri, std::string text, int version)
    : uri_(std::move(uri)), path_(pathFromUri(uri_)), text_(std::move(text)), version_(version) {}

size_t Document::byteOffset(Position p) const {
  size_t i = 0;
  for (int line = 0; line < p.line; ++line) {
    while (i < text_.size() && !lineBreakLength(text_, i)) ++i;
    if (i >= text_.size()) return text_.size();
    i += lineBreakLength(text_, i);
  }
  int units = 0;
  while (i < text_.size() && !lineBreakLength(text_, i) && units < p.character) {
    unsigned char c = text_[i];
    size_t len = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 1;
    int width = len == 4 ? 2 : 1;
    if (units + width > p.character) break; // inside a surrogate pair: stay before it
    if (i + len > text_.size()) len = text_.size() - i;
    i += len;
    units += width;
  }
  return i;
}

void Document::apply(const std::vector<TextDocumentContentChange> &changes, int version) {
  for (const auto &c : changes) {
    if (!c.range) {
      text_ = c.text;
      continue;
    }
    Position s = c.range->start, e = c.range->end;
    if (e < s) std::swap(s, e);
    size_t b = byteOffset(s), en = byteOffset(e);
    if (en < b) en = b;
    text_.replace(b, en - b, c.text);
  }
  version_ = version;
}

} // namespace mdh::lsp
