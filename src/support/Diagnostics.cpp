/** \file
 * DiagnosticEngine and the rustc-style text renderer used by the CLIs.
 */
#include "support/Diagnostics.h"

#include <algorithm>
#include <fmt/format.h>

namespace mdh {

const char *severityName(Severity s) {
  switch (s) {
  case Severity::Error: return "error";
  case Severity::Warning: return "warning";
  case Severity::Note: return "note";
  }
  return "error";
}

void DiagnosticEngine::report(Diagnostic d) {
  if (silence_ > 0) {
    if (d.severity == Severity::Error) ++errors_;
    return;
  }
  if (d.severity == Severity::Error) ++errors_;
  if (d.severity == Severity::Warning) ++warnings_;
  if (stored_.size() >= maxStored_) return;
  stored_.push_back(d);
  if (handler_) handler_(stored_.back());
}

void DiagnosticEngine::error(const char *code, SourceRange r, std::string msg, std::string hint) {
  report({Severity::Error, code, std::move(msg), r, std::move(hint), {}});
}

void DiagnosticEngine::warning(const char *code, SourceRange r, std::string msg, std::string hint) {
  report({Severity::Warning, code, std::move(msg), r, std::move(hint), {}});
}

void DiagnosticEngine::note(SourceRange r, std::string msg) {
  if (silence_ > 0 || stored_.empty()) return;
  stored_.back().notes.push_back({r, std::move(msg)});
}

void DiagnosticEngine::clear() {
  stored_.clear();
  errors_ = warnings_ = 0;
}

namespace {

std::string renderSnippet(const SourceManager &sm, SourceRange r, const std::string &label) {
  if (!r.valid() || r.file >= sm.size()) return {};
  const SourceFile &f = sm.file(r.file);
  LineCol b = f.lineCol(r.begin);
  LineCol e = f.lineCol(std::max(r.begin, r.end > r.begin ? r.end - 1 : r.begin));
  std::u32string cps = decodeUtf8(f.lineText(b.line));
  // Control characters (a NUL, an escape sequence) would reach the terminal
  // as they are: show their Unicode pictures (U+2400 ...), one column each.
  for (char32_t &c : cps)
    if (c < 0x20 && c != U'\t') c = 0x2400 + c;
    else if (c == 0x7F) c = 0x2421;
  // A huge line is cut to a window of 200 columns that holds the caret's start
  // (an error at column 416 showed the first 200 and a caret under the `...`).
  constexpr size_t kWindow = 200, kContextBefore = 60;
  const size_t caret = b.column > 0 ? b.column - 1 : 0;
  size_t first = 0;
  if (cps.size() > kWindow && caret >= kWindow - kContextBefore)
    first = std::min(caret - kContextBefore, cps.size() - std::min(cps.size(), kWindow));
  const size_t last = std::min(cps.size(), first + kWindow);
  const std::string lead = first > 0 ? "... " : "";
  std::string line = lead + encodeUtf8(cps.substr(first, last - first)) + (last < cps.size() ? " ..." : "");
  std::string gutter(std::to_string(b.line).size(), ' ');
  uint32_t width = 1;
  if (e.line == b.line && e.column >= b.column) width = e.column - b.column + 1;
  if (caret > cps.size()) width = 1;
  else if (caret < last) width = uint32_t(std::min<size_t>(width, last - caret));
  // Pad and underline by terminal cells, so carets stay under their text after
  // wide characters (CJK, emoji in a comment) and combining marks.
  std::string pad(lead.size(), ' ');
  for (size_t i = first; i < caret && i < last; ++i)
    pad += cps[i] == U'\t' ? std::string(1, '\t') : std::string(size_t(displayWidth(cps[i])), ' ');
  if (caret < last) {
    uint32_t cells = 0;
    for (size_t i = caret; i < caret + width; ++i) cells += uint32_t(displayWidth(cps[i]));
    width = std::max<uint32_t>(1, cells);
  }
  std::string out = fmt::format("{} |\n{} | {}\n{} | {}{}", gutter, b.line, line, gutter, pad,
                                std::string(width, '^'));
  if (!label.empty()) out += " " + label;
  out += "\n";
  return out;
}

std::string location(const SourceManager &sm, SourceRange r) {
  if (!r.valid() || r.file >= sm.size()) return "<unknown>";
  const SourceFile &f = sm.file(r.file);
  LineCol lc = f.lineCol(r.begin);
  return fmt::format("{}:{}:{}", f.path(), lc.line, lc.column);
}

} // namespace

std::string renderDiagnostic(const SourceManager &sm, const Diagnostic &d, bool color) {
  const char *sev = severityName(d.severity);
  std::string head = d.code.empty() ? sev : fmt::format("{}[{}]", sev, d.code);
  if (color) {
    const char *c = d.severity == Severity::Error ? "\033[1;31m" : d.severity == Severity::Warning ? "\033[1;33m" : "\033[1;36m";
    head = fmt::format("{}{}\033[0m", c, head);
  }
  std::string out = d.range.valid() ? fmt::format("{}: {}: {}\n", location(sm, d.range), head, d.message)
                                    : fmt::format("{}: {}\n", head, d.message);
  out += renderSnippet(sm, d.range, "");
  for (const auto &n : d.notes) {
    if (n.range.valid()) {
      out += fmt::format("{}: note: {}\n", location(sm, n.range), n.message);
      out += renderSnippet(sm, n.range, "");
    } else {
      out += fmt::format("  = note: {}\n", n.message);
    }
  }
  if (!d.hint.empty()) out += fmt::format("  = help: {}\n", d.hint);
  return out;
}

} // namespace mdh
