/** \file
 * The one diagnostics engine of a compilation.
 *
 * Every stage (lexer, parser, AST builder, sema, instantiation, data loading)
 * reports through a DiagnosticEngine; front ends (CLI, language server, tests)
 * install a handler or read the collected list.  Invariants: a diagnostic has a
 * stable code (see docs/diagnostics.md), a lower-case message without a final
 * period, and an optional hint saying how to fix it.  The engine never throws
 * and caps the number of stored diagnostics so hostile input cannot exhaust
 * memory.
 */
#pragma once

#include "support/Source.h"

#include <functional>
#include <string>
#include <vector>

namespace mdh {

enum class Severity { Error, Warning, Note };

struct DiagnosticNote {
  SourceRange range;
  std::string message;
};

struct Diagnostic {
  Severity severity = Severity::Error;
  std::string code;    ///< stable, e.g. "E0101"
  std::string message; ///< what is wrong
  SourceRange range;
  std::string hint;    ///< how to fix it (may be empty)
  std::vector<DiagnosticNote> notes;
};

class DiagnosticEngine {
public:
  using Handler = std::function<void(const Diagnostic &)>;

  explicit DiagnosticEngine(size_t maxStored = 1000) : maxStored_(maxStored) {}

  void setHandler(Handler h) { handler_ = std::move(h); }
  void report(Diagnostic d);

  void error(const char *code, SourceRange r, std::string msg, std::string hint = {});
  void warning(const char *code, SourceRange r, std::string msg, std::string hint = {});

  /// Adds a note to the most recently reported diagnostic.
  void note(SourceRange r, std::string msg);

  size_t errorCount() const { return errors_; }
  size_t warningCount() const { return warnings_; }
  bool hasErrors() const { return errors_ > 0; }
  const std::vector<Diagnostic> &all() const { return stored_; }
  void clear();

  /// Suppresses reports while > 0 (used for speculative checks).
  void pushSilence() { ++silence_; }
  void popSilence() { --silence_; }

private:
  Handler handler_;
  std::vector<Diagnostic> stored_;
  size_t maxStored_;
  size_t errors_ = 0, warnings_ = 0;
  int silence_ = 0;
};

/// Renders a diagnostic rustc-style:
///   file:line:col: error[E0101]: message
///     |
///   3 |   M: (i,k) -> (i,k-1)
///     |                  ^^^^^ label
///     = hint: ...
std::string renderDiagnostic(const SourceManager &sm, const Diagnostic &d, bool color = false);

const char *severityName(Severity s);

} // namespace mdh
