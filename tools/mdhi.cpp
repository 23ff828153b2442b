// mdhi — the reference interpreter of the MDH language: `mdhi run` evaluates
// an entry once; `mdhi [FILE...]` starts the REPL.  A thin front end: the
// semantics live in src/interp, the data formats in src/data.
#include "driver/CliSupport.h"
#include "interp/LineEditor.h"
#include "interp/Repl.h"
#include "interp/RunRequest.h"
#include "interp/Session.h"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cstdlib>
#include <iostream>

using namespace mdh;

namespace {

std::string historyPath() {
  if (const char *p = std::getenv("MDHI_HISTORY")) return p;
  if (const char *home = std::getenv("HOME")) return std::string(home) + "/.mdhi_history";
  return "";
}

int repl(interp::Session &session, bool interactive) {
  interp::Repl repl(session, stdout, stderr);
  if (!interactive) {
    // A script: one input line after another, no prompts; errors are reported and the script goes on.
    std::string line;
    while (std::getline(std::cin, line))
      if (!repl.feed(line)) return repl.hadErrors() ? 1 : 0;
    if (repl.pending()) repl.feed("");
    return repl.hadErrors() ? 1 : 0;
  }
  fmt::print("mdhi {} — the MDH reference interpreter. `:help` lists the commands, `:quit` leaves.\n", MDH_VERSION);
  repl.interruptRunsOnCtrlC();
  interp::LineEditor editor("mdhi", historyPath(),
                            [&](const std::string &before, size_t &start) { return repl.complete(before, start); });
  std::string line;
  while (editor.readLine(repl.prompt(), line)) {
    std::fflush(stdout);
    if (!repl.feed(line)) return 0;
    std::fflush(stdout);
    std::fflush(stderr);
  }
  fmt::print("\n");
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  CLI::App app{"mdhi — reference interpreter for the MDH language (Multi-Dimensional Homomorphisms)\n"
               "  mdhi run FILE --entry NAME [--set ...] [--in BUF=FILE.npy] [--out BUF=FILE.npy] ...\n"
               "  mdhi [FILE...]      interactive session (reads commands from stdin when it is not a terminal)"};
  app.set_version_flag("--version", std::string("mdhi ") + MDH_VERSION);
  std::vector<std::string> files, includes;
  app.add_option("files", files, ".mdh files to load into the interactive session");
  app.add_option("-I,--include", includes, "directory searched by `import`")->type_name("DIR")->allow_extra_args(false);

  auto *run = app.add_subcommand("run", "evaluate an entry once and exit (status 1 on an error in the program or its data, "
                                        "2 on a malformed command line)");
  std::string runFile;
  std::vector<std::string> runIncludes;
  interp::RunRequest request;
  run->add_option("file", runFile, "the .mdh file")->required();
  run->add_option("-I,--include", runIncludes, "directory searched by `import`")->type_name("DIR")->allow_extra_args(false);
  interp::addRunOptions(*run, request);

  if (int rc = parseCommandLine(app, argc, argv); rc >= 0) return rc;
  interp::SessionOptions opts;
  opts.includeDirs = includes;
  opts.includeDirs.insert(opts.includeDirs.end(), runIncludes.begin(), runIncludes.end());
  opts.color = isTerminal(stderr) && !std::getenv("NO_COLOR");
  interp::Session session(opts);
  if (*run) {
    if (request.entry.empty()) {
      fmt::print(stderr, "error: `mdhi run` needs `--entry NAME` (the mdh declaration to evaluate)\n");
      return 2;
    }
    if (!session.load({runFile})) return 1;
    switch (session.execute(request)) {
    case interp::RunOutcome::Done: return 0;
    case interp::RunOutcome::Failed: return 1;
    case interp::RunOutcome::Malformed: return 2;
    }
    return 1;
  }
  if (!files.empty()) session.load(files);
  return repl(session, isTerminal(stdin) && isTerminal(stdout));
}
