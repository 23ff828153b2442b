/** \file
 * Errors found while a program runs: division by zero, integer overflow
 * under --trap-overflow, ⊥ output cells, conflicting writes of a
 * non-injective output view, run-time sizes and shapes that do not fit.
 *
 * A RuntimeError carries a stable code (E09xx, see docs/interpreter.md), a
 * message that says where it happened (MDA indices, buffer cells), the
 * source range of the expression or buffer involved (may be invalid) and an
 * optional hint; front ends render it like any other diagnostic.
 */
#pragma once

#include "support/Diagnostics.h"

#include <stdexcept>
#include <string>

namespace mdh::interp {

namespace codes {
inline constexpr const char *kDivisionByZero = "E0901";
inline constexpr const char *kIntegerOverflow = "E0902";
inline constexpr const char *kUndefinedOutput = "E0903";
inline constexpr const char *kConflictingWrites = "E0904";
inline constexpr const char *kRuntimeSize = "E0905";
inline constexpr const char *kShapeMismatch = "E0906";
inline constexpr const char *kMissingData = "E0907";
inline constexpr const char *kBadCell = "E0908";
} // namespace codes

/// Polled during an evaluation; true asks it to stop (the REPL's Ctrl-C).
using InterruptCheck = bool (*)();

/// Thrown when an InterruptCheck asked an evaluation to stop: not an error of
/// the program, so it carries no code.
struct EvaluationInterrupted : std::runtime_error {
  EvaluationInterrupted() : std::runtime_error("interrupted") {}
};

struct RuntimeError : std::runtime_error {
  RuntimeError(std::string code, std::string message, SourceRange range = {}, std::string hint = {})
      : std::runtime_error(message), code(std::move(code)), range(range), hint(std::move(hint)) {}
  std::string code;
  SourceRange range;
  std::string hint;

  Diagnostic toDiagnostic() const {
    Diagnostic d;
    d.severity = Severity::Error;
    d.code = code;
    d.message = what();
    d.range = range;
    d.hint = hint;
    return d;
  }
};

} // namespace mdh::interp
