/** \file
 * Vector versions of straight-line float scalar functions (see VectorC.h).
 */
#include "codegen/VectorC.h"

#include <fmt/format.h>

#include <functional>
#include <set>

namespace mdh::codegen {
namespace {

bool exprVectorizable(const hl::SExpr &e, const Type &t) {
  if (!(e.type == t)) return false;
  switch (e.kind) {
  case hl::SExpr::Kind::Const:
  case hl::SExpr::Kind::Local: return true;
  case hl::SExpr::Kind::Unary: return e.unOp == hl::UnOp::Neg && exprVectorizable(*e.args[0], t);
  case hl::SExpr::Kind::Binary:
    switch (e.binOp) {
    case hl::BinOp::Add:
    case hl::BinOp::Sub:
    case hl::BinOp::Mul:
    case hl::BinOp::Div: return exprVectorizable(*e.args[0], t) && exprVectorizable(*e.args[1], t);
    default: return false;
    }
  case hl::SExpr::Kind::Call: {
    if (!e.callee || !isVectorizable(*e.callee)) return false;
    for (const auto &a : e.args)
      if (!exprVectorizable(*a, t)) return false;
    return true;
  }
  default: return false;
  }
}

bool stmtVectorizable(const hl::SStmt &s, const Type &t) {
  switch (s.kind) {
  case hl::SStmt::Kind::Assign:
  case hl::SStmt::Kind::Return: return s.value && exprVectorizable(*s.value, t);
  case hl::SStmt::Kind::Block:
    for (const auto &c : s.thenBody)
      if (!stmtVectorizable(*c, t)) return false;
    return true;
  case hl::SStmt::Kind::If: return false; // lanes would diverge
  }
  return false;
}

/// An exactly representable constant: hexadecimal float literal.
std::string hexLiteral(double v, const Type &t) {
  std::string s = fmt::format("{:a}", v);
  return t.kind == Type::Kind::F32 ? fmt::format("float({})", s) : s;
}

class VectorFnEmitter {
public:
  explicit VectorFnEmitter(const hl::ScalarFunction &f) : f(f) {}

  std::string emit() {
    std::string out = fmt::format("// {} (lane-wise)\ntemplate <class V> static inline V {}(", f.sourceName, vectorFnName(f));
    for (size_t i = 0; i < f.numParams; ++i) out += fmt::format("{}V l{}", i ? ", " : "", i);
    out += ") {\n";
    for (size_t i = f.numParams; i < f.localTypes.size(); ++i) out += fmt::format("  V l{}{{}};\n", i);
    for (const auto &s : f.body) stmt(*s, out);
    return out + "}\n";
  }

private:
  const hl::ScalarFunction &f;

  void stmt(const hl::SStmt &s, std::string &out) {
    switch (s.kind) {
    case hl::SStmt::Kind::Assign: out += fmt::format("  l{} = {};\n", s.slot, expr(*s.value)); break;
    case hl::SStmt::Kind::Return: out += fmt::format("  return {};\n", expr(*s.value)); break;
    case hl::SStmt::Kind::Block:
      for (const auto &c : s.thenBody) stmt(*c, out);
      break;
    case hl::SStmt::Kind::If: break; // excluded by isVectorizable
    }
  }

  std::string expr(const hl::SExpr &e) {
    auto a = [&](size_t i) { return expr(*e.args[i]); };
    switch (e.kind) {
    case hl::SExpr::Kind::Const:
      return fmt::format("mdh_vsplat<V>({})", hexLiteral(e.value.fvalue, e.type));
    case hl::SExpr::Kind::Local: return fmt::format("l{}", e.slot);
    case hl::SExpr::Kind::Unary: return fmt::format("(-{})", a(0));
    case hl::SExpr::Kind::Binary: {
      const char *op = e.binOp == hl::BinOp::Add ? "+" : e.binOp == hl::BinOp::Sub ? "-" : e.binOp == hl::BinOp::Mul ? "*" : "/";
      return fmt::format("({} {} {})", a(0), op, a(1));
    }
    case hl::SExpr::Kind::Call: {
      std::string args;
      for (size_t i = 0; i < e.args.size(); ++i) args += (i ? ", " : "") + a(i);
      return fmt::format("{}<V>({})", vectorFnName(*e.callee), args);
    }
    default: return "V{}"; // excluded by isVectorizable
    }
  }
};

} // namespace

bool isVectorizable(const hl::ScalarFunction &f) {
  if (!f.result.isFloat()) return false;
  for (const auto &t : f.localTypes)
    if (!(t == f.result)) return false;
  for (const auto &s : f.body)
    if (!stmtVectorizable(*s, f.result)) return false;
  return true;
}

std::string vectorFnName(const hl::ScalarFunction &f) { return "mdh_fnv_" + f.name; }

std::string emitVectorFunctions(const hl::Program &p) {
  std::string out = R"(// Lane-wise helpers on GCC vector types (register tiles).
// s - 0 is s for every float (also -0 and NaN), and compiles to one broadcast.
template <class V, class S> static inline V mdh_vsplat(S s) { return s - V{}; }
template <class V, class S> static inline V mdh_vload(const S *p) {
  V v;
  std::memcpy(&v, p, sizeof(V));
  return v;
}
)";
  std::vector<const hl::ScalarFunction *> order;
  std::set<const hl::ScalarFunction *> done;
  std::function<void(const hl::ScalarFunction &)> visit;
  std::function<void(const hl::SExpr &)> visitExpr = [&](const hl::SExpr &e) {
    if (e.kind == hl::SExpr::Kind::Call && e.callee) visit(*e.callee);
    for (const auto &a : e.args) visitExpr(*a);
  };
  std::function<void(const hl::SStmt &)> visitStmt = [&](const hl::SStmt &s) {
    if (s.value) visitExpr(*s.value);
    for (const auto &t : s.thenBody) visitStmt(*t);
  };
  visit = [&](const hl::ScalarFunction &f) {
    if (done.count(&f) || !isVectorizable(f)) return;
    done.insert(&f);
    for (const auto &s : f.body) visitStmt(*s);
    order.push_back(&f);
  };
  for (const auto &f : p.functions) visit(*f);
  for (const auto *f : order) out += VectorFnEmitter(*f).emit();
  return out;
}

} // namespace mdh::codegen
