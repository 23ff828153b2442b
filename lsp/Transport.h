/** \file
 * JSON-RPC 2.0 framing over a pair of file descriptors (stdin/stdout for
 * mdh-lsp): `Content-Length: N\r\n\r\n<N bytes of JSON>`.
 *
 * Header lines may end with CRLF, as the specification says, or with LF
 * alone, as hand-written input does.
 *
 * The transport knows nothing about LSP methods.  Invariants: read() never
 * throws and always makes progress; end of input is Eof.  A broken frame
 * (a bad or missing Content-Length, a body that is not JSON or nests deeper
 * than kMaxNesting, a length that announces more or fewer bytes than the
 * message has) is reported once as
 * Malformed, and the stream resynchronises on the next `Content-Length:`
 * line, so one bad message never costs the ones after it.  send() writes one
 * whole frame per message.  The transport owns only its read buffer, so
 * several transports (for example in tests) can coexist.
 */
#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace mdh::lsp {

class Transport {
public:
  Transport(int inFd, int outFd) : in_(inFd), out_(outFd) {}

  enum class ReadResult { Message, Malformed, Eof };
  /// Reads the next message.  On Malformed, `error` says what was wrong.
  ReadResult read(nlohmann::json &message, std::string &error);
  /// Writes one message as a frame; false if the output is closed.
  bool send(const nlohmann::json &message);
  /// True when another message has (at least partly) arrived and can be read
  /// without waiting; the server uses it to coalesce re-analyses.
  bool inputPending();

  /// Upper bound on one message (hostile or broken clients): 64 MiB.
  static constexpr size_t kMaxMessage = size_t(64) << 20;
  /// Upper bound on the nesting of arrays and objects in one message (a
  /// deeper one is Malformed): LSP's deepest messages nest about 10 levels.
  static constexpr size_t kMaxNesting = 512;

private:
  int in_, out_;
  std::string buf_;
  bool eof_ = false;
  /// The previous read reported a broken frame; what follows may be its rest.
  bool afterBrokenFrame_ = false;
  /// Reads more bytes into buf_; false at end of input.
  bool fill();
  /// Drops empty lines at the start of buf_.
  void dropBlankLines();
  /// After a broken frame: keeps a new frame that starts right away, or drops
  /// junk up to the next whole Content-Length line (quietly: the frame was
  /// reported already).  False at end of input.
  bool skipRestOfBrokenFrame();
  /// Reports a bad header block of `headerSize` bytes and drops it.
  ReadResult brokenHeader(const std::string &what, size_t headerSize, std::string &error);
};

} // namespace mdh::lsp
