/** \file
 * HL IR helpers and the paper-notation printer (`mdhc --emit=hl` with an entry).
 */
#include "hl/HLIR.h"

#include <fmt/format.h>

namespace mdh::hl {

const char *builtinName(Builtin b) {
  static const char *names[] = {"sqrt", "exp", "log", "abs", "min", "max", "pow", "floor", "ceil", "sin",
                                "cos", "tan", "tanh", "exp2", "log2", "log10", "round", "trunc", "fma"};
  return names[int(b)];
}

const char *binOpSpelling(BinOp op) {
  static const char *names[] = {"+", "-", "*", "/", "%", "<<", ">>", "<", "<=", ">", ">=", "==", "!=", "&", "^", "|", "&&", "||"};
  return names[int(op)];
}

bool isComparison(BinOp op) { return op >= BinOp::Lt && op <= BinOp::Ne; }

const char *unOpSpelling(UnOp op) {
  static const char *names[] = {"-", "!", "~"};
  return names[int(op)];
}

const char *builtinOpName(BuiltinOp op) {
  static const char *names[] = {"add", "mul", "max", "min", "and", "or", "xor"};
  return names[int(op)];
}

bool BinaryOperator::assoc() const {
  switch (kind) {
  case Kind::Builtin: return true;
  case Kind::User: return user && user->assoc;
  case Kind::Tuple:
    for (const auto &e : elems)
      if (!e.assoc()) return false;
    return true;
  }
  return false;
}

bool BinaryOperator::comm() const {
  switch (kind) {
  case Kind::Builtin: return true;
  case Kind::User: return user && user->comm;
  case Kind::Tuple:
    for (const auto &e : elems)
      if (!e.comm()) return false;
    return true;
  }
  return false;
}

bool BinaryOperator::hasIdentity() const {
  switch (kind) {
  case Kind::Builtin: return true;
  case Kind::User: return false;
  case Kind::Tuple:
    for (const auto &e : elems)
      if (!e.hasIdentity()) return false;
    return true;
  }
  return false;
}

std::string BinaryOperator::str() const {
  switch (kind) {
  case Kind::Builtin: return builtinOpName(builtin);
  case Kind::User: return user ? user->sourceName : "?";
  case Kind::Tuple: {
    std::vector<std::string> parts;
    for (const auto &e : elems) parts.push_back(e.str());
    // A builtin lifted over a tuple prints as the builtin.
    bool same = !elems.empty();
    for (const auto &e : elems) same &= e.kind == Kind::Builtin && e.builtin == elems[0].builtin;
    if (same) return parts[0];
    return fmt::format("({})", fmt::join(parts, ", "));
  }
  }
  return "?";
}

bool BinaryOperator::sameAs(const BinaryOperator &o) const {
  if (kind != o.kind) return false;
  switch (kind) {
  case Kind::Builtin: return builtin == o.builtin;
  case Kind::User: return user == o.user;
  case Kind::Tuple:
    if (elems.size() != o.elems.size()) return false;
    for (size_t i = 0; i < elems.size(); ++i)
      if (!elems[i].sameAs(o.elems[i])) return false;
    return true;
  }
  return false;
}

std::string CombineOperator::str() const {
  switch (kind) {
  case Kind::Concat: return "++";
  case Kind::PointWise: return fmt::format("pw({})", op.str());
  case Kind::PrefixSum: return fmt::format("ps({})", op.str());
  }
  return "?";
}

size_t Program::numInputAccesses() const {
  size_t n = 0;
  for (const auto &b : inputs) n += b.accesses.size();
  return n;
}

size_t Program::numOutputAccesses() const {
  size_t n = 0;
  for (const auto &b : outputs) n += b.accesses.size();
  return n;
}

std::vector<SizePoly> Program::outputSizes() const {
  std::vector<SizePoly> out = sizes;
  for (size_t d = 0; d < ops.size() && d < out.size(); ++d)
    if (ops[d].kind == CombineOperator::Kind::PointWise) out[d] = SizePoly::constant(1);
  return out;
}

namespace {

std::string affineStr(const AffineIndex &ix, const std::vector<std::string> &vars) {
  std::string s;
  for (size_t d = 0; d < ix.coeffs.size(); ++d) {
    const SizePoly &c = ix.coeffs[d];
    if (c == SizePoly()) continue;
    std::string v = d < vars.size() ? vars[d] : fmt::format("i{}", d + 1);
    auto cv = c.constantValue();
    std::string term = cv && *cv == 1 ? v : cv && *cv == -1 ? "-" + v : fmt::format("{}*{}", c.isConstant() ? c.str() : "(" + c.str() + ")", v);
    if (s.empty()) s = term;
    else if (term[0] == '-') s += " - " + term.substr(1);
    else s += " + " + term;
  }
  if (ix.offset != SizePoly() || s.empty()) {
    std::string o = ix.offset.str();
    if (s.empty()) s = o;
    else if (o[0] == '-') s += " - " + o.substr(1);
    else s += " + " + (ix.offset.isConstant() ? o : "(" + o + ")");
  }
  return s;
}

std::string viewStr(const char *kw, const std::vector<Buffer> &bufs, const std::vector<std::string> &vars) {
  std::vector<std::string> types, parts;
  std::string params = fmt::format("({})", fmt::join(vars, ","));
  for (const auto &b : bufs) {
    types.push_back(b.elem.str());
    std::vector<std::string> accs;
    for (const auto &a : b.accesses) {
      std::vector<std::string> ix;
      for (const auto &d : a.dims) ix.push_back(affineStr(d, vars));
      accs.push_back(fmt::format("{} -> ({})", params, fmt::join(ix, ", ")));
    }
    parts.push_back(fmt::format("{}: {}", b.name, fmt::join(accs, ", ")));
  }
  return fmt::format("{}<{}>( {} )", kw, fmt::join(types, ", "), fmt::join(parts, ", "));
}

std::string exprStr(const SExpr &e, const ScalarFunction &f) {
  auto arg = [&](size_t i) { return exprStr(*e.args[i], f); };
  switch (e.kind) {
  case SExpr::Kind::Const:
    if (e.type.isFloat()) {
      std::string v = fmt::format("{}", e.value.fvalue);
      if (v.find_first_of(".en") == std::string::npos) v += ".0"; // keep it a float literal
      return v;
    }
    if (e.type.kind == Type::Kind::Bool) return e.value.bits ? "true" : "false";
    if (e.type.isSigned()) return std::to_string(int64_t(e.value.bits));
    if (e.type.isParam()) return fmt::format("{}", e.value.fvalue);
    return std::to_string(e.value.bits);
  case SExpr::Kind::Local: return f.localNames[e.slot].empty() ? fmt::format("_{}", e.slot) : f.localNames[e.slot];
  case SExpr::Kind::Unary: return fmt::format("{}{}", unOpSpelling(e.unOp), arg(0));
  case SExpr::Kind::Binary: return fmt::format("({} {} {})", arg(0), binOpSpelling(e.binOp), arg(1));
  case SExpr::Kind::Cond: return fmt::format("({} ? {} : {})", arg(0), arg(1), arg(2));
  case SExpr::Kind::Cast: return fmt::format("({} as {})", arg(0), e.type.str());
  case SExpr::Kind::Builtin:
  case SExpr::Kind::Call: {
    std::vector<std::string> a;
    for (size_t i = 0; i < e.args.size(); ++i) a.push_back(arg(i));
    return fmt::format("{}({})", e.kind == SExpr::Kind::Call ? e.callee->name : builtinName(e.builtin), fmt::join(a, ", "));
  }
  case SExpr::Kind::Tuple: {
    std::vector<std::string> a;
    for (size_t i = 0; i < e.args.size(); ++i) a.push_back(arg(i));
    return fmt::format("({})", fmt::join(a, ", "));
  }
  case SExpr::Kind::Record: {
    std::vector<std::string> a;
    for (size_t i = 0; i < e.args.size(); ++i) a.push_back(fmt::format("{}: {}", e.type.record->fields[i].name, arg(i)));
    return fmt::format("{} {{ {} }}", e.type.record->name, fmt::join(a, ", "));
  }
  case SExpr::Kind::Field:
    if (e.args[0]->type.kind == Type::Kind::Record) return fmt::format("{}.{}", arg(0), e.args[0]->type.record->fields[e.field].name);
    // `t.1.0` would read back as `t` `.` `1.0`: a tuple index on a tuple index keeps parentheses.
    if (e.args[0]->kind == SExpr::Kind::Field && e.args[0]->args[0]->type.kind != Type::Kind::Record)
      return fmt::format("({}).{}", arg(0), e.field);
    return fmt::format("{}.{}", arg(0), e.field);
  }
  return "?";
}

void stmtStr(const SStmt &s, const ScalarFunction &f, int indent, std::string &out) {
  std::string pad(indent * 2, ' ');
  switch (s.kind) {
  case SStmt::Kind::Assign:
    out += fmt::format("{}{} = {};\n", pad, f.localNames[s.slot].empty() ? fmt::format("_{}", s.slot) : f.localNames[s.slot],
                       s.value ? exprStr(*s.value, f) : "?");
    break;
  case SStmt::Kind::Return: out += fmt::format("{}return {};\n", pad, s.value ? exprStr(*s.value, f) : "?"); break;
  case SStmt::Kind::If:
    out += fmt::format("{}if ({}) {{\n", pad, s.value ? exprStr(*s.value, f) : "?");
    for (const auto &t : s.thenBody) stmtStr(*t, f, indent + 1, out);
    out += pad + "} else {\n";
    for (const auto &t : s.elseBody) stmtStr(*t, f, indent + 1, out);
    out += pad + "}\n";
    break;
  case SStmt::Kind::Block:
    out += pad + "{\n";
    for (const auto &t : s.thenBody) stmtStr(*t, f, indent + 1, out);
    out += pad + "}\n";
    break;
  }
}

} // namespace

std::string printFunction(const ScalarFunction &f) {
  std::vector<std::string> params;
  for (size_t i = 0; i < f.numParams; ++i) params.push_back(fmt::format("{}: {}", f.localNames[i], f.localTypes[i].str()));
  std::string out = fmt::format("fn {}({}) -> {} {{\n", f.name, fmt::join(params, ", "), f.result.str());
  for (const auto &s : f.body) stmtStr(*s, f, 1, out);
  return out + "}\n";
}

std::string quotedNames(const std::vector<Buffer> &buffers) {
  std::string out;
  for (const auto &b : buffers) out += (out.empty() ? "`" : ", `") + b.name + "`";
  return out.empty() ? "none" : out;
}

std::string printProgram(const Program &p) {
  std::vector<std::string> vars = p.dimNames;
  while (vars.size() < p.dims()) vars.push_back(fmt::format("i{}", vars.size() + 1));
  std::string out = fmt::format("// {}", p.instanceName.empty() ? p.name : p.instanceName);
  if (!p.dynamicSizes.empty()) out += fmt::format(" (run-time sizes: {})", fmt::join(p.dynamicSizes, ", "));
  out += "\n";
  auto shapes = [](const std::vector<Buffer> &bs) {
    std::vector<std::string> v;
    for (const auto &b : bs) {
      std::vector<std::string> dims;
      for (const auto &s : b.shape) dims.push_back(s.str());
      v.push_back(fmt::format("{}: {}[{}]", b.name, b.elem.str(), fmt::join(dims, ", ")));
    }
    return fmt::format("{}", fmt::join(v, ", "));
  };
  out += fmt::format("// inputs:  {}\n// outputs: {}\n", shapes(p.inputs), shapes(p.outputs));
  std::vector<std::string> sizes, ops;
  for (const auto &s : p.sizes) sizes.push_back(s.str());
  for (const auto &o : p.ops) ops.push_back(o.str());
  std::string fname = p.f ? (p.fSymbol.empty() ? p.f->name : p.fSymbol) : "?";
  out += viewStr("out_view", p.outputs, vars) + "\n";
  out += fmt::format("  o md_hom<{}>( {}, ({}) )\n", fmt::join(sizes, ", "), fname, fmt::join(ops, ", "));
  out += "  o " + viewStr("inp_view", p.inputs, vars) + ";\n";
  if (p.usesIndices) out += "// f receives the MDA indices (USE_MDA_INDICES)\n";
  for (const auto &f : p.functions) out += "\n" + printFunction(*f);
  return out;
}

} // namespace mdh::hl
