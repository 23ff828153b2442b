/** \file
 * `file://` URIs <-> file-system paths (RFC 8089, percent-encoding).
 *
 * Invariants: uriFromPath(pathFromUri(u)) == u for every URI an editor sends
 * for a local file, up to the case of percent-escapes; a URI with another
 * scheme (`untitled:`) maps to itself as a "path", so unsaved buffers still
 * get a stable key and a message location.
 */
#pragma once

#include <string>

namespace mdh::lsp {

/// The path of a `file:` URI; other URIs are returned unchanged.
std::string pathFromUri(const std::string &uri);
/// A `file:` URI for an absolute path (a path that is not absolute is made so).
std::string uriFromPath(const std::string &path);

} // namespace mdh::lsp
