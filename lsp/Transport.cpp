/** \file
 * Content-Length framing with a private read buffer (no stdio buffering, so
 * inputPending() can ask the kernel whether more input is waiting), and
 * recovery from broken frames by resynchronising on the next header.
 */
#include "Transport.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <poll.h>
#include <unistd.h>

namespace mdh::lsp {

namespace {

/// The longest header block, or stretch of junk kept while looking for a header.
constexpr size_t kMaxHeader = 64 * 1024;

enum class HeaderMatch { Found, Partial, None };

/// Whether a whole `Content-Length: DIGITS` line (ended by LF or CRLF) starts
/// at `at`; Partial when the buffer ends before that can be decided.  A JSON
/// text never contains such a line (outside strings the letters are invalid,
/// inside strings a raw line break is), so one inside a body proves that the
/// announced length was wrong.
HeaderMatch contentLengthLineAt(const std::string &buf, size_t at) {
  static const char key[] = "content-length:";
  size_t p = at;
  for (const char *k = key; *k; ++k, ++p) {
    if (p == buf.size()) return HeaderMatch::Partial;
    if (std::tolower(static_cast<unsigned char>(buf[p])) != *k) return HeaderMatch::None;
  }
  // Runs of blanks and digits longer than any header has are not one: a
  // stream of them would otherwise stay Partial and be rescanned after every
  // read (quadratic in a hostile body).
  constexpr size_t kLongestRun = 64;
  auto skipBlanks = [&] {
    const size_t from = p;
    while (p < buf.size() && (buf[p] == ' ' || buf[p] == '\t')) ++p;
    return p - from <= kLongestRun;
  };
  if (!skipBlanks()) return HeaderMatch::None;
  const size_t digits = p;
  while (p < buf.size() && std::isdigit(static_cast<unsigned char>(buf[p]))) ++p;
  if (p - digits > kLongestRun) return HeaderMatch::None;
  if (p == buf.size()) return HeaderMatch::Partial;
  if (p == digits) return HeaderMatch::None;
  if (!skipBlanks()) return HeaderMatch::None;
  if (p == buf.size()) return HeaderMatch::Partial;
  if (buf[p] == '\n') return HeaderMatch::Found;
  if (buf[p] != '\r') return HeaderMatch::None;
  if (p + 1 == buf.size()) return HeaderMatch::Partial;
  return buf[p + 1] == '\n' ? HeaderMatch::Found : HeaderMatch::None;
}

/// The first position in [from, to) where a Content-Length line starts or may
/// start (`partial` then says which), or npos.
size_t findContentLengthLine(const std::string &buf, size_t from, size_t to, bool &partial) {
  for (size_t at = from; at < to && at < buf.size(); ++at) {
    HeaderMatch m = contentLengthLineAt(buf, at);
    if (m == HeaderMatch::None) continue;
    partial = m == HeaderMatch::Partial;
    return at;
  }
  partial = false;
  return std::string::npos;
}

enum class LineStart { Header, Junk, Undecided };

/// Whether the buffer starts with a whole header line (`Field-Name: value`
/// ended by LF or CRLF, no JSON punctuation in the value), with something
/// else, or cannot tell yet.  The rest of a body cut short may begin like a
/// field name (`file:///a.mdh"}}`), but its line holds quotes or brackets.
LineStart classifyStart(const std::string &buf) {
  constexpr size_t kLongestLine = 256;
  bool colon = false;
  for (size_t i = 0; i < buf.size() && i < kLongestLine; ++i) {
    const char c = buf[i];
    if (c == '\n') return colon ? LineStart::Header : LineStart::Junk;
    if (!colon) {
      if (c == ':') {
        if (i == 0) return LineStart::Junk;
        colon = true;
      } else if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-') {
        return LineStart::Junk;
      }
    } else if (c == '"' || c == '{' || c == '}' || c == '[' || c == ']') {
      return LineStart::Junk;
    }
  }
  return buf.size() < kLongestLine ? LineStart::Undecided : LineStart::Junk;
}

/// Finds the empty line that ends a header block; lines end with LF or CRLF.
/// Sets where the header text ends and the body begins.
bool findHeaderEnd(const std::string &buf, size_t &headerEnd, size_t &bodyStart) {
  size_t pos = 0;
  for (;;) {
    size_t eol = buf.find('\n', pos);
    if (eol == std::string::npos) return false;
    if (eol == pos || (eol == pos + 1 && buf[pos] == '\r')) {
      headerEnd = pos;
      bodyStart = eol + 1;
      return true;
    }
    pos = eol + 1;
  }
}

/// The value of the Content-Length field of a header block, or -1 if it has
/// none or the value is not a decimal number.
long long contentLengthOf(const std::string &header) {
  static const std::string key = "content-length:";
  long long length = -1;
  size_t pos = 0;
  while (pos < header.size()) {
    size_t eol = header.find('\n', pos);
    if (eol == std::string::npos) eol = header.size();
    std::string line = header.substr(pos, eol - pos);
    pos = eol + 1;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.size() < key.size()) continue;
    std::string name = line.substr(0, key.size());
    for (char &c : name) c = char(std::tolower(static_cast<unsigned char>(c)));
    if (name != key) continue;
    size_t b = line.find_first_not_of(" \t", key.size()), e = line.find_last_not_of(" \t");
    std::string value = b == std::string::npos ? "" : line.substr(b, e - b + 1);
    if (value.empty() || value.size() > 18 || value.find_first_not_of("0123456789") != std::string::npos) return -1;
    length = std::stoll(value);
  }
  return length;
}

