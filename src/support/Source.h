/** \file
 * Source files and ranges.
 *
 * A SourceManager owns every file text a compilation reads.  Positions are
 * offsets in Unicode code points (what the ANTLR runtime counts), so a range
 * can be turned into a 1-based line/column for the CLI and into UTF-16 units
 * for the language server without re-lexing.  Invariant: a SourceRange with
 * file == kNoFile is "no location"; otherwise begin <= end <= file length.
 */
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace mdh {

using FileId = uint32_t;
constexpr FileId kNoFile = ~FileId(0);

struct SourceRange {
  FileId file = kNoFile;
  uint32_t begin = 0; ///< first code point
  uint32_t end = 0;   ///< one past the last code point
  bool valid() const { return file != kNoFile; }
  static SourceRange merge(const SourceRange &a, const SourceRange &b);
};

struct LineCol {
  uint32_t line = 0;   ///< 1-based
  uint32_t column = 0; ///< 1-based, in code points
};

class SourceFile {
public:
  SourceFile(std::string path, std::string utf8Text);
  const std::string &path() const { return path_; }
  const std::string &utf8() const { return utf8_; }
  const std::u32string &codePoints() const { return text_; }
  LineCol lineCol(uint32_t offset) const;
  /// Text of 1-based line `line` (without the newline), UTF-8.
  std::string lineText(uint32_t line) const;
  uint32_t lineCount() const { return uint32_t(lineStarts_.size()); }
  uint32_t lineStart(uint32_t line) const { return lineStarts_.at(line - 1); }
  /// UTF-16 column (0-based) of a code-point offset, as LSP counts.
  uint32_t utf16Column(uint32_t offset) const;
  /// Code-point offset of an LSP (0-based line, UTF-16 character) position.
  uint32_t offsetOfUtf16(uint32_t line0, uint32_t character) const;

private:
  std::string path_;
  std::string utf8_;
  std::u32string text_;
  std::vector<uint32_t> lineStarts_;
};

class SourceManager {
public:
  FileId addFile(std::string path, std::string utf8Text);
  const SourceFile &file(FileId id) const { return *files_.at(id); }
  size_t size() const { return files_.size(); }
  /// The file already loaded from `path`, or kNoFile.
  FileId findByPath(const std::string &path) const;

private:
  std::vector<std::unique_ptr<SourceFile>> files_;
};

/// Length of the line break starting at `text[i]`: 2 for `\r\n`, 1 for `\n`
/// or a lone `\r`, 0 for anything else.  Every stage counts lines this way,
/// as the lexer (a `//` comment ends at `\r` or `\n`) and LSP clients do.
/// Works on UTF-8 and UTF-32 text alike.
template <class Text> size_t lineBreakLength(const Text &text, size_t i) {
  if (i >= text.size()) return 0;
  if (text[i] == '\n') return 1;
  if (text[i] != '\r') return 0;
  return i + 1 < text.size() && text[i + 1] == '\n' ? 2 : 1;
}

/// UTF-8 <-> UTF-32 conversion; invalid bytes become U+FFFD.
std::u32string decodeUtf8(std::string_view s);
std::string encodeUtf8(std::u32string_view s);

/// Terminal cells a code point takes, for lining carets up under source text:
/// 2 for East Asian wide and fullwidth characters and emoji, 0 for combining
/// marks, zero-width characters and variation selectors, 1 otherwise. (Columns in
/// positions stay code points; only the drawing uses this.)
int displayWidth(char32_t c);

} // namespace mdh
