/** \file
 * Percent-decoding and -encoding of file URIs.
 */
#include "Uri.h"

#include <cctype>
#include <filesystem>

namespace mdh::lsp {

namespace {
int hexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}
} // namespace

std::string pathFromUri(const std::string &uri) {
  const std::string scheme = "file://";
  if (uri.compare(0, scheme.size(), scheme) != 0) return uri;
  std::string rest = uri.substr(scheme.size());
  // file://host/path: a non-empty authority other than localhost is kept as //host.
  std::string prefix;
  if (!rest.empty() && rest[0] != '/') {
    size_t slash = rest.find('/');
    std::string host = rest.substr(0, slash);
    rest = slash == std::string::npos ? "/" : rest.substr(slash);
    if (host != "localhost") prefix = "//" + host;
  }
  std::string out = prefix;
  for (size_t i = 0; i < rest.size(); ++i) {
    if (rest[i] == '%' && i + 2 < rest.size() + 0 && hexValue(rest[i + 1]) >= 0 && hexValue(rest[i + 2]) >= 0) {
      out.push_back(char(hexValue(rest[i + 1]) * 16 + hexValue(rest[i + 2])));
      i += 2;
    } else {
      out.push_back(rest[i]);
    }
  }
  return out;
}

std::string uriFromPath(const std::string &path) {
  std::string p = path;
  if (p.find(':') != std::string::npos && p.rfind('/', 0) != 0) return p; // already a non-file URI
  std::error_code ec;
  if (!p.empty() && p[0] != '/') {
    auto abs = std::filesystem::absolute(p, ec);
    if (!ec) p = abs.lexically_normal().string();
  }
  static const char hex[] = "0123456789ABCDEF";
  std::string out = "file://";
  for (unsigned char c : p) {
    if (std::isalnum(c) || c == '/' || c == '-' || c == '.' || c == '_' || c == '~') {
      out.push_back(char(c));
    } else {
      out.push_back('%');
      out.push_back(hex[c >> 4]);
      out.push_back(hex[c & 15]);
    }
  }
  return out;
}

} // namespace mdh::lsp
