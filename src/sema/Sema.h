/** \file
 * Static semantics of .mdh modules.
 *
 * Sema collects the declarations of every loaded module into one scope,
 * checks each declaration generically (type meta-parameters stay symbolic,
 * sizes are SizePolys over the size meta-parameters) and instantiates an
 * `mdh` entry point into an hl::Program.  Invariants: Sema never throws on
 * user input; every problem becomes a diagnostic (reported once, even when a
 * generic declaration is checked in several contexts); an instantiation that
 * reported an error returns nullptr.
 */
#pragma once

#include "ast/AST.h"
#include "hl/HLIR.h"
#include "support/Diagnostics.h"

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace mdh {

/// Values for an entry point's meta-parameters: `T` -> "f32", `I` -> "512" or "*".
using MetaSettings = std::vector<std::pair<std::string, std::string>>;

class Sema {
public:
  Sema(const SourceManager &sm, DiagnosticEngine &diags);
  ~Sema();
  Sema(const Sema &) = delete;
  Sema &operator=(const Sema &) = delete;

  /// Adds a module's declarations to the global scope (duplicates are errors).
  void addModule(const ast::Module &m);
  /// Checks every declaration of every added module.
  void checkAll();

  /// Instantiates an `mdh` declaration.  Meta-parameters missing from
  /// `settings` are an error unless `allowSymbolic`, in which case they stay
  /// symbolic (types as parameters, sizes as symbols).
  std::unique_ptr<hl::Program> instantiate(const std::string &entry, const MetaSettings &settings,
                                           bool allowSymbolic = false);

  const ast::Decl *lookup(const std::string &name) const;
  std::vector<const ast::Decl *> declarations() const;
  /// The generic instantiation made by checkAll (derived shapes etc.), if it succeeded.
  const hl::Program *genericProgram(const std::string &mdhName) const;

  struct Impl;

private:
  std::unique_ptr<Impl> impl_;
};

} // namespace mdh
