/** \file
 * Path-addressed readers of request parameters with plain-word errors.
 */
#include "RequestParams.h"

#include <fmt/format.h>

#include <climits>
#include <cmath>

namespace mdh::lsp {

std::string jsonKind(const json &v) {
  switch (v.type()) {
  case json::value_t::null: return "null";
  case json::value_t::object: return "an object";
  case json::value_t::array: return "an array";
  case json::value_t::string: return "a string";
  case json::value_t::boolean: return "a boolean";
  case json::value_t::number_integer:
  case json::value_t::number_unsigned: return "an integer";
  case json::value_t::number_float: return "a number with a fraction";
  default: return "not a JSON value";
  }
}

namespace {

[[noreturn]] void wrongType(const std::string &path, const char *expected, const json &actual) {
  throw InvalidParams(path.empty() ? fmt::format("the parameters must be {}, not {}", expected, jsonKind(actual))
                                   : fmt::format("`{}` must be {}, not {}", path, expected, jsonKind(actual)));
}

std::string joined(const std::string &objectPath, const std::string &key) {
  return objectPath.empty() ? key : objectPath + "." + key;
}

/// The member `key` of the value at `objectPath` (which must be an object), or nullptr when it is absent or null.
const json *memberOf(const json &object, const std::string &objectPath, const std::string &key) {
  if (!object.is_object()) wrongType(objectPath, "an object", object);
  auto it = object.find(key);
  return it == object.end() || it->is_null() ? nullptr : &*it;
}

const json &requiredMemberOf(const json &object, const std::string &objectPath, const std::string &key) {
  const json *m = memberOf(object, objectPath, key);
  if (!m) throw InvalidParams(fmt::format("`{}` is missing", joined(objectPath, key)));
  return *m;
}

/// The member at a dotted path below the parameters, or nullptr when it (or an object on the way) is absent.
const json *find(const json &params, const std::string &path) {
  const json *at = &params;
  size_t pos = 0;
  while (at) {
    size_t dot = path.find('.', pos);
    at = memberOf(*at, path.substr(0, pos == 0 ? 0 : pos - 1), path.substr(pos, dot - pos));
    if (dot == std::string::npos) return at;
    pos = dot + 1;
  }
  return nullptr;
}

const json &require(const json &params, const std::string &path) {
  const json *v = find(params, path);
  if (!v) throw InvalidParams(fmt::format("`{}` is missing", path));
  return *v;
}

/// A position's line or character: an LSP `uinteger` (0 to 2^31 - 1). Past the end of
/// its line or of the document is valid and clamped later (Document); outside the type's
/// range is not a position at all.
int nonNegativeInt(const json &v, const std::string &path) {
  if (!v.is_number()) wrongType(path, "an integer", v);
  const double d = v.get<double>();
  if (d != std::floor(d)) throw InvalidParams(fmt::format("`{}` must be an integer, not {}", path, v.dump()));
  if (d < 0 || d > double(INT_MAX))
    throw InvalidParams(fmt::format("`{}` must be an integer from 0 to 2147483647 (an LSP uinteger), not {}", path, v.dump()));
  return int(d);
}

Position readPosition(const json &v, const std::string &path) {
  Position p;
  p.line = nonNegativeInt(requiredMemberOf(v, path, "line"), path + ".line");
  p.character = nonNegativeInt(requiredMemberOf(v, path, "character"), path + ".character");
  return p;
}

Range readRange(const json &v, const std::string &path) {
  return Range{readPosition(requiredMemberOf(v, path, "start"), path + ".start"),
               readPosition(requiredMemberOf(v, path, "end"), path + ".end")};
}

} // namespace

std::string stringParam(const json &params, const std::string &path) {
  const json &v = require(params, path);
  if (!v.is_string()) wrongType(path, "a string", v);
  return v.get<std::string>();
}

Position positionParam(const json &params, const std::string &path) { return readPosition(require(params, path), path); }

Range rangeParam(const json &params, const std::string &path) { return readRange(require(params, path), path); }

bool boolParam(const json &params, const std::string &path, bool fallback) {
  const json *v = find(params, path);
  if (!v) return fallback;
  if (!v->is_boolean()) wrongType(path, "a boolean", *v);
  return v->get<bool>();
}

int intParam(const json &params, const std::string &path, int fallback) {
  const json *v = find(params, path);
  if (!v) return fallback;
  if (!v->is_number()) wrongType(path, "an integer", *v);
  double d = std::floor(v->get<double>());
  return d <= double(INT_MIN) ? INT_MIN : d >= double(INT_MAX) ? INT_MAX : int(d);
}

std::vector<TextDocumentContentChange> contentChangesParam(const json &params, const std::string &path) {
  const json &v = require(params, path);
  if (!v.is_array()) wrongType(path, "an array", v);
  std::vector<TextDocumentContentChange> changes;
  for (size_t i = 0; i < v.size(); ++i) {
    const std::string at = fmt::format("{}[{}]", path, i);
    TextDocumentContentChange change;
    const json &text = requiredMemberOf(v[i], at, "text");
    if (!text.is_string()) wrongType(at + ".text", "a string", text);
    change.text = text.get<std::string>();
    if (const json *range = memberOf(v[i], at, "range")) change.range = readRange(*range, at + ".range");
    changes.push_back(std::move(change));
  }
  return changes;
}

} // namespace mdh::lsp
