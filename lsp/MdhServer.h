/** \file
 * The language logic of mdh-lsp, kept apart from the protocol plumbing (as
 * MLIR's MLIRServer is from its LSPServer): URIs and LSP positions in, plain
 * Protocol.h structs out, no JSON, no I/O.
 *
 * It owns the open documents and one Analysis per document, built lazily on
 * the first request after an edit and then reused, so a burst of edits costs
 * one analysis.  Invariants: a query never sees an analysis older than the
 * document's text; an edit to one document also invalidates the analyses of
 * the open documents that import it; every query answers (empty or nullopt
 * when it has nothing) for any text, however broken.
 */
#pragma once

#include "Protocol.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mdh::lsp {

class MdhServer {
public:
  struct Options {
    std::vector<std::string> includeDirs; ///< `-I` directories for imports
    std::string stdlibDir;                ///< empty: auto-detect as mdhc does
    /// Test mode: check every incrementally assembled module against a
    /// whole-file parse and report a mismatch on stderr.
    bool verifyIncrementalParse = false;
  };

  explicit MdhServer(Options options);
  ~MdhServer();
  MdhServer(const MdhServer &) = delete;
  MdhServer &operator=(const MdhServer &) = delete;

  // ---- documents -------------------------------------------------------------------------------
  void openDocument(const std::string &uri, std::string text, int version);
  /// False if the document is not open.
  bool changeDocument(const std::string &uri, const std::vector<TextDocumentContentChange> &changes, int version);
  void closeDocument(const std::string &uri);
  /// Forget every analysis (files on disk changed).
  void invalidateAll();
  std::vector<std::string> openDocuments() const;
  /// The open documents whose diagnostics may have changed since they were last taken.
  std::vector<std::string> staleDiagnostics() const;
  std::optional<std::string> documentText(const std::string &uri) const;
  /// Frees the analyses that edits replaced.  Freeing a large analysis takes
  /// a few milliseconds, so the server calls this when it is idle, not
  /// between an edit and the answer to the next request.
  void releaseRetired();

  // ---- queries ---------------------------------------------------------------------------------
  /// Diagnostics of the document's current text and the version they belong to.
  std::vector<Diagnostic> diagnostics(const std::string &uri, int &version);
  std::optional<Hover> hover(const std::string &uri, Position pos);
  std::vector<Location> definition(const std::string &uri, Position pos);
  std::vector<Location> references(const std::string &uri, Position pos, bool includeDeclaration);
  std::vector<DocumentHighlight> highlights(const std::string &uri, Position pos);
  /// The range of the symbol to rename, or nullopt with `error` saying why it cannot be renamed.
  std::optional<Range> prepareRename(const std::string &uri, Position pos, std::string &error);
  std::optional<WorkspaceEdit> rename(const std::string &uri, Position pos, const std::string &newName,
                                      std::string &error);
  std::vector<DocumentSymbol> documentSymbols(const std::string &uri);
  CompletionList completion(const std::string &uri, Position pos);
  std::optional<SignatureHelp> signatureHelp(const std::string &uri, Position pos);
  SemanticTokens semanticTokens(const std::string &uri);
  std::vector<FoldingRange> foldingRanges(const std::string &uri);
  std::vector<InlayHint> inlayHints(const std::string &uri, Range range);
  /// nullopt with `error` when the document cannot be formatted (syntax errors).
  std::optional<std::vector<TextEdit>> format(const std::string &uri, std::string &error);

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

} // namespace mdh::lsp
