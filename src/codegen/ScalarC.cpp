/** \file
 * Emission of types, helpers and scalar functions as C++.
 */
#include "codegen/ScalarC.h"

#include "codegen/CNames.h"

#include <cmath>
#include <fmt/format.h>
#include <functional>
#include <set>

namespace mdh::codegen {

void collectAggregateTypes(const Type &t, std::vector<Type> &out) {
  for (const auto &e : t.elems) collectAggregateTypes(e, out);
  if (t.kind == Type::Kind::Record)
    for (const auto &f : t.record->fields) collectAggregateTypes(f.type, out);
  if (t.kind != Type::Kind::Tuple && t.kind != Type::Kind::Record) return;
  for (const auto &x : out)
    if (x == t) return;
  out.push_back(t);
}

namespace {

void collectExprTypes(const hl::SExpr &e, std::vector<Type> &out) {
  collectAggregateTypes(e.type, out);
  for (const auto &a : e.args) collectExprTypes(*a, out);
}

void collectStmtTypes(const hl::SStmt &s, std::vector<Type> &out) {
  if (s.value) collectExprTypes(*s.value, out);
  for (const auto &t : s.thenBody) collectStmtTypes(*t, out);
  for (const auto &t : s.elseBody) collectStmtTypes(*t, out);
}

std::string floatLiteral(double v, const Type &t) {
  if (std::isnan(v)) return t.kind == Type::Kind::F32 ? "(0.0f/0.0f)" : "(0.0/0.0)";
  if (std::isinf(v)) return std::string(v < 0 ? "-" : "") + (t.kind == Type::Kind::F32 ? "(1.0f/0.0f)" : "(1.0/0.0)");
  std::string s = fmt::format("{:.17g}", v);
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return t.kind == Type::Kind::F32 ? s + "f" : s;
}

std::string constant(const hl::SExpr &e, const Dialect &d) {
  const Type &t = e.type;
  if (t.isFloat()) return floatLiteral(e.value.fvalue, t);
  if (t.kind == Type::Kind::Bool) return e.value.bits ? "true" : "false";
  // GPU C: `long` is 64 bits in OpenCL C and in CUDA on LP64 hosts; OpenCL C has no `long long`.
  const char *sfx = d.gpuC ? "L" : "LL";
  if (t.isSigned()) {
    int64_t v = int64_t(e.value.bits);
    if (v == INT64_MIN) return "INT64_MIN";
    return fmt::format("({})({}{})", t.cName(), v, sfx);
  }
  return fmt::format("({})({}U{})", t.cName(), e.value.bits, sfx);
}

class FnEmitter {
public:
  FnEmitter(const hl::ScalarFunction &f, const Dialect &d) : f(f), d(d) {}

  std::string body() {
    std::string out;
    for (size_t i = f.numParams; i < f.localTypes.size(); ++i) {
      const Type &t = f.localTypes[i];
      if (!d.gpuC) out += fmt::format("  {} l{}{{}};\n", cType(t), i);
      else if (t.kind == Type::Kind::Record || t.kind == Type::Kind::Tuple) out += fmt::format("  {} l{};\n", cType(t), i);
      else out += fmt::format("  {} l{} = 0;\n", cType(t), i);
    }
    for (const auto &s : f.body) stmt(*s, 1, out);
    return out;
  }

private:
  const hl::ScalarFunction &f;
  const Dialect &d;

  void stmt(const hl::SStmt &s, int level, std::string &out) {
    std::string pad(size_t(level * 2), ' ');
    switch (s.kind) {
    case hl::SStmt::Kind::Assign: out += fmt::format("{}l{} = {};\n", pad, s.slot, expr(*s.value)); break;
    case hl::SStmt::Kind::Return: out += fmt::format("{}return {};\n", pad, expr(*s.value)); break;
    case hl::SStmt::Kind::If:
      out += fmt::format("{}if ({}) {{\n", pad, expr(*s.value));
      for (const auto &t : s.thenBody) stmt(*t, level + 1, out);
      out += pad + "} else {\n";
      for (const auto &t : s.elseBody) stmt(*t, level + 1, out);
      out += pad + "}\n";
      break;
    case hl::SStmt::Kind::Block:
      out += pad + "{\n";
      for (const auto &t : s.thenBody) stmt(*t, level + 1, out);
      out += pad + "}\n";
      break;
    }
  }

