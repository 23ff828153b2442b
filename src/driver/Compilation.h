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
#include <string>
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
  std::vector<std::string> loadedPaths_;
  bool analyzed_ = false;

  const ast::Module *load(const std::string &path, std::string text);
  void resolveImports(const ast::Module &m, const std::string &fromPath);
  bool readFile(const std::string &path, std::string &text);
};

} // namespace mdh
