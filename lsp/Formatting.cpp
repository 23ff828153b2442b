/** \file
 * computeFormatting: the server's formatting is `mdhc fmt`'s formatSource():
 * the same parse, the same refusal on syntax errors (never rewrite what could
 * not be read completely), the same printer, the same check that the result
 * parses again.  The result is sent as one edit
 * covering only the lines that differ, so the editor keeps the cursor and
 * folds outside them.
 */
#include "Features.h"
#include "ast/Printer.h"
#include "parse/FormatSource.h"
#include "parse/Parser.h"

namespace mdh::lsp {

namespace {

std::vector<std::string> splitLines(const std::string &s) {
  std::vector<std::string> out;
  size_t b = 0;
  for (size_t i = 0;; ++i) {
    if (i == s.size()) {
      out.push_back(s.substr(b));
      return out;
    }
    if (size_t len = lineBreakLength(s, i)) {
      out.push_back(s.substr(b, i + len - b));
      i += len - 1;
      b = i + 1;
    }
  }
}

/// UTF-16 length of a UTF-8 string.
int utf16Length(const std::string &s) {
  int n = 0;
  for (char32_t c : decodeUtf8(s)) n += c >= 0x10000 ? 2 : 1;
  return n;
}

} // namespace

std::vector<TextEdit> formattingEdits(const std::string &text, const std::string &formatted) {
  std::vector<TextEdit> edits;
  if (formatted == text) return edits;
  std::vector<std::string> a = splitLines(text), b = splitLines(formatted);
  size_t pre = 0;
  while (pre < a.size() && pre < b.size() && a[pre] == b[pre]) ++pre;
  size_t suf = 0;
  while (suf < a.size() - pre && suf < b.size() - pre && a[a.size() - 1 - suf] == b[b.size() - 1 - suf]) ++suf;
  // Replace lines [pre, a.size()-suf) of the old text with the new lines.
  TextEdit e;
  e.range.start = {int(pre), 0};
  size_t endLine = a.size() - suf;
  if (endLine < a.size()) {
    e.range.end = {int(endLine), 0};
  } else {
    // Up to the end of the text (the last piece has no newline: splitLines keeps it separate).
    e.range.end = {int(a.size() - 1), utf16Length(a.back())};
  }
  for (size_t i = pre; i < b.size() - suf; ++i) e.newText += b[i];
  edits.push_back(e);
  return edits;
}

std::optional<std::vector<TextEdit>> computeFormatting(const std::string &path, const std::string &text,
                                                       std::string &error) {
  SourceManager sm;
  DiagnosticEngine diags;
  FileId id = sm.addFile(path, text);
  FormatOutcome outcome = formatSource(sm, id, diags);
  if (outcome.status == FormatOutcome::Status::SyntaxErrors) {
    error = "not formatted because the file has syntax errors";
    return std::nullopt;
  }
  if (outcome.status == FormatOutcome::Status::TooLarge) {
    error = "not formatted: " + outcome.problem;
    return std::nullopt;
  }
  if (outcome.status == FormatOutcome::Status::NotReparsable) {
    error = "not formatted: the formatted text would not parse (a formatter bug): " + outcome.problem;
    return std::nullopt;
  }
  return formattingEdits(text, outcome.text);
}

} // namespace mdh::lsp
