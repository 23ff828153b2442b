/** \file
 * SourceManager, UTF-8 decoding and line tables.
 */
#include "support/Source.h"

#include <algorithm>

namespace mdh {

SourceRange SourceRange::merge(const SourceRange &a, const SourceRange &b) {
  if (!a.valid()) return b;
  if (!b.valid() || a.file != b.file) return a;
  return {a.file, std::min(a.begin, b.begin), std::max(a.end, b.end)};
}

std::u32string decodeUtf8(std::string_view s) {
  std::u32string out;
  out.reserve(s.size());
  size_t i = 0;
  while (i < s.size()) {
    unsigned char c = s[i];
    char32_t cp;
    int extra;
    if (c < 0x80) { cp = c; extra = 0; }
    else if ((c >> 5) == 0x6) { cp = c & 0x1F; extra = 1; }
    else if ((c >> 4) == 0xE) { cp = c & 0x0F; extra = 2; }
    else if ((c >> 3) == 0x1E) { cp = c & 0x07; extra = 3; }
    else { out.push_back(0xFFFD); ++i; continue; }
    bool ok = i + extra < s.size();
    for (int k = 1; ok && k <= extra; ++k) {
      unsigned char cc = s[i + k];
      if ((cc >> 6) != 0x2) ok = false; else cp = (cp << 6) | (cc & 0x3F);
    }
    // An overlong form (`C0 AF` for `/`) is invalid too: decoding it as ASCII
    // would let invalid bytes act as syntax, e.g. a hidden `//`.
    static const char32_t kSmallest[] = {0, 0x80, 0x800, 0x10000};
    if (!ok || cp < kSmallest[extra] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
      out.push_back(0xFFFD);
      ++i;
      continue;
    }
    out.push_back(cp);
    i += extra + 1;
  }
  return out;
}

std::string encodeUtf8(std::u32string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char32_t cp : s) {
    if (cp < 0x80) out.push_back(char(cp));
    else if (cp < 0x800) { out.push_back(char(0xC0 | (cp >> 6))); out.push_back(char(0x80 | (cp & 0x3F))); }
    else if (cp < 0x10000) {
      out.push_back(char(0xE0 | (cp >> 12))); out.push_back(char(0x80 | ((cp >> 6) & 0x3F)));
      out.push_back(char(0x80 | (cp & 0x3F)));
    } else {
      out.push_back(char(0xF0 | (cp >> 18))); out.push_back(char(0x80 | ((cp >> 12) & 0x3F)));
      out.push_back(char(0x80 | ((cp >> 6) & 0x3F))); out.push_back(char(0x80 | (cp & 0x3F)));
    }
  }
  return out;
}

SourceFile::SourceFile(std::string path, std::string utf8Text)
    : path_(std::move(path)), utf8_(std::move(utf8Text)), text_(decodeUtf8(utf8_)) {
  lineStarts_.push_back(0);
  for (uint32_t i = 0; i < text_.size(); ++i)
    if (size_t len = lineBreakLength(text_, i)) {
      i += uint32_t(len - 1);
      lineStarts_.push_back(i + 1);
    }
}

LineCol SourceFile::lineCol(uint32_t offset) const {
  offset = std::min<uint32_t>(offset, uint32_t(text_.size()));
  auto it = std::upper_bound(lineStarts_.begin(), lineStarts_.end(), offset);
  uint32_t line = uint32_t(it - lineStarts_.begin());
  return {line, offset - lineStarts_[line - 1] + 1};
}

std::string SourceFile::lineText(uint32_t line) const {
  if (line == 0 || line > lineStarts_.size()) return {};
  uint32_t b = lineStarts_[line - 1];
  uint32_t e = line < lineStarts_.size() ? lineStarts_[line] - 1 : uint32_t(text_.size());
  if (e > b && text_[e - 1] == U'\r') --e;
  return encodeUtf8(std::u32string_view(text_).substr(b, e - b));
}

uint32_t SourceFile::utf16Column(uint32_t offset) const {
  offset = std::min<uint32_t>(offset, uint32_t(text_.size()));
  LineCol lc = lineCol(offset);
  uint32_t col = 0;
  for (uint32_t i = lineStarts_[lc.line - 1]; i < offset; ++i) col += text_[i] >= 0x10000 ? 2 : 1;
  return col;
}

uint32_t SourceFile::offsetOfUtf16(uint32_t line0, uint32_t character) const {
  if (line0 >= lineStarts_.size()) return uint32_t(text_.size());
  uint32_t i = lineStarts_[line0];
  uint32_t units = 0;
  while (i < text_.size() && !lineBreakLength(text_, i) && units < character) {
    units += text_[i] >= 0x10000 ? 2 : 1;
    ++i;
  }
  return i;
}

FileId SourceManager::addFile(std::string path, std::string utf8Text) {
  files_.push_back(std::make_unique<SourceFile>(std::move(path), std::move(utf8Text)));
  return FileId(files_.size() - 1);
}

FileId SourceManager::findByPath(const std::string &path) const {
  for (size_t i = 0; i < files_.size(); ++i)
    if (files_[i]->path() == path) return FileId(i);
  return kNoFile;
}

} // namespace mdh
