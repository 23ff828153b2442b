/** \file
 * Parse, print, parse again (see FormatSource.h).
 */
#include "parse/FormatSource.h"

#include "ast/Printer.h"
#include "parse/Parser.h"

#include <fmt/format.h>

namespace mdh {

FormatOutcome formatSource(const SourceManager &sm, FileId file, DiagnosticEngine &diags) {
  FormatOutcome out;
  auto mod = parseModule(sm, file, diags);
  if (!mod || diags.hasErrors()) return out;
  std::string formatted = ast::formatModule(*mod, sm);
  SourceManager again;
  DiagnosticEngine againDiags;
  const FileId id = again.addFile(sm.file(file).path(), formatted);
  const size_t limit = ParseLimits{}.maxFileCodePoints, grown = again.file(id).codePoints().size();
  if (grown > limit) {
    out.status = FormatOutcome::Status::TooLarge;
    out.problem = fmt::format("the formatted text would have {} characters, over the limit of {} (E0010); "
                              "split the file into modules (`import`)",
                              grown, limit);
    return out;
  }
  auto reparsed = parseModule(again, id, againDiags);
  if (!reparsed || againDiags.hasErrors()) {
    out.status = FormatOutcome::Status::NotReparsable;
    out.problem = againDiags.all().empty() ? "the formatted text does not parse"
                                           : renderDiagnostic(again, againDiags.all().front());
    return out;
  }
  out.status = FormatOutcome::Status::Formatted;
  out.text = std::move(formatted);
  return out;
}

} // namespace mdh
