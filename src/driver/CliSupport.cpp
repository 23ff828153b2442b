/** \file
 * `--set` parsing and diagnostic printing for the CLIs.
 */
#include "driver/CliSupport.h"

#include <fmt/format.h>
#include <fstream>
#include <sstream>
#include <unistd.h>

namespace mdh {

int parseCommandLine(CLI::App &app, int argc, char **argv) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError &e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  return -1;
}

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

void splitRunTimeSizes(const ast::Decl *decl, const MetaSettings &settings, MetaSettings &meta,
                       std::map<std::string, std::string> &runTimeSizes) {
  for (const auto &[k, v] : settings) {
    bool isMeta = !decl;
    if (decl)
      for (const auto &p : decl->metaParams) isMeta = isMeta || p.name.name == k;
    if (isMeta) meta.push_back({k, v});
    else runTimeSizes[k] = v;
  }
}

bool configArgumentText(const std::string &arg, std::string &text, std::string &error) {
  const size_t first = arg.find_first_not_of(" \t\r\n");
  if (first != std::string::npos && arg[first] == '{') {
    text = arg;
    return true;
  }
  std::ifstream in(arg);
  if (!in) {
    error = fmt::format("cannot read configuration `{}` (give a JSON file, or JSON text starting with `{{`)", arg);
    return false;
  }
  std::ostringstream buf;
  buf << in.rdbuf();
  text = buf.str();
  return true;
}

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
