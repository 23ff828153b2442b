/** \file
 * Vector versions of straight-line scalar functions (see VectorC.h).
 *
 * A value of type T in N lanes is an `mdh_vt<T, N>` (GCC vector); a bool is
 * a mask `mdh_vt<int32_t, N>` with -1 for true and 0 for false.  Integer
 * + - * and negation go through the unsigned vector of the same size, so
 * they wrap exactly like the scalar helpers (no signed-overflow UB).
 */
#include "codegen/VectorC.h"

#include "codegen/ScalarC.h"
#include "hl/ResultRange.h"

#include <fmt/format.h>

#include <functional>
#include <map>
#include <set>

namespace mdh::codegen {
namespace {

bool laneType(const Type &t) { return t.isNumeric() || t.kind == Type::Kind::Bool; }

bool castVectorizable(const Type &from, const Type &to) {
  if (to.kind == Type::Kind::Bool) return from.isNumeric() || from.kind == Type::Kind::Bool;
  if (from.kind == Type::Kind::Bool) return to.isNumeric();
  // float -> integer saturates and maps NaN to 0 in the scalar helper: not lane-wise here.
  return from.isNumeric() && to.isNumeric() && !(from.isFloat() && to.isInteger());
}

/// Whether functions can be written lane-wise; each callee is judged once
/// (a function that calls a helper twice, which calls its helper twice, ...
/// made the uncached walk exponential: 8.6 s at 26 levels).
class VectorizableCheck {
public:
  bool function(const hl::ScalarFunction &f) {
    if (auto it = memo_.find(&f); it != memo_.end()) return it->second;
    bool ok = f.result.isNumeric();
    for (size_t i = 0; ok && i < f.localTypes.size(); ++i) {
      const Type &t = f.localTypes[i];
      // Parameters come from buffers: numeric lanes only (a bool buffer is not a mask).
      if (i < f.numParams ? !t.isNumeric() : !laneType(t)) ok = false;
    }
    for (size_t i = 0; ok && i < f.body.size(); ++i) ok = stmt(*f.body[i]);
    memo_[&f] = ok;
    return ok;
  }

private:
  std::map<const hl::ScalarFunction *, bool> memo_;

  bool expr(const hl::SExpr &e) {
  if (!laneType(e.type)) return false;
  auto args = [&] {
    for (const auto &a : e.args)
      if (!expr(*a)) return false;
    return true;
  };
  switch (e.kind) {
  case hl::SExpr::Kind::Const:
  case hl::SExpr::Kind::Local: return true;
  case hl::SExpr::Kind::Unary:
    switch (e.unOp) {
    case hl::UnOp::Neg: return e.type.isNumeric() && args();
    case hl::UnOp::Not: return e.type.kind == Type::Kind::Bool && args();
    case hl::UnOp::BitNot: return e.type.isInteger() && args();
    }
    return false;
  case hl::SExpr::Kind::Binary:
    if (hl::isComparison(e.binOp)) return args();
    switch (e.binOp) {
    case hl::BinOp::Add:
    case hl::BinOp::Sub:
    case hl::BinOp::Mul: return e.type.isNumeric() && args();
    case hl::BinOp::Div: return e.type.isFloat() && args(); // integer division guards zero divisors
    case hl::BinOp::BitAnd:
    case hl::BinOp::BitOr:
    case hl::BinOp::BitXor: return e.type.isInteger() && args();
    case hl::BinOp::And:
    case hl::BinOp::Or: return e.type.kind == Type::Kind::Bool && args();
    default: return false;
    }
  case hl::SExpr::Kind::Cond: return e.args[0]->type.kind == Type::Kind::Bool && args();
  case hl::SExpr::Kind::Cast: return castVectorizable(e.args[0]->type, e.type) && args();
  case hl::SExpr::Kind::Call: return e.callee && function(*e.callee) && args();
  default: return false;
  }
}