/// The deepest nesting of arrays and objects in a JSON text (brackets in
/// strings do not count); any text, valid or not.
size_t nestingDepth(const std::string &text) {
  size_t depth = 0, deepest = 0;
  bool inString = false, escaped = false;
  for (char c : text) {
    if (inString) {
      if (escaped) escaped = false;
      else if (c == '\\') escaped = true;
      else if (c == '"') inString = false;
    } else if (c == '"') {
      inString = true;
    } else if (c == '[' || c == '{') {
      deepest = std::max(deepest, ++depth);
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return deepest;
}

} // namespace

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

void Transport::dropBlankLines() {
  size_t n = buf_.find_first_not_of("\r\n");
  buf_.erase(0, n == std::string::npos ? buf_.size() : n);
}

bool Transport::skipRestOfBrokenFrame() {
  for (;;) {
    dropBlankLines();
    LineStart start = buf_.empty() ? LineStart::Undecided : classifyStart(buf_);
    if (start == LineStart::Header) return true; // a new frame: read it normally
    if (start == LineStart::Junk) break;
    if (!fill()) return false;
  }
  // Junk: the rest of the broken frame.  Drop it up to a whole Content-Length line.
  for (;;) {
    bool partial = false;
    size_t at = findContentLengthLine(buf_, 0, buf_.size(), partial);
    if (at == std::string::npos) {
      buf_.clear();
    } else {
      buf_.erase(0, at);
      if (!partial) return true;
      if (buf_.size() > kMaxHeader) { // endless digits: not a header after all
        buf_.erase(0, 1);
        continue;
      }
    }
    if (!fill()) return false;
  }
}

Transport::ReadResult Transport::read(nlohmann::json &message, std::string &error) {
  if (afterBrokenFrame_) {
    afterBrokenFrame_ = false;
    if (!skipRestOfBrokenFrame()) {
      buf_.clear();
      return ReadResult::Eof;
    }
  }
  dropBlankLines(); // between messages they are harmless
  // The header block: lines up to an empty line.  Only Content-Length matters.
  size_t headerEnd = 0, bodyStart = 0;
  while (!findHeaderEnd(buf_, headerEnd, bodyStart)) {
    if (buf_.size() > kMaxHeader) return brokenHeader("header too long (no empty line after it)", buf_.size(), error);
    if (!fill()) {
      const bool onlyBlankLines = buf_.find_first_not_of("\r\n") == std::string::npos;
      buf_.clear();
      if (onlyBlankLines) return ReadResult::Eof;
      error = "incomplete header at end of input";
      return ReadResult::Malformed;
    }
    dropBlankLines();
  }
  const long long length = contentLengthOf(buf_.substr(0, headerEnd));
  if (length < 0) return brokenHeader("missing or invalid Content-Length", bodyStart, error);
  if (size_t(length) > kMaxMessage)
    return brokenHeader("Content-Length " + std::to_string(length) + " is over the limit of 64 MiB", bodyStart, error);
  buf_.erase(0, bodyStart);

  // The body.  A header line inside it means the length announced too many
  // bytes: the frame ends there and the next message is kept.
  const size_t n = size_t(length);
  size_t unscanned = 0;
  auto nextHeaderInBody = [&] {
    bool partial = false;
    size_t at = findContentLengthLine(buf_, unscanned, std::min(n, buf_.size()), partial);
    unscanned = at == std::string::npos ? std::min(n, buf_.size()) : at;
    return partial ? std::string::npos : at;
  };
  auto lengthMismatch = [&](size_t at) {
    buf_.erase(0, at);
    error = "Content-Length " + std::to_string(n) + " does not match the message: the next header begins after " +
            std::to_string(at) + " bytes";
    return ReadResult::Malformed;
  };
  while (buf_.size() < n) {
    if (size_t at = nextHeaderInBody(); at != std::string::npos) return lengthMismatch(at);
    if (!fill()) {
      buf_.clear();
      error = "message truncated at end of input";
      return ReadResult::Malformed;
    }
  }
  std::string body = buf_.substr(0, n);
  if (nestingDepth(body) > kMaxNesting) {
    // nlohmann parses deep values iteratively, but copying one recurses.
    buf_.erase(0, n);
    error = "a message nested deeper than " + std::to_string(kMaxNesting) + " arrays and objects";
    return ReadResult::Malformed;
  }
  message = nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (message.is_discarded()) {
    if (size_t at = nextHeaderInBody(); at != std::string::npos) return lengthMismatch(at);
    buf_.erase(0, n);
    // If the length announced too few bytes, the rest of the body follows.
    afterBrokenFrame_ = true;
    error = "invalid JSON: " + body.substr(0, 200);
    return ReadResult::Malformed;
  }
  buf_.erase(0, n);
  return ReadResult::Message;
}

Transport::ReadResult Transport::brokenHeader(const std::string &what, size_t headerSize, std::string &error) {
  error = what;
  // A Content-Length line after junk on the same line (the tail of an earlier
  // broken frame) starts the next frame; otherwise the whole block goes.
  bool partial = false;
  size_t at = findContentLengthLine(buf_, 1, headerSize, partial);
  buf_.erase(0, at != std::string::npos && !partial ? at : headerSize);
  afterBrokenFrame_ = true;
  return ReadResult::Malformed;
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
