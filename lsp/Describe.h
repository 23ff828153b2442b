/** \file
 * Human-readable one-line descriptions shared by hover, completion,
 * signature help, document symbols and inlay hints: declaration signatures,
 * buffer shapes, combine-operator kinds.
 *
 * Invariants: pure functions of their arguments; the spellings follow the
 * formatter (ast/Printer.h) for source constructs and the HL printer
 * (hl::printProgram) for derived facts, so the editor shows what `mdhc fmt`
 * and `mdhc --emit=hl` print.
 */
#pragma once

#include "ast/AST.h"
#include "hl/HLIR.h"

#include <string>
#include <vector>

namespace mdh::lsp {

/// `<T: type, I: size>` or "".
std::string metaParamList(const ast::Decl &d);
/// `fn name<T: type>(a: T, b: T) -> T`, `record R`, `combine c = pw(add)`,
/// `view v<...> = inp_view<...>(...)`, `mdh m<...>` (or `mdh a = b<...>`).
std::string declSignature(const ast::Decl &d);
/// `fn`, `record`, `combine`, `view`, `mdh`.
const char *declKeyword(const ast::Decl &d);

/// `[I, K]` (an empty list is a scalar: `[]`).
std::string sizeList(const std::vector<SizePoly> &sizes);
/// `T[I, K]`, or `T` for a 0-dimensional buffer.
std::string bufferShape(const hl::Buffer &b);
/// `++ concatenation: the dimension keeps its index set [0, N)` and friends.
std::string combineKind(const hl::CombineOperator &op, const SizePoly &size);
/// The index variable names of a program's dimensions (falls back to d1, d2...).
std::string dimName(const hl::Program &p, size_t d);

/// Escapes text for a markdown code span/fence-free paragraph (backticks kept).
std::string codeBlock(const std::string &code);

} // namespace mdh::lsp
