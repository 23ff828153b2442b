/** \file
 * REPL commands, multi-line input and completion.
 */
#include "interp/Repl.h"

#include "driver/CliSupport.h"
#include "tune/Interrupt.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <dirent.h>

namespace mdh::interp {

namespace {

struct CommandInfo {
  const char *name;
  const char *args;
  const char *help;
};

// Order matters: a prefix resolves to the first command it matches.
const CommandInfo kCommands[] = {
    {"load", "FILE...", "load .mdh files (replaces the loaded files; declarations typed here stay)"},
    {"reload", "", "load the same files again, e.g. after editing them"},
    {"run", "ENTRY [OPTIONS]", "run an entry; OPTIONS as for `mdhi run` (see below)"},
    {"type", "NAME", "the signature of a declaration, or the type of a buffer of the last run"},
    {"info", "NAME", "documentation, location and details of a declaration"},
    {"browse", "", "list the declarations of every loaded module"},
    {"set", "[NAME=VALUE,...] [FLAGS]",
     "remember settings for the following runs (FLAGS: --seed N --precise --trap-overflow --allow-undefined "
     "--stats --quiet --print-limit N); without arguments, show them"},
    {"unset", "NAME | --FLAG", "forget a remembered setting"},
    {"print", "[BUFFER | BUFFER[i,j]]", "a buffer or cell of the last run; without arguments, list them"},
    {"help", "", "this text"},
    {"quit", "", "leave mdhi (also Ctrl-D)"},
};

std::string trim(const std::string &s) {
  size_t b = s.find_first_not_of(" \t\r\n"), e = s.find_last_not_of(" \t\r\n");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

bool isIdentifier(const std::string &s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
  return true;
}

const CommandInfo *resolve(const std::string &word) {
  for (const auto &c : kCommands)
    if (word == c.name) return &c;
  for (const auto &c : kCommands)
    if (!word.empty() && std::string(c.name).compare(0, word.size(), word) == 0) return &c;
  return nullptr;
}

/// Whether pending declarations are ready for the parser: their brackets
/// balance and the text ends with `;` or `}` — or a closing bracket has no
/// opening one, which no further line can mend (the parser reports it).
bool readyToSubmit(const std::string &text) {
  int depth = 0;
  char last = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '/' && i + 1 < text.size() && text[i + 1] == '/') { // line comment
      while (i < text.size() && text[i] != '\n') ++i;
      continue;
    }
    if (c == '/' && i + 1 < text.size() && text[i + 1] == '*') {
      size_t end = text.find("*/", i + 2);
      if (end == std::string::npos) return false;
      i = end + 1;
      continue;
    }
    if (c == '(' || c == '{' || c == '[') ++depth;
    if ((c == ')' || c == '}' || c == ']') && --depth < 0) return true;
    if (!std::isspace(static_cast<unsigned char>(c))) last = c;
  }
  return depth == 0 && (last == ';' || last == '}');
}

const char *kRunOptions[] = {"--entry", "--set", "--in", "--out", "--seed", "--allow-undefined", "--trap-overflow",
                             "--precise", "--cells", "--stats", "--quiet", "--print-limit"};

} // namespace

std::vector<std::string> splitWords(const std::string &s) {
  std::vector<std::string> words;
  std::string cur;
  bool any = false;
  char quote = 0;
  for (char c : s) {
    if (quote) {
      if (c == quote) quote = 0;
      else cur += c;
      continue;
    }
    if (c == '\'' || c == '"') {
      quote = c;
      any = true;
      continue;
    }
    if (std::isspace(static_cast<unsigned char>(c))) {
      if (any || !cur.empty()) words.push_back(cur);
      cur.clear();
      any = false;
      continue;
    }
    cur += c;
  }
  if (any || !cur.empty()) words.push_back(cur);
  return words;
}

Repl::Repl(Session &session, FILE *out, FILE *err) : session_(session), out_(out), err_(err) {}

