/** \file
 * What the language has built in, described for the editor: the scalar
 * types, the binary operations of combine operators, the math functions, the
 * reserved words and contextual words, with one-line documentation each.
 *
 * The reserved words themselves come from the lexer (parse/Tokens.h) and the
 * type names from sema (primitiveTypeNames), so only the descriptions live
 * here.  Invariants: the tables are immutable; every name listed is one the
 * front end accepts (docs/language.md §2, §6.1, §8.6, §9.1).
 */
#pragma once

#include <string>
#include <vector>

namespace mdh::lsp {

struct BuiltinFunction {
  const char *name;
  const char *signature; ///< e.g. "pow(x: float, y: float) -> float"
  std::vector<const char *> params;
  const char *doc;
  bool binaryOp; ///< also a combine-operator operation (add, mul, ...)
};

/// The math functions and the seven binary operations, in documentation order.
const std::vector<BuiltinFunction> &builtinFunctions();
const BuiltinFunction *findBuiltinFunction(const std::string &name);
/// `add mul max min and or xor`.
bool isBuiltinBinaryOp(const std::string &name);

/// One-line description of a scalar type name (`f32`...), or "" if it is none.
std::string describePrimitiveType(const std::string &name);

/// Markdown description of a reserved or contextual word, or "".
std::string describeKeyword(const std::string &word);

/// Words that are keywords by position only: `o`, `pw`, `ps`, `type`, `size`.
const std::vector<std::string> &contextualWords();

} // namespace mdh::lsp
