/** \file
 * computeDiagnostics: the compilation's diagnostics as LSP diagnostics.
 *
 * The set is exactly what `mdhc check` prints for the same text: same
 * order, severity, code, message; the hint becomes a `help:` line as in
 * the CLI, notes become related information.  A diagnostic located in an
 * imported file is shown on the import that loads that file (or on the
 * first import, when it comes in indirectly), prefixed with its real place.
 */
#include "Features.h"
#include "Uri.h"

#include <fmt/format.h>

namespace mdh::lsp {

namespace {

DiagnosticSeverity severityOf(Severity s) {
  switch (s) {
  case Severity::Error: return DiagnosticSeverity::Error;
  case Severity::Warning: return DiagnosticSeverity::Warning;
  case Severity::Note: return DiagnosticSeverity::Information;
  }
  return DiagnosticSeverity::Error;
}

bool endsWithPath(const std::string &path, const std::string &rel) {
  return path == rel || (path.size() > rel.size() && path.compare(path.size() - rel.size(), rel.size(), rel) == 0 &&
                         path[path.size() - rel.size() - 1] == '/');
}

} // namespace

std::vector<Diagnostic> computeDiagnostics(const Analysis &a) {
  std::vector<Diagnostic> out;
  const SourceManager &sm = a.sources();
  const ast::Module *main = a.mainModule();
  auto location = [&](const SourceRange &r) {
    if (!r.valid() || r.file >= sm.size()) return std::string("<unknown>");
    LineCol lc = sm.file(r.file).lineCol(r.begin);
    return fmt::format("{}:{}:{}", sm.file(r.file).path(), lc.line, lc.column);
  };
  for (const auto &d : a.diagnostics()) {
    Diagnostic ld;
    ld.severity = severityOf(d.severity);
    ld.code = d.code;
    ld.message = d.message;
    if (d.range.valid() && d.range.file == a.mainFile()) {
      ld.range = a.range(d.range);
    } else if (d.range.valid() && d.range.file < sm.size()) {
      // In an imported module: attach to the import that loads it.
      const std::string &path = sm.file(d.range.file).path();
      const ast::Import *at = nullptr;
      if (main) {
        for (const auto &imp : main->imports) {
          std::string rel;
          for (const auto &p : imp.path) rel += (rel.empty() ? "" : "/") + p.name;
          if (endsWithPath(path, rel + ".mdh")) { at = &imp; break; }
        }
        if (!at && !main->imports.empty()) at = &main->imports.front();
      }
      if (at) ld.range = a.range(at->range);
      ld.message = fmt::format("{}: {}", location(d.range), d.message);
      ld.related.push_back({{uriFromPath(path), a.range(d.range)}, d.message});
    }
    for (const auto &n : d.notes) {
      if (n.range.valid() && n.range.file < sm.size())
        ld.related.push_back({{uriFromPath(sm.file(n.range.file).path()), a.range(n.range)}, n.message});
      else
        ld.message += "\nnote: " + n.message;
    }
    if (!d.hint.empty()) ld.message += "\nhelp: " + d.hint;
    out.push_back(std::move(ld));
  }
  return out;
}

} // namespace mdh::lsp
