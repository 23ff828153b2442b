/** \file
 * The semantics helpers (docs/language.md §14) in GPU C: one overload per
 * primitive type, written once for OpenCL C and CUDA C++ (see ScalarC.h).
 *
 * Invariants: each overload computes exactly what the C++ template of
 * emitHelpers() computes for that type (wrap-around through unsigned
 * arithmetic at least 32 bits wide, x/0 == 0, shift counts modulo the
 * width, saturating float-to-int casts with NaN -> 0, fmin/fmax with
 * -0 < +0); only the casts and record constructors the program uses are
 * emitted.  MDH_FN and MDH_STATIC_ASSERT come from the dialect prelude.
 */
#include "codegen/CNames.h"
#include "codegen/ScalarC.h"

#include <fmt/format.h>
#include <functional>
#include <set>

namespace mdh::codegen {

Dialect gpuDialect() {
  Dialect d;
  d.fnQualifier = "MDH_FN";
  d.gpuC = true;
  return d;
}

namespace {

struct Prim {
  const char *name;  ///< C type
  const char *u;     ///< unsigned counterpart
  const char *w;     ///< wrap-around type (at least 32 bits, unsigned)
  int bits;
  bool isSigned;
  const char *lowest, *highest;
};

const Prim kInts[] = {
    {"int8_t", "uint8_t", "uint32_t", 8, true, "((int8_t)-128)", "((int8_t)127)"},
    {"int16_t", "uint16_t", "uint32_t", 16, true, "((int16_t)-32768)", "((int16_t)32767)"},
    {"int32_t", "uint32_t", "uint32_t", 32, true, "((int32_t)(-2147483647 - 1))", "((int32_t)2147483647)"},
    {"int64_t", "uint64_t", "uint64_t", 64, true, "((int64_t)(-9223372036854775807L - 1))", "((int64_t)9223372036854775807L)"},
    {"uint8_t", "uint8_t", "uint32_t", 8, false, "((uint8_t)0)", "((uint8_t)255)"},
    {"uint16_t", "uint16_t", "uint32_t", 16, false, "((uint16_t)0)", "((uint16_t)65535)"},
    {"uint32_t", "uint32_t", "uint32_t", 32, false, "((uint32_t)0)", "((uint32_t)4294967295U)"},
    {"uint64_t", "uint64_t", "uint64_t", 64, false, "((uint64_t)0)", "((uint64_t)18446744073709551615UL)"},
};
const char *kFloats[] = {"float", "double"};

bool isIntName(const std::string &n) {
  for (const auto &p : kInts)
    if (n == p.name) return true;
  return false;
}
const Prim *intPrim(const std::string &n) {
  for (const auto &p : kInts)
    if (n == p.name) return &p;
  return nullptr;
}

void collectCasts(const hl::SExpr &e, std::set<std::pair<std::string, std::string>> &out) {
  if (e.kind == hl::SExpr::Kind::Cast) out.insert({e.type.cName(), e.args[0]->type.cName()});
  for (const auto &a : e.args) collectCasts(*a, out);
}
void collectCasts(const hl::SStmt &s, std::set<std::pair<std::string, std::string>> &out) {
  if (s.value) collectCasts(*s.value, out);
  for (const auto &t : s.thenBody) collectCasts(*t, out);
  for (const auto &t : s.elseBody) collectCasts(*t, out);
}

} // namespace

std::string emitGpuHelpers(const hl::Program &p) {
  std::string o = "// ---- semantics helpers (docs/language.md §14), one overload per type ----\n";
  for (const auto &t : kInts) {
    o += fmt::format("#define MDH_LOWEST_{} {}\n#define MDH_HIGHEST_{} {}\n", t.name, t.lowest, t.name, t.highest);
  }
  o += "#define MDH_LOWEST_bool false\n#define MDH_HIGHEST_bool true\n";
  // CUDA: integer min/max of the combine operators as a compare and select in inline PTX,
  // not min/max instructions. ptxas (CUDA 12.8 and 13.0, -O1 and up, sm_90) builds
  // three-input VIMNMX3 from chains of `min.s32` of negated values and drops some of the
  // negations: an H200 computed wrong prefix minima (tests/gpu/regressions/
  // fold_first_element.mdh, negated_min_max.mdh). From these selects it still forms VIMNMX3
  // later, with every negation kept. OpenCL C is compiled by the device's own compiler.
  o += "#ifdef __CUDACC__\n";
  for (const char *t : {"s32", "u32", "s64", "u64"}) {
    const bool wide = t[1] == '6';
    const std::string C = t[0] == 's' ? (wide ? "long long" : "int") : (wide ? "unsigned long long" : "unsigned");
    const char *reg = wide ? "l" : "r", *bits = wide ? "b64" : "b32";
    for (bool isMin : {true, false})
      o += fmt::format("MDH_FN {0} mdh_ptx_{1}_{2}({0} a, {0} b) {{ {0} r; asm(\"{{ .reg .pred p; setp.lt.{2} p, {3}; "
                       "selp.{4} %0, %2, %1, p; }}\" : \"={5}\"(r) : \"{5}\"(a), \"{5}\"(b)); return r; }}\n",
                       C, isMin ? "min" : "max", t, isMin ? "%2, %1" : "%1, %2", bits, reg);
  }
  o += "#endif\n";
  // OpenCL's own min/max: PoCL 3 miscompiled the select of `a < b ? a : b` on 64-bit
  // values in a work-group of 12 work-items (a tile extent of 0 came out as 1, and the
  // work-item wrote past a buffer: heap corruption, the process aborted).
  o += "#ifdef __OPENCL_VERSION__\n";
  o += "MDH_FN int64_t mdh_imin(int64_t a, int64_t b) { return min(a, b); }\n";
  o += "MDH_FN int64_t mdh_imax(int64_t a, int64_t b) { return max(a, b); }\n";
  o += "#else\n";
  o += "MDH_FN int64_t mdh_imin(int64_t a, int64_t b) { return a < b ? a : b; }\n";
  o += "MDH_FN int64_t mdh_imax(int64_t a, int64_t b) { return a < b ? b : a; }\n";
  o += "#endif\n";
  for (const auto &t : kInts) {
    std::string T = t.name, U = t.u, W = t.w;
    auto wrap = [&](const char *fn, const char *op) {
      o += fmt::format("MDH_FN {0} {1}({0} a, {0} b) {{ return ({0})(({2})({3})a {4} ({2})({3})b); }}\n", T, fn, W, U, op);
    };
    wrap("mdh_add", "+");
    wrap("mdh_sub", "-");
    wrap("mdh_mul", "*");
    o += fmt::format("MDH_FN {0} mdh_neg({0} a) {{ return ({0})(({1})0 - ({1})({2})a); }}\n", T, W, U);
    o += fmt::format("MDH_FN {0} mdh_div({0} a, {0} b) {{ if (b == 0) return 0; {1}return ({0})(a / b); }}\n", T,
                     t.isSigned ? fmt::format("if (a == {} && b == ({})-1) return a; ", t.lowest, T) : "");
    o += fmt::format("MDH_FN {0} mdh_mod({0} a, {0} b) {{ if (b == 0) return 0; {1}return ({0})(a % b); }}\n", T,
                     t.isSigned ? fmt::format("if (b == ({})-1) return 0; ", T) : "");
    o += fmt::format("MDH_FN {0} mdh_shl({0} a, uint32_t s) {{ return ({0})(({1})({2})a << (s % {3}u)); }}\n", T, W, U, t.bits);
    o += fmt::format("MDH_FN {0} mdh_shr({0} a, uint32_t s) {{ return ({0})(a >> (s % {1}u)); }}\n", T, t.bits);
    if (t.isSigned) o += fmt::format("MDH_FN {0} mdh_abs({0} a) {{ return a < 0 ? mdh_neg(a) : a; }}\n", T);
    else o += fmt::format("MDH_FN {0} mdh_abs({0} a) {{ return a; }}\n", T);
    // Narrow types widen to 32 bits (sign or zero extension keeps the order).
    const std::string ptx = fmt::format("{}{}", t.isSigned ? "s" : "u", t.bits == 64 ? 64 : 32);
    const std::string wideC = t.bits == 64 ? (t.isSigned ? "long long" : "unsigned long long") : (t.isSigned ? "int" : "unsigned");
    o += "#ifdef __CUDACC__\n";
    for (const char *fn : {"min", "max"})
      o += fmt::format("MDH_FN {0} mdh_{1}({0} a, {0} b) {{ return ({0})mdh_ptx_{1}_{2}(({3})a, ({3})b); }}\n", T, fn, ptx, wideC);
    o += "#else\n";
    o += fmt::format("MDH_FN {0} mdh_min({0} a, {0} b) {{ return b < a ? b : a; }}\n", T);
    o += fmt::format("MDH_FN {0} mdh_max({0} a, {0} b) {{ return a < b ? b : a; }}\n", T);
    o += "#endif\n";
  }
  for (const char *F : kFloats) {
    o += fmt::format("MDH_FN {0} mdh_add({0} a, {0} b) {{ return a + b; }}\n", F);
    o += fmt::format("MDH_FN {0} mdh_sub({0} a, {0} b) {{ return a - b; }}\n", F);
    o += fmt::format("MDH_FN {0} mdh_mul({0} a, {0} b) {{ return a * b; }}\n", F);
    o += fmt::format("MDH_FN {0} mdh_div({0} a, {0} b) {{ return a / b; }}\n", F);
    o += fmt::format("MDH_FN {0} mdh_neg({0} a) {{ return -a; }}\n", F);
    o += fmt::format("MDH_FN {0} mdh_mod({0} a, {0} b) {{ return fmod(a, b); }}\n", F);
    o += fmt::format("MDH_FN {0} mdh_abs({0} a) {{ return fabs(a); }}\n", F);
    o += fmt::format("MDH_FN {0} mdh_min({0} a, {0} b) {{ if (a != a) return b; if (b != b) return a; "
                     "return (a < b || (a == b && signbit(a))) ? a : b; }}\n", F);
    o += fmt::format("MDH_FN {0} mdh_max({0} a, {0} b) {{ if (a != a) return b; if (b != b) return a; "
                     "return (a > b || (a == b && !signbit(a))) ? a : b; }}\n", F);
    for (const char *fn : {"sqrt", "exp", "log", "floor", "ceil", "sin", "cos", "tan", "tanh", "exp2", "log2", "log10", "round", "trunc"})
      o += fmt::format("MDH_FN {0} mdh_{1}({0} a) {{ return {1}(a); }}\n", F, fn);
    o += fmt::format("MDH_FN {0} mdh_pow({0} a, {0} b) {{ return pow(a, b); }}\n", F);
    o += fmt::format("MDH_FN {0} mdh_fma({0} a, {0} b, {0} c) {{ return fma(a, b, c); }}\n", F);
  }
  // Casts the program uses, as mdh_cast_<To>(From).
  std::set<std::pair<std::string, std::string>> casts;
  for (const auto &f : p.functions)
    for (const auto &s : f->body) collectCasts(*s, casts);
  for (const auto &[to, from] : casts) {
    bool fromFloat = from == "float" || from == "double";
    if (to == "bool") {
      o += fmt::format("MDH_FN bool mdh_cast_bool({} x) {{ return x != 0; }}\n", from);
    } else if (isIntName(to) && fromFloat) {
      const Prim *t = intPrim(to);
      o += fmt::format("MDH_FN {0} mdh_cast_{0}({1} x) {{ if (x != x) return 0; if (x <= ({1}){2}) return {2}; "
                       "if (x >= ({1}){3}) return {3}; return ({0})x; }}\n", to, from, t->lowest, t->highest);
    } else {
      o += fmt::format("MDH_FN {0} mdh_cast_{0}({1} x) {{ return ({0})x; }}\n", to, from);
    }
  }
  // Constructors of records and tuples (GPU C has no brace initialisation of temporaries).
  for (const auto &t : programAggregateTypes(p)) {
    std::vector<std::string> params, sets;
    if (t.kind == Type::Kind::Record) {
      for (size_t i = 0; i < t.record->fields.size(); ++i) {
        params.push_back(fmt::format("{} a{}", cType(t.record->fields[i].type), i));
        sets.push_back(fmt::format("r.{} = a{};", implFieldName(*t.record, i), i));
      }
    } else {
      for (size_t i = 0; i < t.elems.size(); ++i) {
        params.push_back(fmt::format("{} a{}", cType(t.elems[i]), i));
        sets.push_back(fmt::format("r._{} = a{};", i, i));
      }
    }
    o += fmt::format("MDH_FN {0} {1}({2}) {{ {0} r; {3} return r; }}\n", cType(t), makeFn(t), fmt::join(params, ", "),
                     fmt::join(sets, " "));
  }
  return o;
}

} // namespace mdh::codegen
