/** \file
 * Small helpers on AST nodes: operator spellings, precedences and clones.
 */
#include "ast/AST.h"

namespace mdh::ast {

const char *spelling(UnaryOp op) {
  switch (op) {
  case UnaryOp::Neg: return "-";
  case UnaryOp::Not: return "!";
  case UnaryOp::BitNot: return "~";
  }
  return "?";
}

const char *spelling(BinaryOp op) {
  switch (op) {
  case BinaryOp::Mul: return "*";
  case BinaryOp::Div: return "/";
  case BinaryOp::Mod: return "%";
  case BinaryOp::Add: return "+";
  case BinaryOp::Sub: return "-";
  case BinaryOp::Shl: return "<<";
  case BinaryOp::Shr: return ">>";
  case BinaryOp::Lt: return "<";
  case BinaryOp::Le: return "<=";
  case BinaryOp::Gt: return ">";
  case BinaryOp::Ge: return ">=";
  case BinaryOp::Eq: return "==";
  case BinaryOp::Ne: return "!=";
  case BinaryOp::BitAnd: return "&";
  case BinaryOp::BitXor: return "^";
  case BinaryOp::BitOr: return "|";
  case BinaryOp::And: return "&&";
  case BinaryOp::Or: return "||";
  }
  return "?";
}

int precedence(BinaryOp op) {
  switch (op) {
  case BinaryOp::Mul: case BinaryOp::Div: case BinaryOp::Mod: return 10;
  case BinaryOp::Add: case BinaryOp::Sub: return 9;
  case BinaryOp::Shl: case BinaryOp::Shr: return 8;
  case BinaryOp::Lt: case BinaryOp::Le: case BinaryOp::Gt: case BinaryOp::Ge: return 7;
  case BinaryOp::Eq: case BinaryOp::Ne: return 6;
  case BinaryOp::BitAnd: return 5;
  case BinaryOp::BitXor: return 4;
  case BinaryOp::BitOr: return 3;
  case BinaryOp::And: return 2;
  case BinaryOp::Or: return 1;
  }
  return 0;
}

SizeExprPtr SizeExpr::clone() const {
  auto c = std::make_unique<SizeExpr>();
  c->kind = kind;
  c->value = value;
  c->name = name;
  c->range = range;
  if (lhs) c->lhs = lhs->clone();
  if (rhs) c->rhs = rhs->clone();
  return c;
}

MetaArg MetaArg::clone() const {
  MetaArg c;
  c.kind = kind;
  c.type = type;
  c.size = size ? size->clone() : nullptr;
  c.range = range;
  return c;
}

OpRef OpRef::clone() const {
  OpRef c;
  c.kind = kind;
  c.symbol = symbol;
  c.name = name;
  c.hasMetaArgs = hasMetaArgs;
  for (const auto &a : metaArgs) c.metaArgs.push_back(a.clone());
  for (const auto &e : elems) c.elems.push_back(e.clone());
  c.range = range;
  return c;
}

CombineOp CombineOp::clone() const {
  CombineOp c;
  c.kind = kind;
  c.op = op.clone();
  c.symbolShorthand = symbolShorthand;
  c.name = name;
  c.hasMetaArgs = hasMetaArgs;
  for (const auto &a : metaArgs) c.metaArgs.push_back(a.clone());
  c.range = range;
  return c;
}

bool FnDecl::hasAttribute(const std::string &a) const {
  for (const auto &x : attributes)
    if (x.name == a) return true;
  return false;
}

std::string Import::dotted() const {
  std::string s;
  for (const auto &p : path) s += (s.empty() ? "" : ".") + p.name;
  return s;
}

} // namespace mdh::ast
