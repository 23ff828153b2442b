/** \file
 * `--set` parsing and diagnostic printing for the CLIs.
 */
#include "driver/CliSupport.h"

#include <fmt/format.h>
#include <unistd.h>

namespace mdh {

bool parseMetaSettings(const std::vector<std::string> &items, MetaSettings &out, std::string &error) {
  for (const auto &item : items) {
    size_t start = 0;
    while (start <= item.size()) {
      size_t comma = item.find(',', start);
      std::string kv = item.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
      start = comma == std::string::npos ? item.size() + 1 : comma + 1;
      if (kv.empty()) continue;
      size_t eq = kv.find('=');
      if (eq == std::string::npos || eq == 0 || eq + 1 == kv.size()) {
        error = fmt::format("malformed --set item `{}`; expected NAME=VALUE, e.g. `--set T=f32,I=512`", kv);
        return false;
      }
      std::string k = kv.substr(0, eq), v = kv.substr(eq + 1);
      for (auto &[ek, ev] : out)
        if (ek == k) {
          error = fmt::format("`{}` is set twice (`{}` and `{}`)", k, ev, v);
          return false;
        }
      out.push_back({k, v});
    }
  }
  return true;
}

bool isTerminal(FILE *stream) { return isatty(fileno(stream)) != 0; }

void printDiagnostics(Compilation &c, FILE *out, bool summary) {
  bool color = isTerminal(out) && !std::getenv("NO_COLOR");
  for (const auto &d : c.diags().all()) fmt::print(out, "{}", renderDiagnostic(c.sources(), d, color));
  if (!summary) return;
  size_t e = c.diags().errorCount(), w = c.diags().warningCount();
  if (e || w) {
    std::vector<std::string> parts;
    if (e) parts.push_back(fmt::format("{} error{}", e, e == 1 ? "" : "s"));
    if (w) parts.push_back(fmt::format("{} warning{}", w, w == 1 ? "" : "s"));
    fmt::print(out, "{} generated.\n", fmt::join(parts, " and "));
  }
}

} // namespace mdh
