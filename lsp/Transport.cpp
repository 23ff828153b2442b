/** \file
 * Content-Length framing with a private read buffer (no stdio buffering, so
 * inputPending() can ask the kernel whether more input is waiting).
 */
#include "Transport.h"

#include <cerrno>
#include <cstdlib>
#include <poll.h>
#include <unistd.h>

namespace mdh::lsp {

bool Transport::fill() {
  if (eof_) return false;
  char chunk[65536];
  for (;;) {
    ssize_t n = ::read(in_, chunk, sizeof chunk);
    if (n > 0) {
      buf_.append(chunk, size_t(n));
      return true;
    }
    if (n < 0 && errno == EINTR) continue;
    eof_ = true;
    return false;
  }
}

bool Transport::inputPending() {
  if (!buf_.empty()) return true;
  if (eof_) return false;
  pollfd p{in_, POLLIN, 0};
  return ::poll(&p, 1, 0) > 0;
}

Transport::ReadResult Transport::read(nlohmann::json &message, std::string &error) {
  // Header block: lines up to an empty line.  Only Content-Length matters.
  size_t headerEnd;
  while ((headerEnd = buf_.find("\r\n\r\n")) == std::string::npos) {
    if (buf_.size() > 64 * 1024) { // no header block in sight: drop the junk
      buf_.clear();
      error = "header too long";
      return ReadResult::Malformed;
    }
    if (!fill()) {
      if (!buf_.empty()) {
        buf_.clear();
        error = "incomplete header at end of input";
        return ReadResult::Malformed;
      }
      return ReadResult::Eof;
    }
  }
  std::string header = buf_.substr(0, headerEnd);
  buf_.erase(0, headerEnd + 4);
  long long length = -1;
  size_t pos = 0;
  while (pos <= header.size()) {
    size_t eol = header.find("\r\n", pos);
    if (eol == std::string::npos) eol = header.size();
    std::string line = header.substr(pos, eol - pos);
    pos = eol + 2;
    const std::string key = "content-length:";
    if (line.size() > key.size()) {
      std::string lower = line.substr(0, key.size());
      for (char &c : lower) c = char(std::tolower(static_cast<unsigned char>(c)));
      if (lower == key) {
        char *end = nullptr;
        length = std::strtoll(line.c_str() + key.size(), &end, 10);
        while (end && (*end == ' ' || *end == '\t')) ++end;
        if (!end || *end != 0) length = -1;
      }
    }
  }
  if (length < 0 || size_t(length) > kMaxMessage) {
    error = "missing or invalid Content-Length";
    return ReadResult::Malformed;
  }
  while (buf_.size() < size_t(length)) {
    if (!fill()) {
      buf_.clear();
      error = "message truncated at end of input";
      return ReadResult::Malformed;
    }
  }
  std::string body = buf_.substr(0, size_t(length));
  buf_.erase(0, size_t(length));
  message = nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (message.is_discarded()) {
    error = "invalid JSON: " + body.substr(0, 200);
    return ReadResult::Malformed;
  }
  return ReadResult::Message;
}

bool Transport::send(const nlohmann::json &message) {
  std::string body = message.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  std::string frame = "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
  size_t done = 0;
  while (done < frame.size()) {
    ssize_t n = ::write(out_, frame.data() + done, frame.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += size_t(n);
  }
  return true;
}

} // namespace mdh::lsp