std::string Repl::helpText() {
  std::string s = "Commands (any unambiguous prefix works: :l :r :ru :t :i :b :s :p :h :q):\n";
  for (const auto &c : kCommands) s += fmt::format("  :{:<7} {:<22} {}\n", c.name, c.args, c.help);
  s += R"(
Anything else is read as .mdh declarations, which may span several lines
(collected until the brackets balance and the text ends with `;` or `}`;
or between `:{` and `:}`); an empty line or a command submits them early.
A bare entry name runs it. Ctrl-C stops a run and keeps the session.

Run options (`:run ENTRY ...` and `mdhi run FILE --entry ENTRY ...`):
  --set T=f32,I=4    meta-parameters, and values of run-time (`*`) sizes
  --in M=M.npy       input data (NumPy); inputs without a file get random data
  --out w=w.npy      write an output (atomically)
  --seed N           seed of the random inputs
  --cells 'w[1];w[3]'  evaluate only these output cells
  --precise          high-precision reference values with error bounds
  --trap-overflow    integer overflow is an error
  --allow-undefined  output cells nothing writes (⊥) are not an error
  --stats            applications and time
)";
  return s;
}

namespace {
/// Whether a line that continues pending declarations is a command instead:
/// `:` directly followed by a command's name (or `:{`, `:?`).  A line such as
/// `: 0 - a;` (a conditional's second branch) is declaration text.
bool startsWithCommand(const std::string &t) {
  if (t.size() < 2 || t[0] != ':') return false;
  if (t == ":{" || t[1] == '?') return true;
  size_t end = 1;
  while (end < t.size() && std::isalpha(static_cast<unsigned char>(t[end]))) ++end;
  return end > 1 && (end == t.size() || std::isspace(static_cast<unsigned char>(t[end]))) && resolve(t.substr(1, end - 1));
}
} // namespace

bool Repl::feed(const std::string &rawLine) {
  std::string line = rawLine;
  while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.pop_back();
  const std::string t = trim(line);
  if (inBlock_) {
    if (t == ":}") {
      inBlock_ = false;
      submit();
    } else {
      pending_ += line + "\n";
    }
    return true;
  }
  if (!pending_.empty() && (t.empty() || startsWithCommand(t))) {
    submit(); // an empty line or a command ends the pending declarations
    if (t.empty()) return true;
  }
  if (pending_.empty()) {
    if (t.empty() || t.compare(0, 2, "--") == 0 || t.compare(0, 2, "//") == 0) return true;
    if (t == ":{") {
      inBlock_ = true;
      return true;
    }
    if (t[0] == ':') return command(t);
    if (isIdentifier(t)) {
      RunRequest r = session_.defaults();
      r.sets.clear();
      r.entry = t;
      note(run(r));
      return true;
    }
  }
  pending_ += line + "\n";
  if (readyToSubmit(pending_)) submit();
  return true;
}

void Repl::submit() {
  std::string text = pending_;
  pending_.clear();
  if (trim(text).empty()) return;
  note(session_.define(text));
}

bool Repl::command(const std::string &line) {
  std::vector<std::string> words = splitWords(line.substr(1));
  if (words.empty()) {
    fmt::print(err_, "error: empty command; `:help` lists the commands\n");
    note(false);
    return true;
  }
  std::string name = words[0] == "?" ? "help" : words[0];
  const CommandInfo *c = resolve(name);
  if (!c) {
    std::vector<std::string> names;
    for (const auto &k : kCommands) names.push_back(std::string(":") + k.name);
    fmt::print(err_, "error: unknown command `:{}` (commands: {})\n", name, fmt::join(names, " "));
    note(false);
    return true;
  }
  std::vector<std::string> args(words.begin() + 1, words.end());
  const std::string cmd = c->name;
  auto needOne = [&](const char *what) {
    if (args.size() == 1) return true;
    fmt::print(err_, "error: `:{}` takes one {}\n", cmd, what);
    note(false);
    return false;
  };
  if (cmd == "quit") return false;
  if (cmd == "help") fmt::print(out_, "{}", helpText());
  else if (cmd == "load") {
    if (args.empty()) {
      fmt::print(err_, "error: `:load` needs at least one file\n");
      note(false);
    } else {
      bool ok = session_.load(args);
      note(ok);
      if (ok) fmt::print(out_, "loaded {}\n", fmt::join(args, ", "));
    }
  } else if (cmd == "reload") {
    bool ok = session_.reload();
    note(ok);
    if (ok) fmt::print(out_, "reloaded {}\n", fmt::join(session_.files(), ", "));
  } else if (cmd == "run") note(runCommand(args));
  else if (cmd == "type") {
    if (needOne("name")) note(session_.showType(args[0]));
  } else if (cmd == "info") {
    if (needOne("name")) note(session_.showInfo(args[0]));
  } else if (cmd == "browse") session_.browse();
  else if (cmd == "set") note(setCommand(args));
  else if (cmd == "unset") note(unsetCommand(args));
  else if (cmd == "print") {
    std::string what;
    for (const auto &a : args) what += (what.empty() ? "" : " ") + a;
    note(session_.print(what));
  }
  return true;
}

