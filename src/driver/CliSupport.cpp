/** \file
 * Command-line pieces shared by the tools (CliSupport.h).
 */
#include "driver/CliSupport.h"

#include "support/InputFile.h"

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <set>
#include <fmt/format.h>
#include <unistd.h>

namespace mdh {

namespace {
/// CLI11's type name (INT, FLOAT, ...) of the option spelled `name` in app or a subcommand.
std::string typeNameOf(CLI::App &app, const std::string &name) {
  if (const CLI::Option *o = app.get_option_no_throw(name)) return o->get_type_name();
  for (CLI::App *sub : app.get_subcommands({}))
    if (std::string t = typeNameOf(*sub, name); !t.empty()) return t;
  return {};
}
} // namespace

int parseCommandLine(CLI::App &app, int argc, char **argv) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::ConversionError &e) {
    // CLI11 says `Could not convert: --threads = 4611686018427387904`; say what is wrong.
    const std::string what = e.what(), prefix = "Could not convert: ";
    const size_t eq = what.find(" = ");
    if (what.rfind(prefix, 0) == 0 && eq != std::string::npos) {
      const std::string option = what.substr(prefix.size(), eq - prefix.size()), value = what.substr(eq + 3);
      std::string kind = typeNameOf(app, option);
      kind = kind.substr(0, kind.find(':')); // `INT:at least 0` when a validator names its range
      kind = kind == "INT" ? "a whole number" : kind == "UINT" ? "a whole number from 0"
           : kind == "FLOAT" ? "a number" : kind.empty() ? "another value" : "a " + kind;
      fmt::print(stderr, "error: `{}` is not a valid value for {}: it takes {} that fits the option's range (see --help)\n",
                 value, option, kind);
      return 2;
    }
    return app.exit(e) == 0 ? 0 : 2;
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
      // `N=*` and `N=<extent>` together: N is a run-time size, and this is its value
      // (splitRunTimeSizes()); any other repetition is a mistake.
      int times = 0;
      bool star = v == "*";
      std::string earlier;
      for (auto &[ek, ev] : out)
        if (ek == k) ++times, star = star != (ev == "*"), earlier = ev;
      if (times > 1 || (times == 1 && !star)) {
        error = fmt::format("`{}` is set twice (`{}` and `{}`)", k, earlier, v);
        if (times == 1 && !v.empty() && v.find_first_not_of("0123456789") == std::string::npos)
          error += fmt::format("; to run with a run-time size, give `{0}=*` and `{0}=<extent>`", k);
        return false;
      }
      out.push_back({k, v});
    }
  }
  return true;
}

bool isTerminal(FILE *stream) { return isatty(fileno(stream)) != 0; }

bool givesRunTimeSizeValue(const MetaSettings &settings, const std::string &name, const std::string &value) {
  return value != "*" &&
         std::any_of(settings.begin(), settings.end(), [&](const auto &kv) { return kv.first == name && kv.second == "*"; });
}

void splitRunTimeSizes(const ast::Decl *decl, const MetaSettings &settings, MetaSettings &meta,
                       std::map<std::string, std::string> &runTimeSizes) {
  for (const auto &kv : settings) {
    const std::string &k = kv.first, &v = kv.second; // named, not bound: lambdas capture them
    bool isMeta = !decl;
    if (decl)
      for (const auto &p : decl->metaParams) isMeta = isMeta || p.name.name == k;
    if (isMeta && !givesRunTimeSizeValue(settings, k, v)) meta.push_back({k, v});
    else runTimeSizes[k] = v;
  }
}

bool readRunTimeSizes(const std::string &entry, const hl::Program &prog, const std::map<std::string, std::string> &given,
                      std::map<std::string, int64_t> &values, Diagnostic &problem, const ast::Decl *entryDecl) {
  const SourceRange at = entryDecl ? entryDecl->range : prog.range;
  constexpr int64_t kLargest = int64_t(1) << 40; // the limit of compile-time sizes (E0603)
  for (const auto &[name, text] : given) {
    if (std::find(prog.dynamicSizes.begin(), prog.dynamicSizes.end(), name) == prog.dynamicSizes.end()) {
      problem = Diagnostic{};
      problem.code = "E0605";
      problem.message = fmt::format("`{}` is neither a meta-parameter nor a run-time size of `{}`", name, entry);
      problem.range = at;
      problem.hint = prog.dynamicSizes.empty() ? fmt::format("`{}` has no run-time sizes", entry)
                                               : fmt::format("its run-time sizes are {}", fmt::join(prog.dynamicSizes, ", "));
      return false;
    }
    // Digits only: no sign, blanks, exponent or suffix (`3abc` is not 3).
    int64_t value = 0;
    bool ok = !text.empty();
    for (char ch : text) {
      ok = ok && ch >= '0' && ch <= '9';
      if (ok) value = std::min(value * 10 + (ch - '0'), kLargest + 1);
    }
    if (!ok || value < 1 || value > kLargest) {
      problem = Diagnostic{};
      problem.code = "E0603";
      problem.message = fmt::format("invalid value `{}` for run-time size `{}`", text, name);
      problem.range = at;
      problem.hint = "a run-time size is a positive integer (at most 2^40)";
      return false;
    }
    values[name] = value;
  }
  return true;
}