  std::string expr(const hl::SExpr &e) {
    auto a = [&](size_t i) { return expr(*e.args[i]); };
    switch (e.kind) {
    case hl::SExpr::Kind::Const: return constant(e, d);
    case hl::SExpr::Kind::Local: return fmt::format("l{}", e.slot);
    case hl::SExpr::Kind::Unary:
      switch (e.unOp) {
      case hl::UnOp::Neg: return fmt::format("mdh_neg({})", a(0));
      case hl::UnOp::Not: return fmt::format("(!{})", a(0));
      case hl::UnOp::BitNot: return fmt::format("({})(~{})", e.type.cName(), a(0));
      }
      break;
    case hl::SExpr::Kind::Binary: {
      static const char *fns[] = {"mdh_add", "mdh_sub", "mdh_mul", "mdh_div", "mdh_mod", "mdh_shl", "mdh_shr"};
      int k = int(e.binOp);
      // GPU C: shift counts as unsigned int (what the C++ template does first).
      if (d.gpuC && (e.binOp == hl::BinOp::Shl || e.binOp == hl::BinOp::Shr))
        return fmt::format("{}({}, (uint32_t)({}))", fns[k], a(0), a(1));
      if (k <= int(hl::BinOp::Shr)) return fmt::format("{}({}, {})", fns[k], a(0), a(1));
      if (e.binOp == hl::BinOp::BitAnd || e.binOp == hl::BinOp::BitOr || e.binOp == hl::BinOp::BitXor)
        return fmt::format("({})({} {} {})", e.type.cName(), a(0), hl::binOpSpelling(e.binOp), a(1));
      return fmt::format("({} {} {})", a(0), hl::binOpSpelling(e.binOp), a(1));
    }
    case hl::SExpr::Kind::Cond:
      // GPU C: C promotes small integer operands of ?: to int; keep the type for overloads.
      if (d.gpuC && e.type.isPrimitive()) return fmt::format("(({})({} ? {} : {}))", e.type.cName(), a(0), a(1), a(2));
      return fmt::format("({} ? {} : {})", a(0), a(1), a(2));
    case hl::SExpr::Kind::Cast:
      if (d.gpuC) return fmt::format("mdh_cast_{}({})", e.type.cName(), a(0));
      return fmt::format("mdh_cast<{}>({})", e.type.cName(), a(0));
    case hl::SExpr::Kind::Builtin: {
      std::vector<std::string> args;
      for (size_t i = 0; i < e.args.size(); ++i) args.push_back(a(i));
      return fmt::format("mdh_{}({})", hl::builtinName(e.builtin), fmt::join(args, ", "));
    }
    case hl::SExpr::Kind::Call: {
      std::vector<std::string> args;
      for (size_t i = 0; i < e.args.size(); ++i) args.push_back(a(i));
      return fmt::format("{}({})", fnName(*e.callee), fmt::join(args, ", "));
    }
    case hl::SExpr::Kind::Tuple:
    case hl::SExpr::Kind::Record: {
      std::vector<std::string> args;
      for (size_t i = 0; i < e.args.size(); ++i) args.push_back(a(i));
      if (d.gpuC) return fmt::format("{}({})", makeFn(e.type), fmt::join(args, ", "));
      return fmt::format("{}{{{}}}", cType(e.type), fmt::join(args, ", "));
    }
    case hl::SExpr::Kind::Field: {
      const Type &bt = e.args[0]->type;
      if (bt.kind == Type::Kind::Record) return fmt::format("{}.{}", a(0), implFieldName(*bt.record, size_t(e.field)));
      return fmt::format("{}._{}", a(0), e.field);
    }
    }
    return "0";
  }
};

} // namespace

std::string fnName(const hl::ScalarFunction &f) { return "mdh_fn_" + functionCode(f); }

std::vector<Type> programAggregateTypes(const hl::Program &p) {
  std::vector<Type> types;
  for (const auto &b : p.inputs) collectAggregateTypes(b.elem, types);
  for (const auto &b : p.outputs) collectAggregateTypes(b.elem, types);
  for (const auto &f : p.functions) {
    for (const auto &t : f->localTypes) collectAggregateTypes(t, types);
    collectAggregateTypes(f->result, types);
    for (const auto &s : f->body) collectStmtTypes(*s, types);
  }
  return types;
}

std::string makeFn(const Type &t) { return "mdh_make_" + typeCode(t); }

std::string emitTypeDecls(const hl::Program &p, const Dialect &d) {
  std::vector<Type> types = programAggregateTypes(p);
  std::string out;
  for (const auto &t : types) {
    // Records keep their user field names after the position (`_0_x`); tuples are positional.
    std::vector<std::string> fields;
    if (t.kind == Type::Kind::Record)
      for (size_t i = 0; i < t.record->fields.size(); ++i)
        fields.push_back(fmt::format("  {} {};\n", cType(t.record->fields[i].type), implFieldName(*t.record, i)));
    else
      for (size_t i = 0; i < t.elems.size(); ++i) fields.push_back(fmt::format("  {} _{};\n", cType(t.elems[i]), i));
    if (d.gpuC) {
      // typedef'd structs: valid C (OpenCL C) and C++ (CUDA); same layout as the host's.
      out += fmt::format("typedef struct {0} {{\n{1}}} {0};\nMDH_STATIC_ASSERT(sizeof({0}) == {2}, \"record layout\");\n",
                         cType(t), fmt::join(fields, ""), t.size());
      continue;
    }
    // Guarded, so that several kernels' code can share one source file; a
    // record's guard names its fields too, so that a record of the same name
    // and another layout is a redefinition, not silently the first one.
    std::string guard = "MDH_TYPE_" + cType(t);
    if (t.kind == Type::Kind::Record)
      for (const auto &f : t.record->fields) guard += "_" + typeCode(f.type) + "_" + std::to_string(f.name.size()) + f.name;
    out += fmt::format("#ifndef {0}\n#define {0}\nstruct {1} {{\n{2}}};\n", guard, cType(t), fmt::join(fields, ""));
    if (t.kind == Type::Kind::Record) out += fmt::format("static_assert(sizeof({}) == {}, \"record layout\");\n", cType(t), t.record->size);
    out += "#endif\n";
  }
  return out;
}

std::string emitHelpers(const Dialect &d) {
  std::string q = d.fnQualifier;
  return fmt::format(R"(// ---- semantics helpers (docs/language.md §14) ----
template <class T> struct mdh_is_int {{ static constexpr bool value = std::is_integral<T>::value && !std::is_same<T, bool>::value; }};
template <class T> {0} T mdh_add(T a, T b) {{ if constexpr (mdh_is_int<T>::value) {{ using U = typename std::make_unsigned<T>::type; return T(U(a) + U(b)); }} else return a + b; }}
template <class T> {0} T mdh_sub(T a, T b) {{ if constexpr (mdh_is_int<T>::value) {{ using U = typename std::make_unsigned<T>::type; return T(U(a) - U(b)); }} else return a - b; }}
template <class T> {0} T mdh_mul(T a, T b) {{ if constexpr (mdh_is_int<T>::value) {{ using U = typename std::make_unsigned<T>::type; return T(U(a) * U(b)); }} else return a * b; }}
template <class T> {0} T mdh_neg(T a) {{ if constexpr (mdh_is_int<T>::value) {{ using U = typename std::make_unsigned<T>::type; return T(U(0) - U(a)); }} else return -a; }}
template <class T> {0} T mdh_div(T a, T b) {{
  if constexpr (mdh_is_int<T>::value) {{
    if (b == 0) return T(0);
    if constexpr (std::is_signed<T>::value) {{ if (a == std::numeric_limits<T>::min() && b == T(-1)) return a; }}
    return T(a / b);
  }} else return a / b;
}}
template <class T> {0} T mdh_mod(T a, T b) {{
  if constexpr (mdh_is_int<T>::value) {{
    if (b == 0) return T(0);
    if constexpr (std::is_signed<T>::value) {{ if (b == T(-1)) return T(0); }}
    return T(a % b);
  }} else return std::fmod(a, b);
}}
template <class T, class S> {0} T mdh_shl(T a, S s) {{ using U = typename std::make_unsigned<T>::type; return T(U(a) << (unsigned(s) % (8 * sizeof(T)))); }}
template <class T, class S> {0} T mdh_shr(T a, S s) {{ return T(a >> (unsigned(s) % (8 * sizeof(T)))); }}
template <class To, class From> {0} To mdh_cast(From x) {{
  if constexpr (mdh_is_int<To>::value && std::is_floating_point<From>::value) {{
    if (x != x) return To(0);
    if (x <= From(std::numeric_limits<To>::min())) return std::numeric_limits<To>::min();
    if (x >= From(std::numeric_limits<To>::max())) return std::numeric_limits<To>::max();
    return To(x);
  }} else if constexpr (std::is_same<To, bool>::value) {{ return x != From(0); }}
  else return To(x);
}}
template <class T> {0} T mdh_abs(T a) {{ if constexpr (mdh_is_int<T>::value) return a < 0 ? mdh_neg(a) : a; else return std::fabs(a); }}
// Floats: fmin/fmax (a NaN operand is ignored) with -0 < +0, so that both are commutative.
// The sign bit is read from the bits: std::signbit there crashed GCC 12 (an internal
// compiler error in tree-ssa-sccvn) on `omp simd` loops taking the max of squares, and
// ties combined bitwise instead made the max of squares 1.6x slower.
template <class T> {0} bool mdh_sign_bit(T a) {{
  static_assert(sizeof(T) == 4 || sizeof(T) == 8, "f32 or f64");
  typedef typename std::conditional<sizeof(T) == 8, uint64_t, uint32_t>::type U;
  U x;
  std::memcpy(&x, &a, sizeof(T));
  return (x >> (8 * sizeof(T) - 1)) != 0;
}}
template <class T> {0} T mdh_min(T a, T b) {{
  if constexpr (std::is_floating_point<T>::value) {{
    if (a != a) return b;
    if (b != b) return a;
    return (a < b || (a == b && mdh_sign_bit(a))) ? a : b;
  }} else return b < a ? b : a;
}}
template <class T> {0} T mdh_max(T a, T b) {{
  if constexpr (std::is_floating_point<T>::value) {{
    if (a != a) return b;
    if (b != b) return a;
    return (a > b || (a == b && !mdh_sign_bit(a))) ? a : b;
  }} else return a < b ? b : a;
}}
template <class T> {0} T mdh_sqrt(T a) {{ return std::sqrt(a); }}
template <class T> {0} T mdh_exp(T a) {{ return std::exp(a); }}
template <class T> {0} T mdh_log(T a) {{ return std::log(a); }}
template <class T> {0} T mdh_pow(T a, T b) {{ return std::pow(a, b); }}
template <class T> {0} T mdh_floor(T a) {{ return std::floor(a); }}
template <class T> {0} T mdh_ceil(T a) {{ return std::ceil(a); }}
template <class T> {0} T mdh_sin(T a) {{ return std::sin(a); }}
template <class T> {0} T mdh_cos(T a) {{ return std::cos(a); }}
template <class T> {0} T mdh_tan(T a) {{ return std::tan(a); }}
template <class T> {0} T mdh_tanh(T a) {{ return std::tanh(a); }}
template <class T> {0} T mdh_exp2(T a) {{ return std::exp2(a); }}
template <class T> {0} T mdh_log2(T a) {{ return std::log2(a); }}
template <class T> {0} T mdh_log10(T a) {{ return std::log10(a); }}
template <class T> {0} T mdh_round(T a) {{ return std::round(a); }}
template <class T> {0} T mdh_trunc(T a) {{ return std::trunc(a); }}
template <class T> {0} T mdh_fma(T a, T b, T c) {{ return std::fma(a, b, c); }}
)", q);
}

std::string emitFunctions(const hl::Program &p, const Dialect &d) {
  // Callees first: order by a DFS over calls.
  std::vector<const hl::ScalarFunction *> order;
  std::set<const hl::ScalarFunction *> done;
  std::function<void(const hl::SExpr &)> visitExpr;
  std::function<void(const hl::ScalarFunction &)> visit = [&](const hl::ScalarFunction &f) {
    if (done.count(&f)) return;
    done.insert(&f);
    std::function<void(const hl::SStmt &)> visitStmt = [&](const hl::SStmt &s) {
      if (s.value) visitExpr(*s.value);
      for (const auto &t : s.thenBody) visitStmt(*t);
      for (const auto &t : s.elseBody) visitStmt(*t);
    };
    for (const auto &s : f.body) visitStmt(*s);
    order.push_back(&f);
  };
  visitExpr = [&](const hl::SExpr &e) {
    if (e.kind == hl::SExpr::Kind::Call && e.callee) visit(*e.callee);
    for (const auto &a : e.args) visitExpr(*a);
  };
  for (const auto &f : p.functions) visit(*f);
  std::string out;
  for (const auto *f : order) {
    std::vector<std::string> params;
    for (size_t i = 0; i < f->numParams; ++i) params.push_back(fmt::format("{} l{}", cType(f->localTypes[i]), i));
    out += fmt::format("// {}\n{} {} {}({}) {{\n{}}}\n", f->sourceName, d.fnQualifier, cType(f->result), fnName(*f),
                       fmt::join(params, ", "), FnEmitter(*f, d).body());
  }
  return out;
}

std::string applyBinary(const hl::BinaryOperator &op, const std::string &a, const std::string &b, const Dialect &d) {
  switch (op.kind) {
  case hl::BinaryOperator::Kind::Builtin: {
    const Type &t = op.type;
    switch (op.builtin) {
    case hl::BuiltinOp::Add: return fmt::format("mdh_add({}, {})", a, b);
    case hl::BuiltinOp::Mul: return fmt::format("mdh_mul({}, {})", a, b);
    case hl::BuiltinOp::Max: return fmt::format("mdh_max({}, {})", a, b);
    case hl::BuiltinOp::Min: return fmt::format("mdh_min({}, {})", a, b);
    case hl::BuiltinOp::And: return t.kind == Type::Kind::Bool ? fmt::format("({} && {})", a, b) : fmt::format("({})({} & {})", t.cName(), a, b);
    case hl::BuiltinOp::Or: return t.kind == Type::Kind::Bool ? fmt::format("({} || {})", a, b) : fmt::format("({})({} | {})", t.cName(), a, b);
    case hl::BuiltinOp::Xor: return t.kind == Type::Kind::Bool ? fmt::format("({} != {})", a, b) : fmt::format("({})({} ^ {})", t.cName(), a, b);
    }
    break;
  }
  case hl::BinaryOperator::Kind::User: return fmt::format("{}({}, {})", fnName(*op.user), a, b);
  case hl::BinaryOperator::Kind::Tuple: {
    std::vector<std::string> parts;
    for (size_t i = 0; i < op.elems.size(); ++i)
      parts.push_back(applyBinary(op.elems[i], fmt::format("{}._{}", a, i), fmt::format("{}._{}", b, i), d));
    if (d.gpuC) return fmt::format("{}({})", makeFn(op.type), fmt::join(parts, ", "));
    return fmt::format("{}{{{}}}", cType(op.type), fmt::join(parts, ", "));
  }
  }
  return a;
}

std::string identityOf(const hl::BinaryOperator &op, const Dialect &d) {
  switch (op.kind) {
  case hl::BinaryOperator::Kind::User: return "";
  case hl::BinaryOperator::Kind::Tuple: {
    std::vector<std::string> parts;
    for (const auto &e : op.elems) {
      std::string id = identityOf(e, d);
      if (id.empty()) return "";
      parts.push_back(id);
    }
    if (d.gpuC) return fmt::format("{}({})", makeFn(op.type), fmt::join(parts, ", "));
    return fmt::format("{}{{{}}}", cType(op.type), fmt::join(parts, ", "));
  }
  case hl::BinaryOperator::Kind::Builtin: break;
  }
  const Type &t = op.type;
  std::string c = t.cName();
  if (d.gpuC) {
    switch (op.builtin) {
    case hl::BuiltinOp::Add: return t.isFloat() ? (t.kind == Type::Kind::F32 ? "-0.0f" : "-0.0") : fmt::format("(({})0)", c);
    case hl::BuiltinOp::Mul: return fmt::format("(({})1)", c);
    case hl::BuiltinOp::Max: return t.isFloat() ? "" : fmt::format("MDH_LOWEST_{}", c);
    case hl::BuiltinOp::Min: return t.isFloat() ? "" : fmt::format("MDH_HIGHEST_{}", c);
    case hl::BuiltinOp::And: return t.kind == Type::Kind::Bool ? "true" : fmt::format("(({0})~(({0})0))", c);
    case hl::BuiltinOp::Or:
    case hl::BuiltinOp::Xor: return t.kind == Type::Kind::Bool ? "false" : fmt::format("(({})0)", c);
    }
    return "";
  }
  switch (op.builtin) {
  // -0.0 is the exact identity of IEEE addition (+0.0 would turn -0.0 into +0.0).
  case hl::BuiltinOp::Add: return t.isFloat() ? (t.kind == Type::Kind::F32 ? "-0.0f" : "-0.0") : fmt::format("{}(0)", c);
  case hl::BuiltinOp::Mul: return fmt::format("{}(1)", c);
  // mdh_max/mdh_min ignore a NaN operand, so NaN is their exact identity (±inf is not: it
  // would replace an all-NaN result); an all-NaN reduction still gives NaN.
  case hl::BuiltinOp::Max:
    return fmt::format(t.isFloat() ? "std::numeric_limits<{}>::quiet_NaN()" : "std::numeric_limits<{}>::lowest()", c);
  case hl::BuiltinOp::Min:
    return fmt::format(t.isFloat() ? "std::numeric_limits<{}>::quiet_NaN()" : "std::numeric_limits<{}>::max()", c);
  case hl::BuiltinOp::And: return t.kind == Type::Kind::Bool ? "true" : fmt::format("({})(~{}(0))", c, c);
  case hl::BuiltinOp::Or: return t.kind == Type::Kind::Bool ? "false" : fmt::format("{}(0)", c);
  case hl::BuiltinOp::Xor: return t.kind == Type::Kind::Bool ? "false" : fmt::format("{}(0)", c);
  }
  return "";
}

} // namespace mdh::codegen