  bool stmt(const hl::SStmt &s) {
  switch (s.kind) {
  case hl::SStmt::Kind::Assign:
  case hl::SStmt::Kind::Return: return s.value && expr(*s.value);
  case hl::SStmt::Kind::Block:
    for (const auto &c : s.thenBody)
      if (!stmt(*c)) return false;
    return true;
  case hl::SStmt::Kind::If: return false; // lanes would diverge
  }
  return false;
}
};

/// An exactly representable constant (floats: hexadecimal literals).
std::string literal(const hl::SExpr &e) {
  const Type &t = e.type;
  if (t.kind == Type::Kind::Bool) return e.value.bits ? "int32_t(-1)" : "int32_t(0)";
  if (t.isFloat()) {
    std::string s = fmt::format("{:a}", e.value.fvalue);
    return t.kind == Type::Kind::F32 ? fmt::format("float({})", s) : s;
  }
  if (t.isSigned()) {
    int64_t v = int64_t(e.value.bits);
    return v == INT64_MIN ? "INT64_MIN" : fmt::format("{}({}LL)", t.cName(), v);
  }
  return fmt::format("{}({}ULL)", t.cName(), e.value.bits);
}

/// Emits `mdh_fnv_<name><N>`, or with `narrow` the narrow variant
/// `mdh_fnn_<name><W, N>(acc, ...)`, which returns acc + f(...) lane-wise:
/// every result-typed expression that `narrow` bounds is computed in lanes
/// of the signed integer W (the caller picks one that holds the bounds), and
/// bools are masks of W's size instead of 32 bits, so that a compare of
/// bytes feeds a byte counter without widening.
class VectorFnEmitter {
public:
  VectorFnEmitter(const hl::ScalarFunction &f, const hl::ResultRanges *narrow = nullptr) : f(f), narrow(narrow) {}

  std::string emit() {
    std::string out = narrow ? fmt::format("// {} (lane-wise, counting in lanes of W)\ntemplate <class W, int N> static inline mdh_vt<W, N> {}(",
                                           f.sourceName, narrowVectorFnName(f))
                             : fmt::format("// {} (lane-wise)\ntemplate <int N> static inline {} {}(", f.sourceName, vt(f.result), vectorFnName(f));
    if (narrow) out += "mdh_vt<W, N> acc";
    for (size_t i = 0; i < f.numParams; ++i) out += fmt::format("{}{} l{}", i || narrow ? ", " : "", vt(f.localTypes[i]), i);
    out += ") {\n";
    // A parameter f never reads (its value only matters to the scalar version) is no warning.
    for (size_t i = 0; i < f.numParams; ++i) out += fmt::format("  (void)l{};\n", i);
    if (narrow) out += "  typedef typename std::make_unsigned<W>::type UW;\n";
    for (size_t i = f.numParams; i < f.localTypes.size(); ++i)
      out += fmt::format("  {} l{}{{}};\n", narrowLocal(int(i)) ? "mdh_vt<W, N>" : vt(f.localTypes[i]), i);
    for (const auto &s : f.body) stmt(*s, out);
    return out + "}\n";
  }

private:
  const hl::ScalarFunction &f;
  const hl::ResultRanges *narrow;

  bool narrowLocal(int slot) const { return narrow && size_t(slot) >= f.numParams && narrow->boundedLocal(slot); }

  /// The lane vector of a type (bool: a mask of 32 bits, or of W's size).
  std::string vt(const Type &t) const {
    if (t.kind == Type::Kind::Bool) return narrow ? "mdh_vt<W, N>" : "mdh_vt<int32_t, N>";
    return fmt::format("mdh_vt<{}, N>", t.cName());
  }
  /// The signed integer vector of t's element size: a condition for t's lanes.
  std::string maskOf(const Type &t) const {
    return t.kind == Type::Kind::Bool ? vt(t) : fmt::format("mdh_vt<int{}_t, N>", t.size() * 8);
  }
  static std::string unsignedOf(const Type &t) { return fmt::format("mdh_vt<uint{}_t, N>", t.size() * 8); }
  /// Whether a mask (a bool's vector) already has the lane size of t.
  bool maskFits(const Type &t) const { return t.kind == Type::Kind::Bool || (!narrow && t.size() == 4); }

  void stmt(const hl::SStmt &s, std::string &out) {
    switch (s.kind) {
    case hl::SStmt::Kind::Assign:
      out += fmt::format("  l{} = {};\n", s.slot, narrowLocal(s.slot) ? narrowExpr(*s.value) : expr(*s.value));
      break;
    case hl::SStmt::Kind::Return:
      if (narrow) accumulate(*s.value, out);
      else out += fmt::format("  return {};\n", expr(*s.value));
      break;
    case hl::SStmt::Kind::Block:
      for (const auto &c : s.thenBody) stmt(*c, out);
      break;
    case hl::SStmt::Kind::If: break; // excluded by isVectorizable
    }
  }

