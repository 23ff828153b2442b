/** \file
 * Signatures and descriptions.
 */
#include "Describe.h"

#include "ast/Printer.h"

#include <fmt/format.h>

namespace mdh::lsp {

std::string metaParamList(const ast::Decl &d) {
  if (!d.hasMetaParams) return "";
  std::vector<std::string> ps;
  for (const auto &p : d.metaParams) ps.push_back(fmt::format("{}: {}", p.name.name, p.kind.name));
  return fmt::format("<{}>", fmt::join(ps, ", "));
}

const char *declKeyword(const ast::Decl &d) {
  switch (d.kind) {
  case ast::Decl::Kind::Fn: return "fn";
  case ast::Decl::Kind::Record: return "record";
  case ast::Decl::Kind::Combine: return "combine";
  case ast::Decl::Kind::View: return "view";
  case ast::Decl::Kind::Mdh: return "mdh";
  }
  return "";
}

std::string declSignature(const ast::Decl &d) {
  std::string head = fmt::format("{} {}{}", declKeyword(d), d.name.name, metaParamList(d));
  if (const auto *fn = d.as<ast::FnDecl>()) {
    std::vector<std::string> ps;
    for (const auto &p : fn->params) ps.push_back(fmt::format("{}: {}", p.name.name, ast::printType(p.type)));
    std::string attrs;
    for (const auto &a : fn->attributes) attrs += "@" + a.name + " ";
    return fmt::format("{}{}({}){}", attrs, head, fmt::join(ps, ", "),
                       fn->result ? " -> " + ast::printType(*fn->result) : "");
  }
  if (const auto *cd = d.as<ast::CombineDecl>()) return head + " = " + ast::printCombineOp(cd->op);
  if (const auto *vd = d.as<ast::ViewDecl>()) return head + " = " + ast::printStage(vd->stage);
  if (const auto *md = d.as<ast::MdhDecl>()) {
    if (md->stages.size() == 1 && md->stages[0].kind == ast::Stage::Kind::Ref)
      return head + " = " + ast::printStage(md->stages[0]);
    return head;
  }
  return head;
}

std::string sizeList(const std::vector<SizePoly> &sizes) {
  std::vector<std::string> s;
  for (const auto &p : sizes) s.push_back(p.str());
  return fmt::format("[{}]", fmt::join(s, ", "));
}

std::string bufferShape(const hl::Buffer &b) {
  if (b.shape.empty()) return b.elem.str();
  return b.elem.str() + sizeList(b.shape);
}

std::string combineKind(const hl::CombineOperator &op, const SizePoly &size) {
  switch (op.kind) {
  case hl::CombineOperator::Kind::Concat:
    return fmt::format("concatenation: the dimension keeps its index set [0, {})", size.str());
  case hl::CombineOperator::Kind::PointWise:
    return fmt::format("point-wise combination with `{}` ({}): the dimension collapses to {{0}}", op.op.str(),
                       op.op.assoc() && op.op.comm() ? "associative, commutative"
                       : op.op.assoc()              ? "associative, not commutative"
                                                    : "not declared associative");
  case hl::CombineOperator::Kind::PrefixSum:
    return fmt::format("prefix sum (inclusive scan) with `{}`: the dimension keeps its index set [0, {})",
                       op.op.str(), size.str());
  }
  return "";
}

std::string dimName(const hl::Program &p, size_t d) {
  if (d < p.dimNames.size() && !p.dimNames[d].empty()) return p.dimNames[d];
  return fmt::format("d{}", d + 1);
}

std::string codeBlock(const std::string &code) { return "```mdh\n" + code + "\n```"; }

} // namespace mdh::lsp
