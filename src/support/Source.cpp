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

int displayWidth(char32_t c) {
  struct Range {
    char32_t lo, hi;
  };
  // Unicode's general category Mn/Me and format characters of the BMP that
  // source text meets (combining diacritics, zero-width spaces and joiners,
  // variation selectors), then the East Asian Width W/F blocks and emoji.
  static constexpr Range kZero[] = {{0x0300, 0x036F}, {0x0483, 0x0489}, {0x0591, 0x05BD}, {0x0610, 0x061A},
                                    {0x064B, 0x065F}, {0x0E31, 0x0E31}, {0x0E34, 0x0E3A}, {0x0E47, 0x0E4E},
                                    {0x1AB0, 0x1AFF}, {0x1DC0, 0x1DFF}, {0x200B, 0x200F}, {0x202A, 0x202E},
                                    {0x2060, 0x2064}, {0x20D0, 0x20FF}, {0xFE00, 0xFE0F}, {0xFE20, 0xFE2F},
                                    {0xFEFF, 0xFEFF}, {0xE0100, 0xE01EF}};
  static constexpr Range kWide[] = {{0x1100, 0x115F},   {0x231A, 0x231B},   {0x2329, 0x232A},   {0x23E9, 0x23EC},
                                    {0x23F0, 0x23F0},   {0x23F3, 0x23F3},   {0x25FD, 0x25FE},   {0x2614, 0x2615},
                                    {0x2648, 0x2653},   {0x267F, 0x267F},   {0x2693, 0x2693},   {0x26A1, 0x26A1},
                                    {0x26AA, 0x26AB},   {0x26BD, 0x26BE},   {0x26C4, 0x26C5},   {0x26CE, 0x26CE},
                                    {0x26D4, 0x26D4},   {0x26EA, 0x26EA},   {0x26F2, 0x26F5},   {0x26FA, 0x26FD},
                                    {0x2705, 0x2705},   {0x270A, 0x270B},   {0x2728, 0x2728},   {0x274C, 0x274C},
                                    {0x2753, 0x2755},   {0x2757, 0x2757},   {0x2795, 0x2797},   {0x27B0, 0x27B0},
                                    {0x27BF, 0x27BF},   {0x2B1B, 0x2B1C},   {0x2B50, 0x2B50},   {0x2B55, 0x2B55},
                                    {0x2E80, 0x303E},   {0x3041, 0x33FF},   {0x3400, 0x4DBF},   {0x4E00, 0x9FFF},
                                    {0xA000, 0xA4CF},   {0xA960, 0xA97F},   {0xAC00, 0xD7A3},   {0xF900, 0xFAFF},
                                    {0xFE10, 0xFE19},   {0xFE30, 0xFE6F},   {0xFF00, 0xFF60},   {0xFFE0, 0xFFE6},
                                    {0x16FE0, 0x16FE4}, {0x17000, 0x18CFF}, {0x1B000, 0x1B2FF}, {0x1F004, 0x1F004},
                                    {0x1F0CF, 0x1F0CF}, {0x1F18E, 0x1F18E}, {0x1F191, 0x1F19A}, {0x1F200, 0x1F251},
                                    {0x1F300, 0x1F320}, {0x1F32D, 0x1F335}, {0x1F337, 0x1F37C}, {0x1F37E, 0x1F393},
                                    {0x1F3A0, 0x1F3CA}, {0x1F3CF, 0x1F3D3}, {0x1F3E0, 0x1F3F0}, {0x1F3F4, 0x1F3F4},
                                    {0x1F3F8, 0x1F43E}, {0x1F440, 0x1F440}, {0x1F442, 0x1F4FC}, {0x1F4FF, 0x1F53D},
                                    {0x1F54B, 0x1F54E}, {0x1F550, 0x1F567}, {0x1F57A, 0x1F57A}, {0x1F595, 0x1F596},
                                    {0x1F5A4, 0x1F5A4}, {0x1F5FB, 0x1F64F}, {0x1F680, 0x1F6C5}, {0x1F6CC, 0x1F6CC},
                                    {0x1F6D0, 0x1F6D2}, {0x1F6D5, 0x1F6D7}, {0x1F6EB, 0x1F6EC}, {0x1F6F4, 0x1F6FC},
                                    {0x1F7E0, 0x1F7EB}, {0x1F90C, 0x1F93A}, {0x1F93C, 0x1F945}, {0x1F947, 0x1F9FF},
                                    {0x1FA70, 0x1FAFF}, {0x20000, 0x2FFFD}, {0x30000, 0x3FFFD}};
  auto in = [c](const auto &ranges) {
    for (const Range &r : ranges)
      if (c >= r.lo && c <= r.hi) return true;
    return false;
  };
  if (c < 0x300) return 1;
  if (in(kZero)) return 0;
  return in(kWide) ? 2 : 1;
}

} // namespace mdh