  /// `return acc + e` in lanes of W.  A `c ? x : y` result is added arm by
  /// arm where AVX-512 masks make that one masked add (`c ? acc + x : acc`
  /// for y = 0: a compare and a masked add per 64 counted bytes, where
  /// acc - mask takes three instructions); elsewhere, a blend would cost more.
  void accumulate(const hl::SExpr &e, std::string &out) {
    auto add = [](const std::string &x) { return fmt::format("(mdh_vt<W, N>)((mdh_vt<UW, N>)acc + (mdh_vt<UW, N>)({}))", x); };
    if (e.kind == hl::SExpr::Kind::Cond) {
      auto zero = [&](size_t i) { return e.args[i]->kind == hl::SExpr::Kind::Const && narrow->of(*e.args[i])->lo == 0; };
      auto arm = [&](size_t i) { return zero(i) ? std::string("acc") : add(narrowExpr(*e.args[i])); };
      out += "#if defined(__AVX512BW__)\n";
      out += fmt::format("  return {} ? {} : {};\n", expr(*e.args[0]), arm(1), arm(2));
      out += "#else\n";
      out += fmt::format("  return {};\n", add(narrowExpr(e)));
      out += "#endif\n";
      return;
    }
    out += fmt::format("  return {};\n", add(narrowExpr(e)));
  }

  /// A bounded result-typed expression in lanes of W (narrow variant only).
  std::string narrowExpr(const hl::SExpr &e) {
    const auto r = narrow->of(e);
    auto a = [&](size_t i) { return narrowExpr(*e.args[i]); };
    switch (e.kind) {
    case hl::SExpr::Kind::Const: return fmt::format("mdh_vsplat<mdh_vt<W, N>>(W({}LL))", r->lo);
    case hl::SExpr::Kind::Local: return fmt::format("l{}", e.slot);
    case hl::SExpr::Kind::Unary:
      if (e.unOp == hl::UnOp::Neg) return fmt::format("((mdh_vt<W, N>)(-(mdh_vt<UW, N>)({})))", a(0));
      return fmt::format("(~{})", a(0));
    case hl::SExpr::Kind::Binary:
      return fmt::format("((mdh_vt<W, N>)((mdh_vt<UW, N>)({}) {} (mdh_vt<UW, N>)({})))", a(0), hl::binOpSpelling(e.binOp), a(1));
    case hl::SExpr::Kind::Cond: {
      const std::string m = expr(*e.args[0]);
      auto constant = [&](size_t i, int64_t v) { auto ri = narrow->of(*e.args[i]); return e.args[i]->kind == hl::SExpr::Kind::Const && ri->lo == v; };
      if (constant(1, 1) && constant(2, 0)) return fmt::format("((mdh_vt<W, N>)(mdh_vt<UW, N>{{}} - (mdh_vt<UW, N>)({})))", m);
      return fmt::format("mdh_vselect({}, {}, {})", m, a(1), a(2));
    }
    case hl::SExpr::Kind::Cast: return fmt::format("(-{})", expr(*e.args[0])); // a bool mask: -1 -> 1
    default: return "{}"; // not bounded (ResultRanges)
    }
  }

