/** \file
 * Method routing, capabilities and the lifecycle of the LSP session.
 */
#include "LspServer.h"

#include "RequestParams.h"
#include "Transport.h"

#include <chrono>
#include <fmt/format.h>

namespace mdh::lsp {

namespace {

/// A failed request: becomes a JSON-RPC error response.
struct RequestError {
  ErrorCode code;
  std::string message;
};

std::string uriOf(const json &params) { return stringParam(params, "textDocument.uri"); }
Position positionOf(const json &params) { return positionParam(params, "position"); }

/// LSP 3.17: a request id is an integer or a string (JSON-RPC 2.0 allows
/// null too but discourages it; LSP does not).
bool isValidId(const json &id) { return id.is_string() || id.is_number(); }

/// A json::exception's text without nlohmann's `[json.exception.type_error.302] ` prefix.
std::string withoutExceptionId(const std::string &what) {
  size_t close = what.find("] ");
  return what.compare(0, 16, "[json.exception.") == 0 && close != std::string::npos ? what.substr(close + 2) : what;
}

json capabilities() {
  json legend = {{"tokenTypes", semanticTokenTypes()}, {"tokenModifiers", semanticTokenModifiers()}};
  return {
      {"positionEncoding", "utf-16"},
      {"textDocumentSync", {{"openClose", true}, {"change", 2}, {"save", {{"includeText", false}}}}},
      {"hoverProvider", true},
      {"definitionProvider", true},
      {"referencesProvider", true},
      {"documentHighlightProvider", true},
      {"renameProvider", {{"prepareProvider", true}}},
      {"documentSymbolProvider", true},
      {"completionProvider", {{"triggerCharacters", {".", "<", "(", "@", ":"}}, {"resolveProvider", false}}},
      {"signatureHelpProvider", {{"triggerCharacters", {"(", ",", "<", "{"}}, {"retriggerCharacters", {","}}}},
      {"semanticTokensProvider", {{"legend", legend}, {"full", true}, {"range", false}}},
      {"documentFormattingProvider", true},
      {"foldingRangeProvider", true},
      {"inlayHintProvider", true},
  };
}

} // namespace

LspServer::LspServer(MdhServer &server, Sink send) : server_(server), send_(std::move(send)) {}

void LspServer::reply(const json &id, json result) {
  send_({{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}});
}

void LspServer::replyError(const json &id, ErrorCode code, const std::string &message) {
  send_({{"jsonrpc", "2.0"}, {"id", id}, {"error", {{"code", int(code)}, {"message", message}}}});
}

void LspServer::notify(const std::string &method, json params) {
  send_({{"jsonrpc", "2.0"}, {"method", method}, {"params", std::move(params)}});
}

void LspServer::handle(const json &msg) {
  if (!msg.is_object()) {
    replyError(nullptr, ErrorCode::InvalidRequest, "a message must be a JSON object");
    return;
  }
  if (msg.contains("id") && !isValidId(msg["id"])) {
    if (!msg.contains("result") && !msg.contains("error")) // a response, even a strange one, gets no answer
      replyError(nullptr, ErrorCode::InvalidRequest,
                 fmt::format("the `id` of a request must be a string or a number, not {}", jsonKind(msg["id"])));
    return;
  }
  const bool hasId = msg.contains("id");
  if (!msg.contains("method") || !msg["method"].is_string()) {
    if (!msg.contains("result") && !msg.contains("error")) // a response to us is fine; anything else is not
      replyError(hasId ? msg["id"] : json(nullptr), ErrorCode::InvalidRequest,
                 msg.contains("method") ? fmt::format("`method` must be a string, not {}", jsonKind(msg["method"]))
                                        : std::string("missing `method`"));
    return;
  }
  const std::string method = msg["method"].get<std::string>();
  static const json kNoParams = json::object(); // immutable
  const json &params = msg.contains("params") ? msg["params"] : kNoParams;
  auto start = std::chrono::steady_clock::now();
  if (!hasId) {
    try {
      dispatchNotification(method, params);
    } catch (...) {
      // Notifications have no response; a malformed one is dropped.
    }
  } else {
    const json &id = msg["id"];
    try {
      if (!initialized_ && method != "initialize") {
        replyError(id, ErrorCode::ServerNotInitialized, "the server is not initialized");
      } else if (initialized_ && method == "initialize") {
        // LSP 3.17: initialize is sent once; the first one's answer stands.
        replyError(id, ErrorCode::InvalidRequest, "the server is already initialized");
      } else if (shutdown_) {
        replyError(id, ErrorCode::InvalidRequest, "the server is shutting down");
      } else {
        reply(id, dispatch(method, params));
      }
    } catch (const RequestError &e) {
      replyError(id, e.code, e.message);
    } catch (const InvalidParams &e) {
      replyError(id, ErrorCode::InvalidParams, fmt::format("invalid parameters for `{}`: {}", method, e.what()));
    } catch (const json::exception &e) {
      replyError(id, ErrorCode::InvalidParams,
                 fmt::format("invalid parameters for `{}`: {}", method, withoutExceptionId(e.what())));
    } catch (const std::exception &e) {
      replyError(id, ErrorCode::InternalError, fmt::format("`{}` failed: {}", method, e.what()));
    } catch (...) {
      replyError(id, ErrorCode::InternalError, fmt::format("`{}` failed", method));
    }
  }
  if (log_) {
    auto us = std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - start).count();
    log_(fmt::format("{} {:.3f} ms", method, double(us) / 1000.0));
  }
}

