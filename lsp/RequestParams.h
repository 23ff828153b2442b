/** \file
 * Reading the parameters of LSP requests and notifications.  Each reader
 * names the member it wants by its path (`textDocument.uri`,
 * `position.line`) and throws InvalidParams when that member is missing or
 * has the wrong type, with a message in plain words that names it:
 * "`position.line` must be an integer, not a string".  LspServer answers
 * such a request with an InvalidParams error carrying that message.
 *
 * Invariants: only InvalidParams is thrown; the numbers of a position must
 * be LSP `uinteger`s (whole, 0 to 2^31 - 1), else InvalidParams (a position
 * past the end of its line or document is valid: Document clamps it); a
 * member that is null counts as absent.
 */
#pragma once

#include "Protocol.h"

#include <stdexcept>
#include <string>
#include <vector>

namespace mdh::lsp {

/// A parameter is missing or has the wrong type; what() says which and why.
struct InvalidParams : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// How a JSON value is called in messages: "an object", "a string", "null", ...
std::string jsonKind(const json &v);

/// The string at `path` (required).
std::string stringParam(const json &params, const std::string &path);
/// The position at `path` (required): `{line, character}`.
Position positionParam(const json &params, const std::string &path);
/// The range at `path` (required): `{start, end}`.
Range rangeParam(const json &params, const std::string &path);
/// The boolean at `path`, or `fallback` when it is absent.
bool boolParam(const json &params, const std::string &path, bool fallback);
/// The integer at `path`, or `fallback` when it is absent.
int intParam(const json &params, const std::string &path, int fallback);
/// The `contentChanges` array of `didChange` at `path` (required).
std::vector<TextDocumentContentChange> contentChangesParam(const json &params, const std::string &path);

} // namespace mdh::lsp
