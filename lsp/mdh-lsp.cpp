// mdh-lsp — the MDH language server: LSP 3.17 over stdin/stdout.
// A thin front end: the protocol lives in LspServer, the language in MdhServer.
#include "LspServer.h"
#include "MdhServer.h"
#include "Transport.h"
#include "driver/CliSupport.h"

#include <CLI/CLI.hpp>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <unistd.h>

using namespace mdh::lsp;

int main(int argc, char **argv) {
  CLI::App app{"mdh-lsp — language server for the MDH language (JSON-RPC over stdin/stdout)"};
  app.set_version_flag("--version", std::string("mdh-lsp ") + MDH_VERSION);
  MdhServer::Options opts;
  std::string logFile;
  app.add_option("-I,--include", opts.includeDirs, "directory searched by `import`")->type_name("DIR");
  app.add_option("--stdlib", opts.stdlibDir, "the standard library directory (default: as mdhc)")->type_name("DIR");
  app.add_option("--log", logFile, "append a line per handled message (method, milliseconds) to FILE")
      ->type_name("FILE");
  app.add_flag("--verify-incremental", opts.verifyIncrementalParse,
               "check each incremental parse against a whole-file parse (tests)");
  app.add_flag("--stdio", "use stdin/stdout (the default and only transport; accepted for editors that pass it)");
  if (int rc = mdh::parseCommandLine(app, argc, argv); rc >= 0) return rc;
  std::signal(SIGPIPE, SIG_IGN); // a vanished client must not kill us mid-write

  // Opened before anything else: an editor that asked for a log shows this
  // message in its server log, which beats a log that silently never appears.
  std::unique_ptr<std::ofstream> log;
  if (!logFile.empty()) {
    log = std::make_unique<std::ofstream>(logFile, std::ios::app);
    if (!*log) {
      std::fprintf(stderr, "mdh-lsp: cannot open the log file `%s` for appending: %s\n", logFile.c_str(),
                   std::strerror(errno));
      return 1;
    }
  }
  MdhServer server(opts);
  Transport transport(STDIN_FILENO, STDOUT_FILENO);
  LspServer lsp(server, [&](const json &m) { transport.send(m); });
  if (log) lsp.setLog([&](const std::string &line) { *log << line << std::endl; });
  return lsp.run(transport);
}