json LspServer::dispatch(const std::string &method, const json &p) {
  if (method == "initialize") {
    initialized_ = true;
    return {{"capabilities", capabilities()}, {"serverInfo", {{"name", "mdh-lsp"}, {"version", MDH_VERSION}}}};
  }
  if (method == "shutdown") {
    shutdown_ = true;
    return nullptr;
  }
  if (method == "textDocument/hover") {
    auto h = server_.hover(uriOf(p), positionOf(p));
    return h ? json(*h) : json(nullptr);
  }
  if (method == "textDocument/definition") return server_.definition(uriOf(p), positionOf(p));
  if (method == "textDocument/references") {
    return server_.references(uriOf(p), positionOf(p), boolParam(p, "context.includeDeclaration", true));
  }
  if (method == "textDocument/documentHighlight") return server_.highlights(uriOf(p), positionOf(p));
  if (method == "textDocument/prepareRename") {
    std::string error;
    auto r = server_.prepareRename(uriOf(p), positionOf(p), error);
    if (!r) throw RequestError{ErrorCode::RequestFailed, error};
    return *r;
  }
  if (method == "textDocument/rename") {
    std::string error;
    auto e = server_.rename(uriOf(p), positionOf(p), stringParam(p, "newName"), error);
    if (!e) throw RequestError{ErrorCode::RequestFailed, error};
    return *e;
  }
  if (method == "textDocument/documentSymbol") return server_.documentSymbols(uriOf(p));
  if (method == "textDocument/completion") return server_.completion(uriOf(p), positionOf(p));
  if (method == "textDocument/signatureHelp") {
    auto s = server_.signatureHelp(uriOf(p), positionOf(p));
    return s ? json(*s) : json(nullptr);
  }
  if (method == "textDocument/semanticTokens/full") return server_.semanticTokens(uriOf(p));
  if (method == "textDocument/formatting") {
    std::string error;
    auto edits = server_.format(uriOf(p), error);
    if (!edits) throw RequestError{ErrorCode::RequestFailed, error};
    return *edits;
  }
  if (method == "textDocument/foldingRange") return server_.foldingRanges(uriOf(p));
  if (method == "textDocument/inlayHint") return server_.inlayHints(uriOf(p), rangeParam(p, "range"));
  throw RequestError{ErrorCode::MethodNotFound, fmt::format("method `{}` is not supported", method)};
}

void LspServer::dispatchNotification(const std::string &method, const json &p) {
  if (method == "exit") {
    exit_ = true;
    return;
  }
  if (!initialized_) return; // the specification: drop notifications before initialize (exit excepted)
  if (method == "textDocument/didOpen") {
    server_.openDocument(uriOf(p), stringParam(p, "textDocument.text"), intParam(p, "textDocument.version", 0));
  } else if (method == "textDocument/didChange") {
    std::vector<TextDocumentContentChange> changes = contentChangesParam(p, "contentChanges");
    server_.changeDocument(uriOf(p), changes, intParam(p, "textDocument.version", 0));
  } else if (method == "textDocument/didClose") {
    std::string uri = uriOf(p);
    server_.closeDocument(uri);
    notify("textDocument/publishDiagnostics", {{"uri", uri}, {"diagnostics", json::array()}});
  } else if (method == "textDocument/didSave" || method == "workspace/didChangeWatchedFiles") {
    server_.invalidateAll();
  }
  // initialized, $/cancelRequest, $/setTrace, ...: nothing to do.
}

void LspServer::publishPendingDiagnostics() {
  if (!initialized_ || shutdown_) return;
  for (const std::string &uri : server_.staleDiagnostics()) {
    try {
      int version = 0;
      std::vector<Diagnostic> diags = server_.diagnostics(uri, version);
      notify("textDocument/publishDiagnostics", {{"uri", uri}, {"version", version}, {"diagnostics", diags}});
    } catch (...) {
    }
  }
}

int LspServer::run(Transport &transport) {
  for (;;) {
    json msg;
    std::string error;
    auto r = transport.read(msg, error);
    if (r == Transport::ReadResult::Eof) break;
    if (r == Transport::ReadResult::Malformed) {
      replyError(nullptr, ErrorCode::ParseError, error);
      continue;
    }
    handle(msg);
    if (exit_) break;
    if (!transport.inputPending()) {
      publishPendingDiagnostics();
      server_.releaseRetired();
    }
  }
  return exitCode();
}

} // namespace mdh::lsp