bool Repl::runCommand(const std::vector<std::string> &args) {
  RunRequest r = session_.defaults();
  r.sets.clear(); // the session adds the remembered ones itself
  std::vector<std::string> rest = args;
  if (!rest.empty() && !rest[0].empty() && rest[0][0] != '-') {
    r.entry = rest[0];
    rest.erase(rest.begin());
  }
  CLI::App app{"run"};
  app.set_help_flag();
  addRunOptions(app, r);
  std::reverse(rest.begin(), rest.end()); // CLI11 takes the arguments in reverse order
  try {
    app.parse(rest);
  } catch (const CLI::ParseError &e) {
    fmt::print(err_, "error: {}\n", e.what());
    return false;
  }
  return run(r);
}

bool Repl::run(RunRequest r) {
  if (!ctrlCStopsRuns_) return session_.run(r);
  // While the guard lives SIGINT only sets a flag, which the evaluation polls.
  tune::InterruptGuard guard(tune::InterruptGuard::Signals::CtrlC);
  r.interrupted = &tune::interruptRequested;
  return session_.run(r);
}

bool Repl::setCommand(const std::vector<std::string> &args) {
  RunRequest &d = session_.defaults();
  if (args.empty()) {
    showSettings();
    return true;
  }
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string &a = args[i];
    if (a == "--precise") d.precise = true;
    else if (a == "--trap-overflow") d.trapOverflow = true;
    else if (a == "--allow-undefined") d.allowUndefined = true;
    else if (a == "--stats") d.stats = true;
    else if (a == "--quiet" || a == "-q") d.quiet = true;
    else if ((a == "--seed" || a == "--print-limit") && i + 1 == args.size()) {
      fmt::print(err_, "error: `{}` needs a value, e.g. `:set {} 7`\n", a, a);
      return false;
    } else if (a == "--seed" || a == "--print-limit") {
      const std::string &v = args[++i];
      if (v.empty() || v.size() > 18 || v.find_first_not_of("0123456789") != std::string::npos) {
        fmt::print(err_, "error: `{}` needs a non-negative integer, not `{}`\n", a, v);
        return false;
      }
      if (a == "--seed") d.seed = std::stoull(v);
      else d.printLimit = size_t(std::stoull(v));
    } else if (a.find('=') != std::string::npos && a[0] != '-') {
      // NAME=VALUE[,NAME=VALUE...]: replace earlier :set values of the same names.  Within one
      // :set a name given twice is a mistake, as in `mdhi run --set`, except `N=*` next to
      // `N=<extent>`, the pair that gives a run-time size its value.
      MetaSettings items;
      std::string problem;
      if (!parseMetaSettings({a}, items, problem)) {
        fmt::print(err_, "error: {}\n", problem);
        return false;
      }
      for (const auto &[key, value] : items)
        d.sets.erase(std::remove_if(d.sets.begin(), d.sets.end(),
                                    [&](const std::string &s) { return s.compare(0, key.size() + 1, key + "=") == 0; }),
                     d.sets.end());
      for (const auto &[key, value] : items) d.sets.push_back(key + "=" + value);
    } else {
      fmt::print(err_, "error: unknown setting `{}`; `:help` shows what `:set` accepts\n", a);
      return false;
    }
  }
  return true;
}

