/** \file
 * An open editor buffer: its text, version, and the incremental edits of
 * `textDocument/didChange` applied in UTF-16 coordinates.
 *
 * Invariants: the text is always valid as far as edits go (a range past the
 * end of a line or of the file is clamped, never an error, as the protocol
 * asks); an edit splitting a surrogate pair or a UTF-8 sequence is clamped
 * to the code-point boundary before it.
 */
#pragma once

#include "Protocol.h"

#include <string>
#include <vector>

namespace mdh::lsp {

class Document {
public:
  Document(std::string uri, std::string text, int version);

  const std::string &uri() const { return uri_; }
  const std::string &path() const { return path_; }
  const std::string &text() const { return text_; }
  int version() const { return version_; }

  /// Applies the changes in order and sets the new version.
  void apply(const std::vector<TextDocumentContentChange> &changes, int version);

  /// Byte offset in the UTF-8 text of an LSP position (clamped).
  size_t byteOffset(Position p) const;

private:
  std::string uri_, path_, text_;
  int version_;
};

} // namespace mdh::lsp