  std::string expr(const hl::SExpr &e) {
    auto a = [&](size_t i) { return expr(*e.args[i]); };
    const Type &t = e.type;
    switch (e.kind) {
    case hl::SExpr::Kind::Const:
      if (t.kind == Type::Kind::Bool && narrow) return fmt::format("mdh_vsplat<{}>(W({}))", vt(t), e.value.bits ? -1 : 0);
      return fmt::format("mdh_vsplat<{}>({})", vt(t), literal(e));
    case hl::SExpr::Kind::Local:
      // A bounded local read where the full result type is wanted: widened.
      if (narrowLocal(e.slot)) return fmt::format("__builtin_convertvector(l{}, {})", e.slot, vt(t));
      return fmt::format("l{}", e.slot);
    case hl::SExpr::Kind::Unary:
      if (e.unOp != hl::UnOp::Neg) return fmt::format("(~{})", a(0)); // Not on masks, BitNot on integers
      if (t.isFloat()) return fmt::format("(-{})", a(0));
      return fmt::format("(({})(-({})({})))", vt(t), unsignedOf(t), a(0));
    case hl::SExpr::Kind::Binary: {
      const char *op = hl::binOpSpelling(e.binOp);
      if (hl::isComparison(e.binOp)) {
        // A compare yields a mask of its operands' lane size: as is when that
        // is the mask size, converted otherwise.
        const Type &ot = e.args[0]->type;
        if (maskFits(ot)) return fmt::format("({} {} {})", a(0), op, a(1));
        return fmt::format("__builtin_convertvector(({} {} {}), {})", a(0), op, a(1), vt(Type::prim(Type::Kind::Bool)));
      }
      switch (e.binOp) {
      case hl::BinOp::Add:
      case hl::BinOp::Sub:
      case hl::BinOp::Mul:
        if (t.isFloat()) return fmt::format("({} {} {})", a(0), op, a(1));
        return fmt::format("(({})(({})({}) {} ({})({})))", vt(t), unsignedOf(t), a(0), op, unsignedOf(t), a(1));
      case hl::BinOp::And: return fmt::format("({} & {})", a(0), a(1));
      case hl::BinOp::Or: return fmt::format("({} | {})", a(0), a(1));
      default: return fmt::format("({} {} {})", a(0), op, a(1)); // float /, integer & | ^
      }
    }
    case hl::SExpr::Kind::Cond: {
      // A mask is -1 or 0 per lane: integers select by bits (the compiler
      // folds constant arms: `c ? 1 : 0` is `mask & 1`); floats by ?:.
      std::string m = maskFits(t) ? a(0) : fmt::format("__builtin_convertvector({}, {})", a(0), maskOf(t));
      if (t.isFloat()) return fmt::format("({} ? {} : {})", m, a(1), a(2));
      // `c ? 1 : 0` is 0 - mask, which an accumulating add then folds into one
      // subtraction (a histogram's compare-and-count: 7.4 -> 5.5 ms).
      auto constant = [&](size_t i, uint64_t v) { return e.args[i]->kind == hl::SExpr::Kind::Const && e.args[i]->value.bits == v; };
      if (t.isInteger() && constant(1, 1) && constant(2, 0))
        return fmt::format("(({})({}{{}} - ({})({})))", vt(t), unsignedOf(t), unsignedOf(t), m);
      return fmt::format("mdh_vselect({}, {}, {})", m, a(1), a(2));
    }
    case hl::SExpr::Kind::Cast: {
      const Type &from = e.args[0]->type;
      if (t.kind == Type::Kind::Bool)
        return fmt::format("__builtin_convertvector(({} != mdh_vsplat<{}>(0)), {})", a(0), vt(from), vt(t));
      if (from.kind == Type::Kind::Bool) return fmt::format("__builtin_convertvector(-({}), {})", a(0), vt(t)); // -1 -> 1
      return fmt::format("__builtin_convertvector({}, {})", a(0), vt(t));
    }
    case hl::SExpr::Kind::Call: {
      std::string args;
      for (size_t i = 0; i < e.args.size(); ++i) args += (i ? ", " : "") + a(i);
      return fmt::format("{}<N>({})", vectorFnName(*e.callee), args);
    }
    default: return "{}"; // excluded by isVectorizable
    }
  }
};

} // namespace

bool isVectorizable(const hl::ScalarFunction &f) { return VectorizableCheck().function(f); }

std::string vectorFnName(const hl::ScalarFunction &f) { return "mdh_fnv_" + functionCode(f); }

std::string narrowVectorFnName(const hl::ScalarFunction &f) { return "mdh_fnn_" + functionCode(f); }


std::string emitVectorFunctions(const hl::Program &p) {
  std::string out = R"(// Lane-wise helpers on GCC vector types (register tiles).
template <class T, int N> using mdh_vt __attribute__((vector_size(sizeof(T) * N))) = T;
// s - 0 is s for every float (also -0 and NaN), and compiles to one broadcast.
template <class V, class S> static inline V mdh_vsplat(S s) { return s - V{}; }
// Lanes of a where the mask m (-1 / 0, lanes of a's size) is set, else of b.
template <class M, class V> static inline V mdh_vselect(M m, V a, V b) { return (V)((m & (M)a) | (~m & (M)b)); }
template <class V, class S> static inline V mdh_vload(const S *p) {
  V v;
  std::memcpy(&v, p, sizeof(V));
  return v;
}
// A load whose vector several FMAs of a register tile reuse: the empty asm
// makes the value a register operand, so GCC loads it once instead of folding
// a memory operand into every use (the asm has no side effects: it is still
// hoisted and shared like the load itself). Only with AVX-512, whose 32
// vector registers hold a register tile's accumulators and these operands
// (with 16, forcing them into registers would spill accumulators instead; a
// folded 256-bit load is cheap there), and only for vectors that fit one
// register: wider lane groups (narrow inputs of wide accumulators) span
// several, which no single asm operand can name.
// A register tile's base pointer made opaque to the optimiser, once per
// reduction step: GCC's predictive commoning (on at -O3) otherwise relates the
// addresses of consecutive steps and keeps the values that rows read again a
// step later (a convolution's overlapping input windows) in registers, which
// spills the accumulators (12 rows along q of a ResNet-50 first-layer tile:
// 1.005 ms against 0.62). The empty asm costs at most a register copy per step
// (the emitter uses it only where rows' windows overlap), and unlike
// -fno-predictive-commoning every compiler takes it.
template <class T> static inline const T *mdh_opaque(const T *p) {
#if defined(__GNUC__)
  __asm__("" : "+r"(p));
#endif
  return p;
}
template <class V, class S> static inline V mdh_vload_reg(const S *p) {
  V v = mdh_vload<V>(p);
#if defined(__GNUC__) && defined(__x86_64__) && MDH_VBYTES == 64
  if constexpr (sizeof(V) >= 16 && sizeof(V) <= MDH_VBYTES) __asm__("" : "+v"(v));
#endif
  return v;
}
)";
  // Only in programs that combine floats with max or min (vectorBinary's only users): the
  // helpers every kernel carries stay as they were, and so does its code's hash, by which
  // the tuning database keys measurements.
  bool floatMinMax = false;
  for (const auto &c : p.ops)
    floatMinMax |= c.kind != hl::CombineOperator::Kind::Concat && c.op.kind == hl::BinaryOperator::Kind::Builtin &&
                   c.op.type.isFloat() && (c.op.builtin == hl::BuiltinOp::Max || c.op.builtin == hl::BuiltinOp::Min);
  if (floatMinMax)
    out += R"(// mdh_max / mdh_min on float lanes, the same per lane: a NaN operand is ignored (a NaN
// a gives b), -0 < +0. Exact and order-free, so lanes may be combined in any order.
template <class V> static inline V mdh_vfmax(V a, V b) {
  typedef decltype(a < b) M; // the lanes' signed integers
  const M signA = (M)a < M{};
  V r = mdh_vselect((a > b) | ((a == b) & ~signA), a, b);
  r = mdh_vselect(b != b, a, r);
  return mdh_vselect(a != a, b, r);
}
template <class V> static inline V mdh_vfmin(V a, V b) {
  typedef decltype(a < b) M;
  const M signA = (M)a < M{};
  V r = mdh_vselect((a < b) | ((a == b) & signA), a, b);
  r = mdh_vselect(b != b, a, r);
  return mdh_vselect(a != a, b, r);
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
  VectorizableCheck vectorizable;
  visit = [&](const hl::ScalarFunction &f) {
    if (done.count(&f) || !vectorizable.function(f)) return;
    done.insert(&f);
    for (const auto &s : f.body) visitStmt(*s);
    order.push_back(&f);
  };
  for (const auto &f : p.functions) visit(*f);
  for (const auto *f : order) out += VectorFnEmitter(*f).emit();
  if (p.f && vectorizable.function(*p.f))
    if (const hl::ResultRanges ranges(*p.f); ranges.result()) out += VectorFnEmitter(*p.f, &ranges).emit();
  return out;
}

std::string vectorBinary(const hl::BinaryOperator &op, const std::string &a, const std::string &b, const std::string &vec,
                         const std::string &lanes) {
  const Type &t = op.type;
  if (op.kind == hl::BinaryOperator::Kind::User) {
    const hl::ScalarFunction &f = *op.user;
    if (!t.isNumeric() || f.numParams != 2 || !isVectorizable(f)) return "";
    return fmt::format("{}<{}>({}, {})", vectorFnName(f), lanes, a, b);
  }
  if (op.kind != hl::BinaryOperator::Kind::Builtin || !t.isNumeric()) return "";
  if (t.isFloat()) {
    // mdh_add and mdh_mul are a + b and a * b on floats, also on vectors.
    if (op.builtin == hl::BuiltinOp::Add || op.builtin == hl::BuiltinOp::Mul) return applyBinary(op, a, b);
    if (op.builtin == hl::BuiltinOp::Max) return fmt::format("mdh_vfmax({}, {})", a, b);
    if (op.builtin == hl::BuiltinOp::Min) return fmt::format("mdh_vfmin({}, {})", a, b);
    return "";
  }
  const std::string u = fmt::format("mdh_vt<uint{}_t, {}>", t.size() * 8, lanes);
  switch (op.builtin) {
  case hl::BuiltinOp::Add: return fmt::format("({})(({}){} + ({}){})", vec, u, a, u, b);
  case hl::BuiltinOp::Mul: return fmt::format("({})(({}){} * ({}){})", vec, u, a, u, b);
  case hl::BuiltinOp::Min: return fmt::format("mdh_vselect({1} < {0}, {1}, {0})", a, b); // mdh_min: b < a ? b : a
  case hl::BuiltinOp::Max: return fmt::format("mdh_vselect({0} < {1}, {1}, {0})", a, b); // mdh_max: a < b ? b : a
  case hl::BuiltinOp::And: return fmt::format("({} & {})", a, b);
  case hl::BuiltinOp::Or: return fmt::format("({} | {})", a, b);
  case hl::BuiltinOp::Xor: return fmt::format("({} ^ {})", a, b);
  }
  return "";
}

std::string vectorScanHelpers() {
  return R"(// In-register inclusive scans (Hillis-Steele): shifts are constant shuffles.
#include <utility>
template <size_t B> struct mdh_lane_int;
template <> struct mdh_lane_int<1> { typedef int8_t type; };
template <> struct mdh_lane_int<2> { typedef int16_t type; };
template <> struct mdh_lane_int<4> { typedef int32_t type; };
template <> struct mdh_lane_int<8> { typedef int64_t type; };
template <class V> struct mdh_vlanes {
  typedef typename std::remove_cv<typename std::remove_reference<decltype(V{}[0])>::type>::type elem;
  typedef typename mdh_lane_int<sizeof(elem)>::type lane_int;
  typedef lane_int mask __attribute__((vector_size(sizeof(V))));
  static constexpr size_t count = sizeof(V) / sizeof(elem);
};
// Lane l of the result is x[l - S] (lanes below S keep x[l]); R: x[W - 1] in every lane.
template <size_t S, bool R, class V, size_t... I> static inline V mdh_vpermute(V x, std::index_sequence<I...>) {
#if defined(__clang__)
  return __builtin_shufflevector(x, x, int(R ? sizeof...(I) - 1 : I >= S ? I - S : I)...);
#else
  typedef typename mdh_vlanes<V>::lane_int L;
  return __builtin_shuffle(x, typename mdh_vlanes<V>::mask{L(R ? sizeof...(I) - 1 : I >= S ? I - S : I)...});
#endif
}
template <size_t S, class V, class Op, size_t... I> static inline V mdh_vscan_step(V x, Op op, std::index_sequence<I...> is) {
  typedef typename mdh_vlanes<V>::lane_int L;
  const typename mdh_vlanes<V>::mask from{L(I >= S ? -1 : 0)...};
  return mdh_vselect(from, op(mdh_vpermute<S, false>(x, is), x), x);
}
template <class V, class Op> static inline V mdh_vscan(V x, Op op) {
  constexpr size_t W = mdh_vlanes<V>::count;
  const auto is = std::make_index_sequence<W>();
  if constexpr (W > 1) x = mdh_vscan_step<1>(x, op, is);
  if constexpr (W > 2) x = mdh_vscan_step<2>(x, op, is);
  if constexpr (W > 4) x = mdh_vscan_step<4>(x, op, is);
  if constexpr (W > 8) x = mdh_vscan_step<8>(x, op, is);
  if constexpr (W > 16) x = mdh_vscan_step<16>(x, op, is);
  if constexpr (W > 32) x = mdh_vscan_step<32>(x, op, is);
  return x;
}
template <class V> static inline V mdh_vlast(V x) {
  return mdh_vpermute<0, true>(x, std::make_index_sequence<mdh_vlanes<V>::count>());
}
)";
}

} // namespace mdh::codegen
