/** \file
 * Printing ASTs: the canonical formatter (`mdhc fmt`, `--emit=hl` without an
 * entry, LSP formatting) and the structural dump (`--emit=ast`).
 *
 * Invariants: formatting is idempotent (format(format(x)) == format(x)),
 * keeps every comment, and parsing the output gives an AST whose dump equals
 * the input's dump (the round-trip property the tests check).
 */
#pragma once

#include "ast/AST.h"
#include "support/Source.h"

#include <string>

namespace mdh::ast {

struct FormatOptions {
  int indent = 2;
  size_t lineWidth = 100;
};

std::string formatModule(const Module &m, const SourceManager &sm, const FormatOptions &opts = {});

/// S-expression dump without source positions.
std::string dumpModule(const Module &m);

std::string printExpr(const Expr &e);
std::string printType(const TypeRef &t);
std::string printSize(const SizeExpr &s);
std::string printStage(const Stage &s);
std::string printCombineOp(const CombineOp &c);

} // namespace mdh::ast
