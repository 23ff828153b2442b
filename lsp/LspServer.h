/** \file
 * The protocol side of mdh-lsp: JSON-RPC messages in, JSON-RPC messages
 * out.  It routes each LSP method to MdhServer, converts between JSON and
 * the Protocol.h structs, keeps the lifecycle (initialize, shutdown, exit)
 * and decides when to publish diagnostics; it holds no language knowledge.
 *
 * Invariants: every request gets exactly one response, also when its
 * parameters are malformed (InvalidParams, naming the parameter) or a
 * handler fails (an error response then); a request whose id is neither a
 * string nor a number gets InvalidRequest with id null; notifications
 * never get one; requests before `initialize` are answered
 * with ServerNotInitialized and requests after `shutdown` with
 * InvalidRequest; nothing a client sends ends the process except `exit`
 * (or the end of the input).
 */
#pragma once

#include "MdhServer.h"
#include "Protocol.h"

#include <functional>
#include <string>

namespace mdh::lsp {

class Transport;

class LspServer {
public:
  using Sink = std::function<void(const json &)>;

  /// `send` receives every outgoing message (responses and notifications).
  LspServer(MdhServer &server, Sink send);

  /// Handles one incoming message (request, notification or stray response).
  void handle(const json &message);
  /// Publishes the diagnostics of every document whose diagnostics may have
  /// changed.  The run loop calls it when no input is waiting, so a burst of
  /// edits is analysed once.
  void publishPendingDiagnostics();

  bool exitRequested() const { return exit_; }
  /// The process exit code the specification asks for: 0 after shutdown, else 1.
  int exitCode() const { return shutdown_ ? 0 : 1; }

  /// Reads and handles messages until `exit` or end of input; returns the exit code.
  int run(Transport &transport);

  /// Optional log of every request's method and handling time (for --log).
  void setLog(std::function<void(const std::string &)> log) { log_ = std::move(log); }

private:
  MdhServer &server_;
  Sink send_;
  std::function<void(const std::string &)> log_;
  bool initialized_ = false, shutdown_ = false, exit_ = false;

  void reply(const json &id, json result);
  void replyError(const json &id, ErrorCode code, const std::string &message);
  void notify(const std::string &method, json params);
  /// Dispatches a request; returns its result or throws RequestError.
  json dispatch(const std::string &method, const json &params);
  void dispatchNotification(const std::string &method, const json &params);
};

} // namespace mdh::lsp