bool configArgumentText(const std::string &arg, std::string &text, std::string &error) {
  const size_t first = arg.find_first_not_of(" \t\r\n");
  if (first != std::string::npos && arg[first] == '{') {
    text = arg;
    return true;
  }
  if (first != std::string::npos && arg[first] == '[') {
    error = "a configuration is a JSON object (`{\"levels\": [...], ...}`, see docs/compiler.md), not an array";
    return false;
  }
  constexpr size_t kLargestConfig = 1 << 24; // configurations are a few hundred bytes
  std::string reason;
  switch (readBoundedFile(arg, kLargestConfig, text, reason)) {
  case BoundedRead::Complete: return true;
  case BoundedRead::TooLarge:
    error = fmt::format("configuration `{}` is larger than {} bytes; give a JSON file", arg, kLargestConfig);
    return false;
  case BoundedRead::Failed: break;
  }
  error = fmt::format("cannot read configuration `{}` (give a JSON file, or JSON text starting with `{{`): {}", arg, reason);
  return false;
}

std::string configArgumentName(const std::string &arg) {
  const size_t first = arg.find_first_not_of(" \t\r\n");
  return first != std::string::npos && arg[first] == '{' ? "the JSON text" : fmt::format("`{}`", arg);
}

bool readConfigJson(const std::string &arg, nlohmann::json &json, std::string &error) {
  std::string text;
  if (!configArgumentText(arg, text, error)) return false;
  // A key given twice in one object: JSON parsers keep one of them (nlohmann the last), so
  // `{"threads": 4, "threads": 1}` would silently mean 1.  Read strictly, it is an error.
  std::vector<std::set<std::string>> keys;
  std::string repeated;
  auto strict = [&](int, nlohmann::json::parse_event_t event, nlohmann::json &parsed) {
    using E = nlohmann::json::parse_event_t;
    if (event == E::object_start) keys.emplace_back();
    else if (event == E::object_end && !keys.empty()) keys.pop_back();
    else if (event == E::key && !keys.empty() && !keys.back().insert(parsed.get<std::string>()).second && repeated.empty())
      repeated = parsed.get<std::string>();
    return true;
  };
  try {
    json = nlohmann::json::parse(text, strict);
  } catch (const nlohmann::json::parse_error &e) {
    // nlohmann's message names the line and column and what it expected:
    // "[json.exception.parse_error.101] parse error at line 5, column 23: syntax
    // error while parsing object separator - unexpected string literal; expected ','".
    std::string where = e.what();
    const std::string marker = "parse error at ";
    if (const size_t at = where.find(marker); at != std::string::npos) where = where.substr(at + marker.size());
    error = fmt::format("{} is not valid JSON: {}", configArgumentName(arg), where);
    return false;
  }
  if (!repeated.empty()) {
    error = fmt::format("{} gives the field `{}` twice in one object; give it once", configArgumentName(arg), repeated);
    return false;
  }
  return true;
}

std::vector<std::string> sourceFiles(Compilation &c) {
  std::vector<std::string> paths;
  for (FileId f = 0; f < FileId(c.sources().size()); ++f) paths.push_back(c.sources().file(f).path());
  return paths;
}

void printDiagnostics(Compilation &c, FILE *out, const DiagnosticStyle &style) {
  // What the tool printed already comes first: with both streams on one pipe
  // (`2>&1`), a warning otherwise landed inside the emitted code, wherever
  // stdout's buffer had last been flushed.
  if (out != stdout) {
    std::cout.flush();
    std::fflush(stdout);
  }
  bool color = isTerminal(out) && !std::getenv("NO_COLOR");
  size_t errors = 0, warnings = 0;
  for (Diagnostic d : c.diags().all()) {
    // Like `gcc -Werror`: a warning that fails the build is reported as an error.
    if (style.warningsAsErrors && d.severity == Severity::Warning) d.severity = Severity::Error;
    if (d.severity == Severity::Error) ++errors;
    if (d.severity == Severity::Warning) ++warnings;
    if (style.errorsOnly && d.severity != Severity::Error) continue;
    fmt::print(out, "{}", renderDiagnostic(c.sources(), d, color));
  }
  if (!style.summary || style.errorsOnly) return;
  if (errors || warnings) {
    std::vector<std::string> parts;
    if (errors) parts.push_back(fmt::format("{} error{}", errors, errors == 1 ? "" : "s"));
    if (warnings) parts.push_back(fmt::format("{} warning{}", warnings, warnings == 1 ? "" : "s"));
    fmt::print(out, "{} generated.\n", fmt::join(parts, " and "));
  }
}

} // namespace mdh
