/** \file
 * A compilation: the files it reads, their ASTs, one diagnostics engine and
 * one Sema.  Front ends (mdhc, mdhi, mdh-lsp, tests) create one Compilation
 * per run or per analysis; nothing here is global, so several can coexist in
 * one process.  Invariants: every file is loaded at most once (imports are
 * de-duplicated by canonical path, so import cycles are harmless); Sema sees
 * the modules in load order.
 */
#pragma once

#include "ast/AST.h"
#include "parse/Parser.h"
#include "sema/Sema.h"
#include "support/Diagnostics.h"

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace mdh {

struct CompilationOptions {
  std::vector<std::string> includeDirs; ///< `-I` search path for imports
  std::string stdlibDir;                ///< empty: auto-detect (see findStdlibDir)
  ParseLimits limits;
  /// Reads a file; the language server overrides it with open editor buffers.
  std::function<bool(const std::string &path, std::string &text)> readFile;
  /// Parses a loaded file (default: parseModule); the language server's
  /// version reuses the unchanged declarations of an edited buffer.
  std::function<std::unique_ptr<ast::Module>(const SourceManager &, FileId, DiagnosticEngine &, const ParseLimits &)>
      parse;
};

/// The stdlib directory: $MDH_STDLIB if set, else the source tree's stdlib/
/// (for builds that are not installed), else the installed share/mdh/stdlib.
std::string findStdlibDir();

class Compilation {
public:
  explicit Compilation(CompilationOptions opts = {});

  SourceManager &sources() { return sm_; }
  DiagnosticEngine &diags() { return diags_; }
  Sema &sema() { return *sema_; }
  const std::vector<std::unique_ptr<ast::Module>> &modules() const { return modules_; }
  const ast::Module *moduleOf(FileId f) const;

  /// Loads, parses and resolves the imports of a file from disk.
  const ast::Module *addFile(const std::string &path);
  /// Same for text already in memory (`path` is used for messages and imports).
  const ast::Module *addSource(const std::string &path, std::string text);
  /// Runs sema over every loaded module (call once, after adding files).
  void analyze();

private:
  CompilationOptions opts_;
  SourceManager sm_;
  DiagnosticEngine diags_;
  std::unique_ptr<Sema> sema_;
  std::vector<std::unique_ptr<ast::Module>> modules_;
  std::unordered_map<std::string, size_t> moduleIndexByPath_; ///< canonical path -> index in modules_
  bool analyzed_ = false;

  /// A file found for an import: where, and its text.
  struct FoundImport {
    std::string path;
    std::string text;
  };

  /// Parses a file and everything it imports, depth first in import order;
  /// iterative, so a long chain of imports cannot exhaust the stack.
  const ast::Module *load(const std::string &path, std::string text);
  /// Parses one file, unless it is loaded already (`fresh` says which).
  const ast::Module *parseOnce(const std::string &path, std::string text, bool &fresh);
  /// Searches the module path for an import (E0101 when nothing is found, W0103 for a self-import).
  std::optional<FoundImport> findImport(const ast::Import &imp, const std::string &fromPath);
  bool readFile(const std::string &path, std::string &text);
};

} // namespace mdh