bool Repl::unsetCommand(const std::vector<std::string> &args) {
  RunRequest &d = session_.defaults();
  if (args.empty()) {
    fmt::print(err_, "error: `:unset` needs what to forget: a NAME set with `:set NAME=VALUE`, or an option such as "
                     "--precise (`:set` alone shows the settings)\n");
    return false;
  }
  for (const auto &a : args) {
    if (a == "--precise") d.precise = false;
    else if (a == "--trap-overflow") d.trapOverflow = false;
    else if (a == "--allow-undefined") d.allowUndefined = false;
    else if (a == "--stats") d.stats = false;
    else if (a == "--quiet") d.quiet = false;
    else if (a == "--seed") d.seed = 1;
    else if (a == "--print-limit") d.printLimit = RunRequest{}.printLimit;
    else {
      size_t before = d.sets.size();
      d.sets.erase(std::remove_if(d.sets.begin(), d.sets.end(),
                                  [&](const std::string &s) { return s.compare(0, a.size() + 1, a + "=") == 0; }),
                   d.sets.end());
      if (d.sets.size() == before) {
        fmt::print(err_, "error: `{}` is not set\n", a);
        return false;
      }
    }
  }
  return true;
}

void Repl::showSettings() const {
  const RunRequest &d = session_.defaults();
  fmt::print(out_, "settings: {}\n", d.sets.empty() ? "(none)" : fmt::format("{}", fmt::join(d.sets, ",")));
  const bool ownLimit = d.printLimit != RunRequest{}.printLimit;
  fmt::print(out_, "seed: {}{}{}{}{}{}{}\n", d.seed, d.precise ? ", --precise" : "", d.trapOverflow ? ", --trap-overflow" : "",
             d.allowUndefined ? ", --allow-undefined" : "", d.stats ? ", --stats" : "", d.quiet ? ", --quiet" : "",
             ownLimit ? fmt::format(", --print-limit {}", d.printLimit) : "");
}

std::vector<std::string> Repl::complete(const std::string &before, size_t &wordStart) const {
  wordStart = before.size();
  while (wordStart > 0) {
    char c = before[wordStart - 1];
    if (std::isspace(static_cast<unsigned char>(c)) || c == '=' || c == ',' || c == '(' || c == '[') break;
    --wordStart;
  }
  const std::string word = before.substr(wordStart);
  std::vector<std::string> cands;
  auto add = [&](const std::string &c) {
    if (c.compare(0, word.size(), word) == 0) cands.push_back(c);
  };
  const bool firstWord = before.find_first_not_of(" \t") == wordStart;
  if (firstWord && !word.empty() && word[0] == ':') {
    for (const auto &c : kCommands) add(std::string(":") + c.name);
    return cands;
  }
  std::vector<std::string> words = splitWords(before);
  const CommandInfo *cmd = !words.empty() && words[0].size() > 1 && words[0][0] == ':' ? resolve(words[0].substr(1)) : nullptr;
  if (cmd && std::string(cmd->name) == "load") {
    // File names: entries of the word's directory.
    std::string dir = ".", prefix = word;
    size_t slash = word.rfind('/');
    if (slash != std::string::npos) {
      dir = slash == 0 ? "/" : word.substr(0, slash);
      prefix = word.substr(slash + 1);
    }
    if (DIR *dp = opendir(dir.c_str())) {
      while (dirent *e = readdir(dp)) {
        std::string n = e->d_name;
        if (n == "." || n == ".." || n.compare(0, prefix.size(), prefix) != 0) continue;
        bool isDir = e->d_type == DT_DIR;
        if (!isDir && (n.size() < 4 || n.compare(n.size() - 4, 4, ".mdh") != 0)) continue;
        cands.push_back((slash == std::string::npos ? "" : word.substr(0, slash + 1)) + n + (isDir ? "/" : ""));
      }
      closedir(dp);
    }
    std::sort(cands.begin(), cands.end());
    return cands;
  }
  if (!word.empty() && word[0] == '-') {
    for (const char *o : kRunOptions) add(o);
    return cands;
  }
  for (const auto &n : session_.completionNames()) add(n);
  return cands;
}

} // namespace mdh::interp
