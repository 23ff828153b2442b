/** \file
 * OpenMP C++ emission of a lowered program (see OpenMPEmitter.h).
 *
 * Generated kernel shape (tiled strategy):
 *   parallel over the parts of the core level (COR), each part:
 *     tile loops of the memory levels (L3/L2/L1/RM) in their orders,
 *       staging of input tiles where the configuration asks,
 *       [accumulation scope: register accumulators over the innermost tile,
 *        in vectors where f has a lane-wise form (bounded integer counts in
 *        8/16-bit lanes, widened before any lane can overflow)]
 *         element loops: f on every element, combined into the accumulators
 *       flush: accumulators combined into the output MDA (first write stores)
 *   partial results of parts that split a reduction: combined in part order
 *   prefix sums: one scan pass per ps dimension (blocked when it is 1-D)
 *   temporary output MDA (non-injective views): written through the view.
 * Streamed scan (tiled programs whose only non-++ dimension is one ps):
 *   no tile loops; lines scanned while f is evaluated (streamedScan()).
 * Canonical strategy: parallel over output cells, each folded in the
 * canonical order of Def. 9 (programs outside Lemma 10); with prefix-sum
 * dimensions, blocks of cells run in order and carry each running prefix.
 */
#include "codegen/OpenMPEmitter.h"
#include "ll/VectorDimension.h"

#include "codegen/CNames.h"
#include "codegen/CanonicalCarries.h"
#include "codegen/EntryHeader.h"
#include "codegen/FmaTileAsm.h"
#include "codegen/MaskedLanesC.h"
#include "codegen/ScalarC.h"
#include "codegen/SizeGuard.h"
#include "codegen/VectorC.h"
#include "hl/FloatProduct.h"
#include "hl/ResultRange.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <functional>
#include <numeric>
#include <optional>
#include <set>

namespace mdh::codegen {
namespace {

using ll::Lowered;

std::string joined(const std::vector<std::string> &v, const char *sep) { return fmt::format("{}", fmt::join(v, sep)); }

std::string polyC(const SizePoly &p) {
  if (auto v = p.constantValue()) return fmt::format("INT64_C({})", *v);
  std::string out;
  for (const auto &[mono, coeff] : p.terms()) {
    std::string term = fmt::format("INT64_C({})", coeff);
    for (const auto &x : mono) term += "*sz_" + x;
    out += (out.empty() ? "" : " + ") + term;
  }
  return "(" + out + ")";
}

class Emitter {
public:
  Emitter(const Lowered &l, std::string name, std::string shownName = "")
      : L(l), P(*l.program), C(l.config), name(std::move(name)), shown(std::move(shownName)) {
    if (this->name.empty()) this->name = defaultSymbol(P);
    if (shown.empty()) shown = this->name;
  }

  EmittedKernel run() {
    EmittedKernel k;
    k.name = name;
    D = P.dims();
    E = cType(P.f->result);
    Dialect dialect;
    k.common = prelude() + emitTypeDecls(P) + emitHelpers(dialect) + emitFunctions(P, dialect) + emitVectorFunctions(P);
    // Any configuration may stream (where a dimension is point-wise, one whose tiles hold the
    // reduction whole), and common is shared by configurations.
    k.common += streamHelpers() + edgeLaneHelpers() + fmaTileAsmPrelude();
    if (!scanVectorOp().empty()) k.common += vectorScanHelpers();
    out = fmt::format("\n// Configuration: {}\n", ll::toJson(C).dump());
    out += runTimeSizeCheck(P, "OpenMP", name);
    out += signature() + " {\n";
    out += runTimeSizeGuard(P, name, "return 1;");
    out += nullBufferGuard();
    // Scratch storage outside the parallel regions (the temporary output MDA, the canonical
    // strategy's running values) can be large: running out of memory is a status, not a
    // std::bad_alloc through the C entry (which aborts the caller).
    out += "  try {\n";
    ++indent;
    body();
    --indent;
    out += fmt::format("  }} catch (const std::bad_alloc &) {{\n"
                       "    std::fprintf(stderr, \"mdh (OpenMP): {}: out of memory for its scratch storage\\n\");\n"
                       "    return 2;\n  }}\n  return 0;\n}}\n\n", shown);
    out += genericEntry();
    if (usedFoldLanes) out = foldLanesHelpers() + out;
    if (usedMaskedReduction) out = keepFirstLaneHelpers() + out;
    if (usedMaskedLanes) out = firstLaneHelpers() + out; // namespace scope, before the entry
    k.kernel = out;
    k.source = k.common + k.kernel;
    k.header = header();
    k.flags = buildFlags(C.strictFp);
    k.compileFlags = k.flags;
    k.linkFlags = "-fopenmp -lstdc++"; // the object is C++: a C program needs its runtime
    return k;
  }

  /// A variant of a run-time dispatch: its vector dimension, whether it streams, its symbol.
  struct DispatchVariant {
    int dim;
    bool streams;
    std::string symbol;
  };

  /// The public entry of a run-time dispatch (emitOpenMPDispatch): the choice functions
  /// (mdh_vector_dimension_<name>, mdh_streams_<name>), its checks, then the call of the
  /// variant whose vector dimension and stores this call's sizes favour (the first for
  /// any other choice).
  std::string dispatchEntry(const ll::VectorDimensionRule &rule, const ll::StreamingRule &streaming,
                            const std::vector<DispatchVariant> &variants) {
    D = P.dims();
    const size_t B = P.inputs.size() + P.outputs.size();
    std::vector<std::string> sizeArgs, callArgs;
    for (const auto &x : P.dynamicSizes) sizeArgs.push_back("sz_" + x);
    callArgs = sizeArgs;
    for (const auto &b : P.inputs) callArgs.push_back("in_" + b.name);
    for (const auto &b : P.outputs) callArgs.push_back("out_" + b.name);
    std::string o = fmt::format("\n// Run-time dispatch: the vector dimension the default configuration would choose for\n"
                                "// this call's sizes (ll/VectorDimension.h), and that dimension's configuration.\n"
                                "extern \"C\" int mdh_vector_dimension_{}(const int64_t *sizes) {{\n", name);
    for (size_t i = 0; i < P.dynamicSizes.size(); ++i) o += fmt::format("  const int64_t sz_{} = sizes[{}];\n", P.dynamicSizes[i], i);
    std::vector<std::string> bytes, dims;
    for (const auto *list : {&P.inputs, &P.outputs})
      for (const auto &b : *list) {
        std::string e = fmt::format("double({})", b.elem.size());
        for (const auto &x : b.shape) e += fmt::format(" * double({})", polyC(x));
        bytes.push_back(e);
      }
    for (size_t d = 0; d < D; ++d) dims.push_back(polyC(P.sizes[d]));
    o += fmt::format("  const double mdh_bytes[{}] = {{{}}};\n  (void)mdh_bytes;\n", std::max<size_t>(B, 1), fmt::join(bytes, ", "));
    o += fmt::format("  const int64_t mdh_n[{}] = {{{}}};\n  double mdh_score[{}] = {{}};\n", D, fmt::join(dims, ", "), D);
    for (size_t d = 0; d < D; ++d) {
      if (rule.terms[d].empty()) continue;
      o += fmt::format("  if (mdh_n[{}] > 1) {{\n", d);
      for (const auto &t : rule.terms[d]) o += fmt::format("    mdh_score[{}] += {} * mdh_bytes[{}];\n", d, t.weight, t.buffer);
      o += "  }\n";
    }
    std::vector<std::string> replaceable;
    for (size_t d = 0; d < D; ++d) replaceable.push_back(rule.replaceable[d] ? "true" : "false");
    o += fmt::format("  const bool mdh_replaceable[{}] = {{{}}};\n", D, fmt::join(replaceable, ", "));
    o += fmt::format("  int mdh_best = -1;\n  for (int d = 0; d < {}; ++d)\n"
                     "    if (mdh_score[d] > 0 && (mdh_best < 0 || mdh_score[d] > mdh_score[mdh_best])) mdh_best = d;\n"
                     "  if (mdh_best < 0 || !mdh_replaceable[mdh_best]) return mdh_best;\n  int mdh_alt = -1;\n"
                     "  // Shorter than one vector: the register tiles, planned for large sizes, would be remainders.\n"
                     "  const bool mdh_short = mdh_n[mdh_best] < INT64_C({});\n", D, rule.vectorLanes);
    for (size_t d = 0; d < D; ++d) {
      if (!rule.outputContiguous[d]) continue;
      o += fmt::format("  {{\n    bool mdh_reused = true;\n");
      for (const auto &unread : rule.reuseDims[d]) {
        o += "    {\n      int64_t r = 1;\n";
        for (size_t e : unread) o += fmt::format("      r = std::min<int64_t>(r * std::max<int64_t>(mdh_n[{}], 1), {});\n", e, ll::VectorDimensionRule::kMinReuse);
        o += fmt::format("      mdh_reused = mdh_reused && r >= {};\n    }}\n", ll::VectorDimensionRule::kMinReuse);
      }
      o += fmt::format("    if ((mdh_short || mdh_reused) && mdh_score[{0}] > 0 && (mdh_alt < 0 || mdh_score[{0}] > mdh_score[mdh_alt])) mdh_alt = {0};\n  }}\n", d);
    }
    o += fmt::format("  if (mdh_alt >= 0 && (mdh_short || mdh_score[mdh_alt] >= {} * mdh_score[mdh_best])) return mdh_alt;\n  return mdh_best;\n}}\n\n",
                     ll::VectorDimensionRule::kPreferableFraction);
    bool anyStreams = false;
    for (const auto &v : variants) anyStreams |= v.streams;
    if (anyStreams) {
      // StreamingStores.h: the footprint against the cache, and rows on cache lines or from f.
      o += fmt::format("// Whether this call's outputs are written with streaming stores (ll/StreamingStores.h).\n"
                       "extern \"C\" bool mdh_streams_{}(const int64_t *sizes, int simd) {{\n", name);
      for (size_t i = 0; i < P.dynamicSizes.size(); ++i) o += fmt::format("  const int64_t sz_{} = sizes[{}];\n", P.dynamicSizes[i], i);
      o += fmt::format("  const double mdh_bytes[{}] = {{{}}};\n  double mdh_footprint = 0;\n", std::max<size_t>(B, 1), fmt::join(bytes, ", "));
      o += fmt::format("  for (size_t b = 0; b < {}; ++b) mdh_footprint += mdh_bytes[b];\n", B);
      o += fmt::format("  if (mdh_footprint < {}.0) return false;\n", streaming.cacheBytes);
      std::vector<std::string> aligned = {"true"};
      for (const auto &[out, elemBytes] : streaming.rowOutputs)
        aligned.push_back(fmt::format("({}) * INT64_C({}) % 64 == 0", polyC(P.outputs[out].shape.back()), elemBytes));
      o += fmt::format("  const bool mdh_aligned = {};\n", fmt::join(aligned, " && "));
      std::vector<std::string> fromF = {"false"};
      for (size_t d = 0; d < D; ++d)
        if (streaming.rowsFromF[d])
          fromF.push_back(fmt::format("(simd == {} && {} * INT64_C({}) >= INT64_C({}))", d, dims[d], streaming.resultBytes,
                                      streaming.minRowBytes));
      o += fmt::format("  const bool mdh_rows_from_f = {};\n  return mdh_aligned || mdh_rows_from_f;\n}}\n\n", fmt::join(fromF, " || "));
    }
    o += runTimeSizeCheck(P, "OpenMP", name);
    o += signature() + " {\n";
    o += runTimeSizeGuard(P, name, "return 1;");
    o += nullBufferGuard();
    o += fmt::format("  const int64_t mdh_sizes[] = {{{}}};\n  const int mdh_simd = mdh_vector_dimension_{}(mdh_sizes);\n",
                     fmt::join(sizeArgs, ", "), name);
    const std::string args = fmt::format("{}", fmt::join(callArgs, ", "));
    // The exact variant, else that dimension's plain one, else the first.
    if (anyStreams) {
      o += fmt::format("  const bool mdh_streamed = mdh_streams_{}(mdh_sizes, mdh_simd);\n", name);
      for (const auto &v : variants)
        o += fmt::format("  if (mdh_simd == {} && {}mdh_streamed) return {}({});\n", v.dim, v.streams ? "" : "!", v.symbol, args);
    }
    for (const auto &v : variants)
      if (!v.streams) o += fmt::format("  if (mdh_simd == {}) return {}({});\n", v.dim, v.symbol, args);
    o += fmt::format("  return {}({});\n}}\n\n", variants[0].symbol, args);
    o += genericEntry();
    return o;
  }

private:
  /// The flags the generated C++ is built with (GCC's or Clang's spelling). The
  /// contraction mode comes last: Clang's -fno-fast-math resets it to `on`.
  static std::string buildFlags(bool strictFp) {
    return fmt::format("-O3 -march=native -fopenmp -fno-fast-math -ffp-contract={}", strictFp ? "off" : "fast");
  }

  const Lowered &L;
  const hl::Program &P;
  const ll::Config &C;
  std::string name;
  std::string shown; ///< the entry's name in messages: the public entry's for a dispatch variant
  size_t D = 0;
  std::string E; // C type of the MDA element (f's result)
  std::string out;
  int indent = 1;

  void line(const std::string &s) { out += std::string(size_t(indent * 2), ' ') + s + "\n"; }
  void open(const std::string &s) { line(s + " {"); ++indent; }
  void close(const std::string &s = "}") { --indent; line(s); }

  std::string N(size_t d) const { return fmt::format("N{}", d); }
  bool isRed(size_t d) const { return L.reduced[d]; }

  std::string prelude() const {
    return fmt::format(R"(// Generated by mdhc {} — do not edit.
// Program: {}   backend: OpenMP   strategy: {}
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>
#include <new>
#include <type_traits>
#include <omp.h>

// `omp simd` marks loops that may vectorise; Clang warns for each one it cannot
// (records, scans), which says nothing about the result.
#if defined(__clang__)
#pragma clang diagnostic ignored "-Wpass-failed"
// The helpers are shared by every configuration of a program, so one kernel uses
// only some of them; conditions come parenthesised from the expression printer.
#pragma clang diagnostic ignored "-Wunused-function"
#pragma clang diagnostic ignored "-Wunneeded-internal-declaration"
#pragma clang diagnostic ignored "-Wparentheses-equality"
#endif
// Accumulators are first written where a reduction starts (the first element of a
// tile), which GCC's -Wmaybe-uninitialized cannot follow through the tile loops.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
// GCC's loop splitting (-fsplit-loops, on at -O3) cuts a remainder tile's row or vector loop
// at its clamp (mdh_imin(j, e - 1), j < e) into two loops of run-time length, which it then
// cannot unroll: the register tile's accumulators get run-time indices and live on the
// stack. Off for the whole file (the generated code for it is otherwise the same as with
// -fno-split-loops). MatMul 1009 x 47 x 997 (a remainder of 15 columns) on Zen 3, 2 threads,
// interleaved: 1.72 -> 1.36 ms; 1009 x 31 x 997: 0.75 -> 0.62 ms.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("no-split-loops")
#endif

// Register tiles use GCC vector types of the widest vector unit compiled for.
#if defined(__AVX512F__)
#define MDH_VBYTES 64
#elif defined(__AVX__)
#define MDH_VBYTES 32
#else
#define MDH_VBYTES 16
#endif

// The smaller of two indices, by value: std::min returns a reference, and in a register
// tile's clamped rows (std::min<int64_t>(j, e - 1), j unrolled) GCC kept the index it referred
// to on the stack and reloaded each row's offset through a pointer at every step (a
// 31 x 29 x 27 x 25 / 23 x 21 contraction, Zen 3, 2 threads, interleaved: 11.6 -> 7.6 ms).
static inline int64_t mdh_imin(int64_t a, int64_t b) {{ return a < b ? a : b; }}

// Zero-initialised scratch storage (std::vector<bool> has no data()).
template <class T> struct mdh_array {{
  std::unique_ptr<T[]> p;
  explicit mdh_array(size_t n) : p(new T[n]()) {{}}
  T *data() {{ return p.get(); }}
  T &operator[](size_t i) {{ return p[i]; }}
}};

)", MDH_VERSION, P.instanceName,
                       L.strategy == ll::Strategy::Canonical ? "canonical" : L.streamedScan >= 0 ? "streamed scan" : "tiled") +
           (C.strictFp ? strictFpPragmas() : "");
  }

  /// --strict-fp in the source too, not only in the printed build flags: a build that
  /// leaves them out (GCC contracts by default in GNU mode) still does not fuse a*b+c.
  /// Before every function, so that inlining sees one setting.  Clang's
  /// -ffp-contract=fast overrides any pragma, so the header names the flag.
  static std::string strictFpPragmas() {
    return "// --strict-fp: no contraction of a*b+c into a fused multiply-add.\n"
           "#if defined(__clang__)\n#pragma clang fp contract(off)\n#elif defined(__GNUC__)\n"
           "#pragma GCC optimize(\"fp-contract=off\")\n#endif\n\n";
  }

  /// The entry's declaration without `extern "C"`; `typeName` spells the
  /// element types (the header spells records by the user's names).
  std::string declaration(const std::function<std::string(const Type &)> &typeName) const {
    std::vector<std::string> params;
    for (const auto &s : P.dynamicSizes) params.push_back("int64_t sz_" + s);
    for (const auto &b : P.inputs) params.push_back(fmt::format("const {} *__restrict in_{}", typeName(b.elem), b.name));
    for (const auto &b : P.outputs) params.push_back(fmt::format("{} *__restrict out_{}", typeName(b.elem), b.name));
    return fmt::format("int {}({})", name, fmt::join(params, ", "));
  }
  std::string signature() const { return "extern \"C\" " + declaration(cType); }

  /// The entry's check of its buffer pointers: a null one is reported, with status 1, before
  /// anything is read or written.
  std::string nullBufferGuard() const {
    std::string g;
    for (const auto *list : {&P.inputs, &P.outputs})
      for (const auto &b : *list)
        g += fmt::format("  if (!{0}_{1}) {{ std::fprintf(stderr, \"mdh (OpenMP): {2}: buffer `{1}` is a null pointer\\n\"); return 1; }}\n",
                         list == &P.inputs ? "in" : "out", b.name, name);
    return g;
  }

  /// `<name>_run`: the entry over arrays of sizes and buffers, with the entry's status.
  std::string genericEntry() const {
    std::vector<std::string> sizes, args;
    for (size_t i = 0; i < P.dynamicSizes.size(); ++i) sizes.push_back(fmt::format("sizes[{}]", i));
    args = sizes;
    size_t k = 0;
    for (const auto &b : P.inputs) args.push_back(fmt::format("static_cast<const {} *>(buffers[{}])", cType(b.elem), k++));
    for (const auto &b : P.outputs) args.push_back(fmt::format("static_cast<{} *>(buffers[{}])", cType(b.elem), k++));
    const std::string check = sizes.empty() ? "(void)sizes;" : "if (!sizes) return 1;";
    return fmt::format("// Generic entry: dynamic sizes in declaration order; buffers: inputs then outputs.\n"
                       "extern \"C\" int {}_run(const int64_t *sizes, void *const *buffers) {{\n  {}\n  if (!buffers) return 1;\n"
                       "  return {}({});\n}}\n",
                       name, check, name, fmt::join(args, ", "));
  }

  // ---- buffers -----------------------------------------------------------------------------------
  std::vector<std::string> strides(const hl::Buffer &b) const {
    std::vector<std::string> s(b.shape.size());
    std::string acc = "INT64_C(1)";
    for (size_t k = b.shape.size(); k-- > 0;) {
      s[k] = acc;
      acc = acc == "INT64_C(1)" ? polyC(b.shape[k]) : acc + "*" + polyC(b.shape[k]);
    }
    return s;
  }

  /// Buffer index component k of access a at coordinates `x` (C expressions).
  std::string indexComponent(const hl::AffineIndex &ix, const std::vector<std::string> &x) const {
    std::string s = polyC(ix.offset);
    for (size_t d = 0; d < D; ++d) {
      int64_t c = ix.coeff(d);
      if (c == 0) continue;
      s += c == 1 ? fmt::format(" + {}", x[d]) : fmt::format(" + INT64_C({})*{}", c, x[d]);
    }
    return s;
  }

  std::string linearIndex(const hl::Buffer &b, const hl::Access &a, const std::vector<std::string> &x) const {
    if (a.dims.empty()) return "0";
    auto st = strides(b);
    std::vector<std::string> parts;
    for (size_t k = 0; k < a.dims.size(); ++k) parts.push_back(fmt::format("({})*{}", indexComponent(a.dims[k], x), st[k]));
    return joined(parts, " + ");
  }

  // ---- the output MDA ----------------------------------------------------------------------------
  /// Extent of the output MDA in dim d (1 for reduced dims).
  std::string outExtent(size_t d) const { return isRed(d) ? "INT64_C(1)" : N(d); }

  std::string outLinear(const std::vector<std::string> &c) const {
    std::string s = "0";
    for (size_t d = 0; d < D; ++d) {
      if (isRed(d)) continue;
      s = s == "0" ? c[d] : fmt::format("({})*{} + {}", s, N(d), c[d]);
    }
    return s;
  }

  std::vector<std::pair<const hl::Buffer *, size_t>> outputComponents() const {
    std::vector<std::pair<const hl::Buffer *, size_t>> comps;
    for (const auto &b : P.outputs)
      for (size_t a = 0; a < b.accesses.size(); ++a) comps.push_back({&b, a});
    return comps;
  }

  /// Whether the output is one buffer of f's type whose view is the identity
  /// over the non-reduced dimensions, in order: its cells then lie where the
  /// temporary output MDA keeps them (outLinear()), so the temporary of a
  /// reduction that run-time sizes leave in one core part can be the buffer.
  bool outputKeepsTempLayout() const {
    if (P.outputs.size() != 1 || P.outputs[0].accesses.size() != 1) return false;
    const hl::Buffer &b = P.outputs[0];
    if (cType(b.elem) != E) return false;
    const hl::Access &a = b.accesses[0];
    size_t k = 0;
    for (size_t d = 0; d < D; ++d) {
      if (isRed(d)) continue;
      if (k >= a.dims.size() || b.shape[k] != P.sizes[d] || a.dims[k].offset.constantValue() != 0) return false;
      for (size_t d2 = 0; d2 < D; ++d2)
        if (a.dims[k].coeffs[d2].constantValue() != (d2 == d ? 1 : 0)) return false;
      ++k;
    }
    return k == a.dims.size();
  }

  /// The cell at coordinates c of the output's only component (direct output).
  std::string singleOutputCell(const std::vector<std::string> &c) const {
    auto comps = outputComponents();
    const hl::Buffer &b = *comps[0].first;
    return fmt::format("out_{}[{}]", b.name, linearIndex(b, b.accesses[comps[0].second], c));
  }

  /// Load of the output MDA cell at coordinates c (reduced coords are "0").
  std::string loadOut(const std::vector<std::string> &c, const std::string &temp) const {
    if (!L.directOutput) return fmt::format("{}[{}]", temp, outLinear(c));
    auto comps = outputComponents();
    std::vector<std::string> parts;
    for (auto [b, a] : comps) parts.push_back(fmt::format("out_{}[{}]", b->name, linearIndex(*b, b->accesses[a], c)));
    if (parts.size() == 1) return parts[0];
    return fmt::format("{}{{{}}}", E, fmt::join(parts, ", "));
  }

  /// loadOut() as an operand of a combine: an output of several components
  /// is read into the local `var` first, because a component-wise combine
  /// names its operand once per component (200 outputs: 200 x 200 loads).
  std::string loadOperand(const std::vector<std::string> &c, const std::string &temp, const std::string &var) {
    std::string v = loadOut(c, temp);
    if (!L.directOutput || outputComponents().size() == 1) return v;
    line(fmt::format("const {} {} = {};", E, var, v));
    return var;
  }

  void storeOut(const std::vector<std::string> &c, const std::string &v, const std::string &temp) {
    if (!L.directOutput) {
      line(fmt::format("{}[{}] = {};", temp, outLinear(c), v));
      return;
    }
    auto comps = outputComponents();
    if (comps.size() == 1) {
      line(fmt::format("{} = {};", singleOutputCell(c), v));
      return;
    }
    open("");
    line(fmt::format("const {} mdh_store = {};", E, v));
    for (size_t i = 0; i < comps.size(); ++i)
      line(fmt::format("out_{}[{}] = mdh_store._{};", comps[i].first->name,
                       linearIndex(*comps[i].first, comps[i].first->accesses[comps[i].second], c), i));
    close();
  }

  std::vector<std::string> outCoords(const char *prefix) const {
    std::vector<std::string> c;
    for (size_t d = 0; d < D; ++d) c.push_back(isRed(d) ? "INT64_C(0)" : fmt::format("{}{}", prefix, d));
    return c;
  }

  /// Declares c<d> for every non-reduced dim from a linear output cell index q.
  void decodeOutCell(const std::string &q, const char *prefix) {
    line(fmt::format("int64_t mdh_rem = {};", q));
    for (size_t d = D; d-- > 0;) {
      if (isRed(d)) continue;
      line(fmt::format("const int64_t {}{} = mdh_rem % {}; mdh_rem /= {};", prefix, d, N(d), N(d)));
    }
    line("(void)mdh_rem;");
  }

  // ---- streaming stores (Config::streamStores) ------------------------------------------------------------
  static std::string streamHelpers() {
    return R"(// Streaming (non-temporal) stores: whole aligned vectors go to memory without
// first reading their cache lines, and leave the caches to the inputs.
#if defined(__SSE2__)
#include <immintrin.h>
#endif
// One vector of MDH_VBYTES bytes to an MDH_VBYTES-aligned p (the branches match MDH_VBYTES's).
template <class V> static inline void mdh_vstream(void *p, const V &v) {
  static_assert(sizeof(V) == MDH_VBYTES, "one vector of the widest unit");
#if defined(__AVX512F__)
  __m512i x; std::memcpy(&x, &v, 64); _mm512_stream_si512(static_cast<__m512i *>(p), x);
#elif defined(__AVX__)
  __m256i x; std::memcpy(&x, &v, 32); _mm256_stream_si256(static_cast<__m256i *>(p), x);
#elif defined(__SSE2__)
  __m128i x; std::memcpy(&x, &v, 16); _mm_stream_si128(static_cast<__m128i *>(p), x);
#else
  std::memcpy(p, &v, sizeof(V));
#endif
}
// dst[0, n) = src[0, n): plain stores up to a vector boundary of dst, then whole vectors
// streamed (all plain when !stream: streamed lines mixed with plainly stored partial
// ones at every row measured slower than plain stores alone).
template <class T> static inline void mdh_stream_row(T *__restrict dst, const T *__restrict src, int64_t n, bool stream) {
  typedef mdh_vt<T, MDH_VBYTES / sizeof(T)> V;
  constexpr int64_t W = MDH_VBYTES / int64_t(sizeof(T));
  int64_t i = 0;
  if (stream && n >= 2 * W && reinterpret_cast<uintptr_t>(dst) % sizeof(T) == 0) {
    for (; reinterpret_cast<uintptr_t>(dst + i) % MDH_VBYTES != 0; ++i) dst[i] = src[i];
    for (; i + W <= n; i += W) mdh_vstream(dst + i, mdh_vload<V>(src + i));
  }
  for (; i < n; ++i) dst[i] = src[i];
}
// A read hint for the line 2 KiB past p (integer arithmetic: the address
// may lie past the buffer, and a prefetch never faults).
static inline void mdh_prefetch_ahead(const void *p) {
  __builtin_prefetch(reinterpret_cast<const void *>(reinterpret_cast<uintptr_t>(p) + 2048), 0, 3);
}
static inline void mdh_stream_fence() {
#if defined(__SSE2__)
  _mm_sfence();
#endif
}
)";
  }

  /// Whether output rows along dimension d can be streamed: the one output
  /// access is contiguous along d, cells are numbers, each is written once,
  /// and (`tiled`) every row starts on a cache line when the buffer does
  /// (tile extents along d and the buffer's row length are multiples of 64
  /// bytes, or a tile spans d): else every row mixes streamed lines with
  /// plainly stored partial ones, measured slower than plain stores alone.
  /// The buffer's own alignment is checked at run time (mdh_stream_ok);
  /// streamedRowLoops() moves its segments onto lines itself.
  bool streamsAlong(size_t d, bool tiled = true) const {
    if (!C.streamStores || !outputContiguousAlong(d)) return false;
    if (!tiled) return true;
    auto comps = outputComponents();
    const hl::Access &a = comps[0].first->accesses[comps[0].second];
    const int64_t bytes = int64_t(P.f->result.size());
    auto lineMultiple = [&](int64_t elems) { return elems * bytes % 64 == 0; };
    auto offset = a.dims.back().offset.constantValue();
    if (!offset || !lineMultiple(*offset)) return false;
    const hl::Buffer &buf = *comps[0].first;
    if (buf.shape.size() > 1) {
      auto row = buf.shape.back().constantValue();
      if (!row || !lineMultiple(*row)) return false;
    }
    const std::vector<int64_t> sizes = ll::concreteSizes(P);
    for (int lv = 0; lv <= lastLevel(); ++lv)
      if (!lineMultiple(tile(lv, d)) && (sizes[d] <= 0 || tile(lv, d) < sizes[d])) return false;
    return true;
  }

  /// Whether the cells of the output, numbers written once in place to one
  /// buffer, are consecutive elements of that buffer along dimension d.
  bool outputContiguousAlong(size_t d) const {
    if (!L.directOutput || !P.f->result.isNumeric()) return false;
    for (size_t k = 0; k < D; ++k)
      if (isRed(k)) return false;
    auto comps = outputComponents();
    if (comps.size() != 1) return false;
    const hl::Access &a = comps[0].first->accesses[comps[0].second];
    if (a.dims.empty()) return false;
    for (size_t k = 0; k + 1 < a.dims.size(); ++k)
      if (a.dims[k].coeff(d) != 0) return false;
    return a.dims.back().coeff(d) == 1;
  }

  // ---- f ------------------------------------------------------------------------------------------------
  struct Staged {
    const hl::Buffer *buffer;
    std::string var;           ///< local array
    std::vector<int> layout;
    std::vector<int64_t> maxExt;
    int level;
    int64_t panel = 0;         ///< panel width on the layout's innermost dimension (0: none)
    size_t panelDim() const { return size_t(layout.back()); }
  };
  std::vector<Staged> staged; ///< stages currently in scope (innermost last)

  /// Element strides of a staged region's dimensions (the panel dimension:
  /// 1 inside a panel) and, last, the size of one panel block.
  static std::vector<int64_t> layoutStrides(const Staged &st) {
    const size_t n = st.layout.size();
    std::vector<int64_t> lstride(n + 1, 1);
    int64_t acc = st.panel > 0 ? st.panel : 1;
    for (size_t m = st.panel > 0 ? n - 1 : n; m-- > 0;) {
      lstride[size_t(st.layout[m])] = acc;
      acc *= st.maxExt[size_t(st.layout[m])];
    }
    lstride[n] = acc;
    return lstride;
  }

  /// Index into a staged region from per-dimension offsets `rel` (element k:
  /// the buffer index minus the region's lo).  Strides are constants of the
  /// layout; with panels, the panel dimension contributes its block (times
  /// the block's size) and its position inside the block, which the caller
  /// may give explicitly (`block`, `within`) when it iterates blocks itself.
  std::string stagedIndex(const Staged &st, const std::vector<std::string> &rel, const std::string &block = "",
                          const std::string &within = "") const {
    const size_t n = st.layout.size();
    const std::vector<int64_t> lstride = layoutStrides(st);
    const int64_t acc = lstride[n];
    std::vector<std::string> parts;
    for (size_t k = 0; k < n; ++k) {
      if (st.panel > 0 && k == st.panelDim()) {
        std::string blk = block.empty() ? fmt::format("({}) / INT64_C({})", rel[k], st.panel) : block;
        std::string in = within.empty() ? fmt::format("({}) % INT64_C({})", rel[k], st.panel) : within;
        parts.push_back(fmt::format("({})*INT64_C({})", blk, acc));
        parts.push_back(fmt::format("({})", in));
      } else {
        parts.push_back(fmt::format("({})*INT64_C({})", rel[k], lstride[k]));
      }
    }
    return parts.empty() ? "0" : joined(parts, " + ");
  }

  const Staged *stagedOf(const hl::Buffer &b) const {
    for (auto it = staged.rbegin(); it != staged.rend(); ++it)
      if (it->buffer == &b) return &*it;
    return nullptr;
  }

  std::string inputLoad(const hl::Buffer &b, const hl::Access &a, const std::vector<std::string> &x) const {
    if (const Staged *st = stagedOf(b)) {
      std::vector<std::string> rel;
      for (size_t k = 0; k < a.dims.size(); ++k) rel.push_back(fmt::format("({}) - {}_lo{}", indexComponent(a.dims[k], x), st->var, k));
      return fmt::format("{}[{}]", st->var, stagedIndex(*st, rel));
    }
    return fmt::format("in_{}[{}]", b.name, linearIndex(b, a, x));
  }

  /// f at cell x; with `bases` (declarePanelPointers()), the accesses that
  /// have one read through it at element offsets `j`.
  std::string applyF(const std::vector<std::string> &x, const std::vector<std::string> &bases = {},
                     const std::vector<std::string> &j = {}) const {
    std::vector<std::string> args;
    if (P.usesIndices)
      for (size_t d = 0; d < D; ++d) args.push_back(x[d]);
    size_t ai = 0;
    for (const auto &b : P.inputs)
      for (const auto &a : b.accesses) {
        const size_t idx = ai++;
        args.push_back(idx < bases.size() && !bases[idx].empty() ? throughBase(b, a, bases[idx], j) : inputLoad(b, a, x));
      }
    return fmt::format("{}({})", fnName(*P.f), fmt::join(args, ", "));
  }

  // ---- kernel body ------------------------------------------------------------------------------------------
  void body() {
    std::vector<int64_t> sizes = ll::concreteSizes(P);
    for (size_t d = 0; d < D; ++d) line(fmt::format("const int64_t {} = {};", N(d), polyC(P.sizes[d])));
    std::string cells = "INT64_C(1)";
    for (size_t d = 0; d < D; ++d)
      if (!isRed(d)) cells += "*" + N(d);
    line(fmt::format("const int64_t mdh_cells = {};", cells));
    line("(void)mdh_cells;");
    if (C.streamStores) {
      // Rows written through accumulators stream only from a line-aligned
      // buffer (their segments start on lines only then); rows f writes
      // directly move their segments' ends onto lines themselves
      // (streamedRowLoops), so any buffer of whole cells streams.
      const bool direct = segmentsMoveOntoLines();
      std::vector<std::string> aligned;
      for (const auto &b : P.outputs)
        aligned.push_back(fmt::format("reinterpret_cast<uintptr_t>(out_{}) % {} == 0", b.name, direct ? fmt::format("sizeof({})", E) : "64"));
      line(fmt::format("const bool mdh_stream_ok = {}; // {}", fmt::join(aligned, " && "),
                       direct ? "whole cells: streamed segments align themselves" : "streamed rows start on cache lines"));
      line("(void)mdh_stream_ok;");
    }
    if (C.threads > 0) line(fmt::format("const int mdh_threads = {};", C.threads));
    else if (P.dynamicSizes.empty()) line("const int mdh_threads = omp_get_max_threads();");
    else {
      // The default's rule for small instances (ll::kMinParallelApplications), once the
      // run-time sizes are known; counted saturating, so that no product overflows.
      line("int64_t mdh_applications = 1;");
      for (size_t d = 0; d < D; ++d)
        line(fmt::format("mdh_applications = mdh_applications < INT64_C({0}) && {1} < INT64_C({0}) ? mdh_applications * {1} : INT64_C({0});",
                         ll::kMinParallelApplications, N(d)));
      line(fmt::format("const int mdh_threads = mdh_applications < INT64_C({}) ? 1 : omp_get_max_threads();", ll::kMinParallelApplications));
    }
    if (L.strategy == ll::Strategy::Canonical) canonical();
    else tiled();
  }

  void canonical() {
    if (!L.directOutput) line(fmt::format("mdh_array<{}> mdh_tmp(static_cast<size_t>(mdh_cells));", E));
    if (!scanDimensions(P).empty()) {
      canonicalScan();
      if (!L.directOutput) scatter("mdh_tmp.data()");
      return;
    }
    line("#pragma omp parallel for schedule(static) num_threads(mdh_threads)");
    open("for (int64_t q = 0; q < mdh_cells; ++q)");
    decodeOutCell("q", "c");
    std::vector<std::string> x(D);
    for (size_t d = 0; d < D; ++d) x[d] = fmt::format("i{}", d);
    fold(0, x);
    storeOut(outCoords("c"), "v0", "mdh_tmp.data()");
    close();
    if (!L.directOutput) scatter("mdh_tmp.data()");
  }

  /// The canonical strategy with prefix-sum dimensions: the cells of each block
  /// (one index combination of the concatenated dimensions) run sequentially, in
  /// ascending lexicographic order over the scanned dimensions, and every scanned
  /// dimension p carries its prefix (one value per carrySelectors(p)
  /// combination), so that a cell costs one combine per scan instead of a fold
  /// over all earlier elements (O(N) instead of O(N^2) for one scan, of N^2 instead
  /// of N^4 for two; 200000 elements took 25 s).  The running value of p at
  /// c<p> - 1 with the same later coordinates is the one the lexicographic order
  /// left there, and it restarts when c<p> is 0, i.e. whenever an earlier
  /// coordinate moved on.  Every carried value is the left fold in ascending
  /// order that fold() computes, so the bits are the same.
  void canonicalScan() {
    const auto scans = scanDimensions(P);
    std::string blockCells = "INT64_C(1)";
    for (size_t p : scans) blockCells += "*" + N(p);
    line(fmt::format("const int64_t mdh_block_cells = {};", blockCells));
    line("const int64_t mdh_blocks = mdh_block_cells > 0 ? mdh_cells / mdh_block_cells : 0;");
    // One slice of running values per thread, allocated before the region (a failure there
    // is the entry's status, see run()); 64 elements apart, so that threads writing their
    // single running value every cell do not share a cache line.
    for (size_t p : scans)
      line(fmt::format("mdh_array<{}> mdh_carries{}(static_cast<size_t>(mdh_threads) * static_cast<size_t>({} + 64));", E, p,
                       carrySlotCount(P, p)));
    line("#pragma omp parallel num_threads(mdh_threads)");
    open("");
    for (size_t p : scans)
      line(fmt::format("{0} *__restrict mdh_carry{1} = mdh_carries{1}.data() + static_cast<size_t>(omp_get_thread_num()) * "
                       "static_cast<size_t>({2} + 64);",
                       E, p, carrySlotCount(P, p)));
    line("#pragma omp for schedule(static)");
    open("for (int64_t mdh_block = 0; mdh_block < mdh_blocks; ++mdh_block)");
    for (const auto &l : blockCoordinates(P, "mdh_block", "mdh_rem")) line(l);
    for (size_t p : scans) open(fmt::format("for (int64_t c{0} = 0; c{0} < {1}; ++c{0})", p, N(p)));
    std::vector<std::string> x(D);
    for (size_t d = 0; d < D; ++d) x[d] = fmt::format("i{}", d);
    fold(0, x, true);
    storeOut(outCoords("c"), "v0", "mdh_tmp.data()");
    for (size_t i = 0; i < scans.size(); ++i) close();
    close();
    close();
  }

  /// v<d> = the part of Def. 9 for dims d..D-1 at the current prefix.  With
  /// `carryScans` (canonicalScan), a prefix-sum dimension is not folded from 0
  /// here: v<d> extends its running value by this element's inner fold.
  void fold(size_t d, const std::vector<std::string> &x, bool carryScans = false) {
    if (d == D) {
      line(fmt::format("const {} v{} = {};", E, d, applyF(x)));
      return;
    }
    const auto &op = P.ops[d];
    if (carryScans && op.kind == hl::CombineOperator::Kind::PrefixSum) {
      line(fmt::format("const int64_t i{} = c{};", d, d));
      fold(d + 1, x, carryScans);
      const std::string slot = fmt::format("mdh_carry{}[{}]", d, carrySlotIndex(P, d));
      line(fmt::format("{} = c{} == 0 ? v{} : {};", slot, d, d + 1, applyBinary(op.op, slot, fmt::format("v{}", d + 1))));
      line(fmt::format("const {} v{} = {};", E, d, slot));
      return;
    }
    if (op.kind == hl::CombineOperator::Kind::Concat) {
      line(fmt::format("const int64_t i{} = c{};", d, d));
      fold(d + 1, x, carryScans);
      line(fmt::format("const {} v{} = v{};", E, d, d + 1));
      return;
    }
    line(fmt::format("{} v{}{{}};", E, d));
    std::string bound = op.kind == hl::CombineOperator::Kind::PrefixSum ? fmt::format("i{} <= c{}", d, d) : fmt::format("i{} < {}", d, N(d));
    open(fmt::format("for (int64_t i{} = 0; {}; ++i{})", d, bound, d));
    fold(d + 1, x, carryScans);
    line(fmt::format("v{} = i{} == 0 ? v{} : {};", d, d, d + 1, applyBinary(op.op, fmt::format("v{}", d), fmt::format("v{}", d + 1))));
    close();
  }

  /// Writes the temporary output MDA through the output views. The cells are
  /// walked as a collapsed loop nest, not decoded from a linear index: two
  /// divisions per cell made this copy 3x the kernel's time (a 333x2000
  /// matmul with run-time sizes).
  void scatter(const std::string &temp) {
    size_t loops = 0;
    for (size_t d = 0; d < D; ++d) loops += !isRed(d);
    if (loops > 1) line(fmt::format("#pragma omp parallel for collapse({}) schedule(static) num_threads(mdh_threads)", loops));
    else if (loops == 1) line("#pragma omp parallel for schedule(static) num_threads(mdh_threads)");
    for (size_t d = 0; d < D; ++d)
      if (!isRed(d)) open(fmt::format("for (int64_t c{} = 0; c{} < {}; ++c{})", d, d, N(d), d));
    if (loops == 0) open("");
    auto c = outCoords("c");
    line(fmt::format("const {} mdh_v = {}[{}];", E, temp, outLinear(c)));
    auto comps = outputComponents();
    for (size_t i = 0; i < comps.size(); ++i)
      line(fmt::format("out_{}[{}] = mdh_v{};", comps[i].first->name, linearIndex(*comps[i].first, comps[i].first->accesses[comps[i].second], c),
                       comps.size() > 1 ? fmt::format("._{}", i) : ""));
    for (size_t i = 0; i < std::max<size_t>(loops, 1); ++i) close();
  }

  // ---- tiled strategy ----------------------------------------------------------------------------------------
  struct Loop {
    int level;
    int dim;
  };
  std::vector<Loop> tileLoops;

  std::string b(int level, size_t d) const { return fmt::format("b{}_{}", level, d); }
  std::string e(int level, size_t d) const { return fmt::format("e{}_{}", level, d); }
  int lastLevel() const { return int(C.levels.size()) - 1; }
  /// The tile extent of `level` along d: the configuration's, or, while an
  /// exact remainder branch of the register tile is emitted (vectorScope()),
  /// that remainder's extent at the last level.
  int64_t tile(int level, size_t d) const {
    if (!exactTile.empty() && level == lastLevel() && exactTile[d] > 0) return exactTile[d];
    return C.levels[size_t(level)].tile[d];
  }
  /// Per dimension, the extent that replaces the last level's tile (0: none).
  std::vector<int64_t> exactTile;

  /// Whether the element loops of the innermost level fully unroll dimension
  /// d: its extent is at most 64 and, when another extent of the tile is a
  /// loop too long to unroll (above 64), the unrolled extents together make at
  /// most 64 copies of that loop. Config::validate() bounds fully unrolled
  /// tiles; copies of whole loops cost far more to compile: 61 x 12 copies of
  /// a 71-element vectorised loop (a default scan tile) took GCC 142 s.
  /// `vectorLanes`: the nest walks the vector dimension in whole vectors of
  /// the vector accumulators (unrolled), not as a loop.
  bool unrolls(size_t d, bool vectorLanes = false) const {
    const int last = lastLevel();
    if (tile(last, d) > 64) return false;
    bool longLoop = false;
    int64_t copies = 1;
    for (size_t k = 0; k < D; ++k) {
      if (vectorLanes && int(k) == C.simdDim) continue;
      if (tile(last, k) > 64) longLoop = true;
      else copies = std::min<int64_t>(copies * tile(last, k), INT64_C(1) << 20);
    }
    return !longLoop || copies <= 64;
  }

  /// Run-time sizes far below the configuration's plan (a convolution of 56 x
  /// 56 with run-time sizes, in core tiles of 128: one part, so one core did
  /// all the work) leave fewer than two parts per thread: the run-time core
  /// tile of a concatenated dimension with the most whole register tiles (the
  /// vector dimension only when no other can be cut) is halved, evened out
  /// again, until there are enough parts or none can be cut.
  /// Each step shrinks a tile by at least one register tile, so it ends. The
  /// tiles only get smaller than configured: every buffer sized by them holds.
  void splitRunTimeParts(const std::vector<bool> &evened) {
    std::vector<size_t> cuttable;
    for (size_t d = 0; d < D; ++d)
      if (evened[d] && P.ops[d].kind == hl::CombineOperator::Kind::Concat) cuttable.push_back(d);
    if (cuttable.empty()) return;
    std::string parts = "INT64_C(1)";
    for (size_t d = 0; d < D; ++d) parts += fmt::format("*cp{}", d);
    open("while (mdh_threads > 1)");
    line(fmt::format("if ({} >= 2 * int64_t(mdh_threads)) break;", parts));
    line("int mdh_cut = -1;");
    line("int64_t mdh_most = 1;");
    // The vector dimension last: its halves end in narrow remainder tiles (131
    // columns in whole vectors: 96 + 35).
    for (size_t d : cuttable)
      if (int(d) != C.simdDim)
        line(fmt::format("if (ct{0} / {1} > mdh_most) {{ mdh_cut = {0}; mdh_most = ct{0} / {1}; }}", d, tile(lastLevel(), d)));
    for (size_t d : cuttable)
      if (int(d) == C.simdDim)
        line(fmt::format("if (mdh_cut < 0 && ct{0} / {1} > mdh_most) {{ mdh_cut = {0}; mdh_most = ct{0} / {1}; }}", d, tile(lastLevel(), d)));
    line("if (mdh_cut < 0) break;");
    for (size_t d : cuttable) {
      open(fmt::format("if (mdh_cut == {})", d));
      line(fmt::format("ct{0} = (({1} + 2 * cp{0} - 1) / (2 * cp{0}) + {2} - 1) / {2} * {2};", d, N(d), tile(lastLevel(), d)));
      line(fmt::format("cp{0} = ({1} + ct{0} - 1) / ct{0};", d, N(d)));
      close();
    }
    close();
  }

  void tiled() {
    if (L.streamedScan >= 0) {
      streamedScan(size_t(L.streamedScan));
      return;
    }
    const int last = lastLevel();
    bool redSplit = false;
    // A run-time size's core tile is the configured one evened out: as many
    // parts, of sizes that differ by at most one register tile (the default
    // plans 1024 for a run-time size; 333 rows in tiles of 256 gave one core
    // 256 rows and the other 77). Static sizes keep the configured tile, which
    // the tuner chose. Streamed stores need the configured line multiples.
    const std::vector<int64_t> known = ll::concreteSizes(P);
    std::vector<std::string> corTile(D);
    std::vector<bool> evened(D, false); // the core tile is the run-time ct<d>
    for (size_t d = 0; d < D; ++d) {
      corTile[d] = std::to_string(tile(0, d));
      if (known[d] > 0 || C.streamStores || tile(0, d) == 1) {
        line(fmt::format("const int64_t cp{} = ({} + {} - 1) / {};", d, N(d), tile(0, d), tile(0, d)));
        continue;
      }
      const int64_t unit = tile(last, d);
      line(fmt::format("const int64_t cp{0}_configured = ({1} + {2} - 1) / {2};", d, N(d), tile(0, d)));
      line(fmt::format("int64_t ct{0} = std::min<int64_t>({1}, (({2} + cp{0}_configured - 1) / cp{0}_configured + {3} - 1) / {3} * {3});",
                       d, tile(0, d), N(d), unit));
      line(fmt::format("int64_t cp{0} = ({1} + ct{0} - 1) / ct{0};", d, N(d)));
      corTile[d] = fmt::format("ct{}", d);
      evened[d] = true;
    }
    splitRunTimeParts(evened);
    // A reduction whose core tile no run-time size reaches is combined as one part
    // (ll::lower); a size beyond it would need the split the output does not allow.
    for (size_t d = 0; d < D; ++d)
      if (isRed(d) && known[d] <= 0 && tile(0, d) >= ll::kWholeRunTimeSize) {
        open(fmt::format("if (cp{} > 1)", d));
        line(fmt::format("std::fprintf(stderr, \"mdh (OpenMP): {}: run-time size {} = %lld exceeds the configuration's core tile "
                         "{} of its reduction; nothing computed\\n\", (long long){});",
                         shown, P.sizes[d].str(), tile(0, d), N(d)));
        line("return 1;");
        close();
      }
    std::string redParts = "INT64_C(1)", parts = "INT64_C(1)";
    for (size_t d = 0; d < D; ++d) {
      parts += fmt::format("*cp{}", d);
      if (isRed(d)) redParts += fmt::format("*cp{}", d);
    }
    for (size_t d = 0; d < D; ++d) redSplit |= isRed(d);
    line(fmt::format("const int64_t mdh_parts = {};", parts));
    line(fmt::format("const int64_t mdh_red_parts = {}; (void)mdh_red_parts;", redParts));
    // The temporary that holds the output MDA's partial results, or the
    // output buffer itself when it could (directUnlessSplit) and the run-time
    // sizes leave one reduction part.
    const bool inPlaceUnlessSplit = !L.directOutput && L.directUnlessSplit && outputKeepsTempLayout();
    std::string temp = "mdh_tmp.data()";
    if (inPlaceUnlessSplit) {
      line(fmt::format("mdh_array<{}> mdh_tmp(static_cast<size_t>(mdh_red_parts > 1 ? mdh_cells * mdh_red_parts : 0));", E));
      line(fmt::format("{} *const mdh_cells_at = mdh_red_parts > 1 ? mdh_tmp.data() : out_{};", E, P.outputs[0].name));
      temp = "mdh_cells_at";
    } else if (!L.directOutput) {
      line(fmt::format("mdh_array<{}> mdh_tmp(static_cast<size_t>(mdh_cells * mdh_red_parts));", E));
    }
    // Per-thread staging regions and (large) accumulators, allocated for all
    // threads before the parallel region: an allocation that fails there is
    // the entry's status 2 with the outputs untouched, where one inside the
    // region threw out of it and terminated the process (a configuration whose
    // last level spans a run-time size of 2^40).
    std::vector<std::string> perThread; // lines that take each thread's slice, inside the region
    auto slice = [&](const std::string &type, const std::string &var, int64_t elems) {
      // A local helper, emitted only by kernels that slice (the shared helpers, and with
      // them the code hashes that key tuning records, stay as they were for the others).
      if (perThread.empty()) {
        line("// n elements for each of k threads, or std::bad_alloc when no allocation can hold them.");
        line("auto mdh_scratch_elems = [](int64_t n, int64_t k) -> size_t {");
        line("  if (n < 0 || k < 1 || uint64_t(n) > uint64_t(PTRDIFF_MAX) / 16 / uint64_t(k)) throw std::bad_alloc();");
        line("  return size_t(n) * size_t(k);");
        line("};");
      }
      line(fmt::format("mdh_array<{}> {}_mem(mdh_scratch_elems(INT64_C({}), mdh_threads));", type, var, elems));
      perThread.push_back(fmt::format("{} *__restrict {} = {}_mem.data() + static_cast<size_t>({}) * static_cast<size_t>(omp_get_thread_num());",
                                      type, var, var, elems));
    };
    for (const auto &s : C.stages) {
      const hl::Buffer *buf = nullptr;
      for (const auto &bb : P.inputs)
        if (bb.name == s.buffer) buf = &bb;
      if (!buf) continue;
      int lv = C.levelIndex(s.layer);
      std::vector<int64_t> ext;
      for (size_t k = 0; k < buf->shape.size(); ++k) ext.push_back(ll::tileFootprint(*buf, k, C.levels[size_t(lv)].tile));
      std::vector<int> layout = s.layout;
      if (layout.empty()) {
        layout.resize(buf->shape.size());
        std::iota(layout.begin(), layout.end(), 0);
      }
      std::string var = fmt::format("stage_{}_{}", s.buffer, s.layer);
      int64_t total = ll::stageElements(*buf, s, C.levels[size_t(lv)].tile);
      slice(cType(buf->elem), var, total);
      // The region last copied into this thread's buffer (lo and extent per
      // buffer dimension; none yet): a tile that needs the same region again
      // (a filter that every part reads whole) reuses it instead of copying.
      perThread.push_back(fmt::format("int64_t {}_held[{}] = {{}};", var, std::max<size_t>(1, 2 * buf->shape.size())));
      perThread.push_back(fmt::format("bool {}_holds = false;", var));
      pendingStages.push_back({buf, var, layout, ext, lv, layout.empty() ? 0 : s.panel});
    }
    int64_t accCells = 1;
    for (size_t d = 0; d < D; ++d)
      if (L.kept[d]) accCells = accCells > (int64_t(1) << 62) / std::max<int64_t>(tile(last, d), 1) ? (int64_t(1) << 62) : accCells * tile(last, d);
    accSize = accCells;
    if (accCells > 1024 && !streamsRowsDirectly()) slice(E, "mdh_acc", accCells);
    line("#pragma omp parallel num_threads(mdh_threads)");
    open("");
    for (const auto &l : perThread) line(l);
    line("#pragma omp for schedule(static)");
    open("for (int64_t part = 0; part < mdh_parts; ++part)");
    line("int64_t mdh_rem = part;");
    const auto &order0 = C.levels[0].order;
    for (size_t i = D; i-- > 0;) {
      size_t d = size_t(order0[i]);
      line(fmt::format("const int64_t t{} = mdh_rem % cp{}; mdh_rem /= cp{};", d, d, d));
    }
    line("(void)mdh_rem;");
    for (size_t d = 0; d < D; ++d) {
      line(fmt::format("const int64_t {} = t{} * {};", b(0, d), d, corTile[d]));
      line(fmt::format("const int64_t {} = std::min<int64_t>({}, {} - {});", e(0, d), corTile[d], N(d), b(0, d)));
    }
    std::string red = "INT64_C(0)";
    for (size_t d = 0; d < D; ++d)
      if (isRed(d)) red = fmt::format("({})*cp{} + t{}", red, d, d);
    line(fmt::format("const int64_t mdh_red = {};", red));
    line("(void)mdh_red;");
    dst = L.directOutput ? "" : fmt::format("({} + mdh_red * mdh_cells)", temp);
    if (!L.directOutput) line(fmt::format("{} *__restrict mdh_dst = {};", E, dst));
    dst = "mdh_dst";
    stageAt(0);
    tileLoops.clear();
    for (int lv = 1; lv <= last; ++lv)
      for (int d : C.levels[size_t(lv)].order) tileLoops.push_back({lv, d});
    emitTileLoops(0);
    close(); // for part
    if (C.streamStores) line("mdh_stream_fence(); // streaming stores are weakly ordered: drain them before the join");
    close(); // parallel
    // Partial results of parts that split a reduction, combined in part order.
    if (!L.directOutput && redSplit) {
      open("if (mdh_red_parts > 1)");
      line("#pragma omp parallel for schedule(static) num_threads(mdh_threads)");
      open("for (int64_t q = 0; q < mdh_cells; ++q)");
      line(fmt::format("{} mdh_v = mdh_tmp[size_t(q)];", E));
      line(fmt::format("for (int64_t r = 1; r < mdh_red_parts; ++r) mdh_v = {};",
                       applyBinary(*L.op, "mdh_v", "mdh_tmp[size_t(r * mdh_cells + q)]")));
      line("mdh_tmp[size_t(q)] = mdh_v;");
      close();
      close();
    }
    for (size_t d = 0; d < D; ++d)
      if (L.prefix[d]) scan(d, L.directOutput ? "" : temp);
    if (inPlaceUnlessSplit) {
      open("if (mdh_red_parts > 1)");
      scatter(temp);
      close();
    } else if (!L.directOutput) {
      scatter(temp);
    }
  }

  std::string dst;
  int64_t accSize = 1;
  std::vector<Staged> pendingStages;

  /// The dimension of the `level` loop after whose opening `s` is copied:
  /// the innermost of the level's loops over a dimension that the buffer's
  /// accesses depend on, since the loops inside it see the same region
  /// (A[i,k] staged at a level ordered (i,k,j) is copied once per (i,k), not
  /// once per j tile); the level's first loop when no access depends on any.
  int stageAnchorDim(const Staged &s) const {
    const auto &order = C.levels[size_t(s.level)].order;
    int anchor = order.empty() ? -1 : order.front();
    for (int d : order)
      for (const auto &a : s.buffer->accesses)
        for (const auto &dim : a.dims)
          if (dim.coeff(size_t(d)) != 0) anchor = d;
    return anchor;
  }

  /// Copies the pending stages of `level` (those anchored at loop dimension
  /// `anchorDim`; all of them when it is -1) into their local regions.
  void stageAt(int level, int anchorDim = -1) {
    for (const auto &s : pendingStages) {
      if (s.level != level || (anchorDim >= 0 && stageAnchorDim(s) != anchorDim)) continue;
      const hl::Buffer &buf = *s.buffer;
      // Footprint of the current tile: lo and extent per buffer dimension.
      for (size_t k = 0; k < buf.shape.size(); ++k) {
        std::vector<std::string> los, his;
        for (const auto &a : buf.accesses) {
          std::string lo = polyC(a.dims[k].offset), hi = lo;
          for (size_t d = 0; d < D; ++d) {
            int64_t c = a.dims[k].coeff(d);
            if (c == 0) continue;
            std::string first = b(level, d), lastIdx = fmt::format("({} + {} - 1)", b(level, d), e(level, d));
            lo += fmt::format(" + INT64_C({})*{}", c, c > 0 ? first : lastIdx);
            hi += fmt::format(" + INT64_C({})*{}", c, c > 0 ? lastIdx : first);
          }
          los.push_back(lo);
          his.push_back(hi);
        }
        std::string lo = los[0], hi = his[0];
        for (size_t i = 1; i < los.size(); ++i) {
          lo = fmt::format("std::min<int64_t>({}, {})", lo, los[i]);
          hi = fmt::format("std::max<int64_t>({}, {})", hi, his[i]);
        }
        line(fmt::format("const int64_t {}_lo{} = {};", s.var, k, lo));
        line(fmt::format("const int64_t {}_n{} = {} - {}_lo{} + 1;", s.var, k, hi, s.var, k));
      }
      // Inputs do not change during a call, so a region equal to the one the
      // buffer holds is already in place. The region is compared as one block
      // (memcmp), not bound by bound: from the equalities of a bound-by-bound
      // test GCC 12.2 derived wrong value ranges at -O2 for AVX-512 targets and
      // computed a MobileNet MCC wrong (docs/compiler.md, "A host-compiler bug").
      if (buf.shape.empty()) {
        open(fmt::format("if (!{}_holds)", s.var));
      } else {
        std::vector<std::string> want;
        for (size_t k = 0; k < buf.shape.size(); ++k) {
          want.push_back(fmt::format("{}_lo{}", s.var, k));
          want.push_back(fmt::format("{}_n{}", s.var, k));
        }
        line(fmt::format("const int64_t {}_want[{}] = {{{}}};", s.var, want.size(), joined(want, ", ")));
        open(fmt::format("if (!({0}_holds && std::memcmp({0}_held, {0}_want, sizeof {0}_want) == 0))", s.var));
        line(fmt::format("std::memcpy({0}_held, {0}_want, sizeof {0}_want);", s.var));
      }
      line(fmt::format("{}_holds = true;", s.var));
      // Copy the tile into the configured layout, walking it in the layout's
      // order. Panels cut one dimension into blocks; where that dimension is
      // the buffer's contiguous one (B of a MatMul: panels of columns), the
      // block loop runs inside the other dimensions', so that every buffer row
      // is read once, in order, and written to one place per block: walking
      // block by block instead read one panel's width from each of the tile's
      // rows (256 rows 4 KiB apart, all in the same L1 sets): 13.5% of MatMul
      // 1024^3's samples on a Zen 3 (docs/compiler.md, "Configurations"). Otherwise the
      // blocks stay outermost, so that writes are contiguous; reads then
      // follow as many rows of the buffer at once as the panel spans (a panel
      // of 8 rows of A: 8 streams).
      auto gst = strides(buf);
      const bool blocksInsideRows = s.panel > 0 && s.panelDim() + 1 == buf.shape.size() && s.layout.size() > 1;
      int opened = 1; // the if above
      std::string block, within;
      if (s.panel > 0) {
        const size_t k = s.panelDim();
        block = fmt::format("s{}p", k);
        within = fmt::format("s{} - s{}p * INT64_C({})", k, k, s.panel);
      }
      auto openBlockLoop = [&] {
        const size_t k = s.panelDim();
        open(fmt::format("for (int64_t s{}p = 0; s{}p * INT64_C({}) < {}_n{}; ++s{}p)", k, k, s.panel, s.var, k, k));
      };
      if (s.panel > 0 && !blocksInsideRows) {
        openBlockLoop();
        ++opened;
      }
      std::vector<std::string> rel, gparts;
      for (size_t k = 0; k < buf.shape.size(); ++k) {
        rel.push_back(fmt::format("s{}", k));
        gparts.push_back(fmt::format("({}_lo{} + s{})*{}", s.var, k, k, gst[k]));
      }
      const std::string copyStatement = fmt::format("{}[{}] = in_{}[{}];", s.var, stagedIndex(s, rel, block, within),
                                                    buf.name, gparts.empty() ? "0" : joined(gparts, " + "));
      // A full panel is copied by a loop of constant trip count, which the
      // compiler turns into a few vector moves; a runtime bound made it call
      // memcpy once per panel row (14% of a 1008x1024x1024 MatMul).
      auto panelLoop = [&](bool fullPanel) {
        const size_t k = s.panelDim();
        open(fullPanel ? fmt::format("for (int64_t s{0} = s{0}p * INT64_C({1}); s{0} < (s{0}p + 1) * INT64_C({1}); ++s{0})", k, s.panel)
                       : fmt::format("for (int64_t s{0} = s{0}p * INT64_C({1}); s{0} < std::min<int64_t>({2}_n{0}, (s{0}p + 1) * INT64_C({1})); ++s{0})",
                                     k, s.panel, s.var));
      };
      auto fullOrPartialPanel = [&](auto body) {
        const size_t k = s.panelDim();
        open(fmt::format("if ((s{0}p + 1) * INT64_C({1}) <= {2}_n{0})", k, s.panel, s.var));
        body(true);
        close("} else {");
        ++indent;
        body(false);
        close();
      };
      auto copyNest = [&](bool fullPanel) {
        int nest = 0;
        for (int kk : s.layout) {
          const size_t k = size_t(kk);
          if (s.panel > 0 && k == s.panelDim())
            panelLoop(fullPanel);
          else
            open(fmt::format("for (int64_t s{} = 0; s{} < {}_n{}; ++s{})", k, k, s.var, k, k));
          ++nest;
        }
        line(copyStatement);
        for (int i = 0; i < nest; ++i) close();
      };
      if (blocksInsideRows) {
        // The panel dimension is innermost in the layout here (it is the
        // layout's last entry), so the other dimensions' loops enclose it.
        int nest = 0;
        for (size_t m = 0; m + 1 < s.layout.size(); ++m) {
          const size_t k = size_t(s.layout[m]);
          open(fmt::format("for (int64_t s{} = 0; s{} < {}_n{}; ++s{})", k, k, s.var, k, k));
          ++nest;
        }
        openBlockLoop();
        fullOrPartialPanel([&](bool full) {
          panelLoop(full);
          line(copyStatement);
          close();
        });
        close();
        for (int i = 0; i < nest; ++i) close();
      } else if (s.panel > 0) {
        fullOrPartialPanel(copyNest);
      } else {
        copyNest(false);
      }
      for (int i = 0; i < opened; ++i) close();
      staged.push_back(s);
    }
  }

  /// Emits tile loop i of tileLoops (and everything inside it).
  void emitTileLoops(size_t i) {
    if (int(i) == L.scopeStart) {
      scope(i);
      return;
    }
    const Loop &lp = tileLoops[i];
    emitOneTileLoop(lp, [&] { emitTileLoops(i + 1); });
  }

  /// `start`: the first tile's start, where not the enclosing tile's (fmaTileLoopFirst()).
  template <class Inner> void emitOneTileLoop(const Loop &lp, Inner inner, const std::string &start = "") {
    size_t d = size_t(lp.dim);
    int l = lp.level;
    open(fmt::format("for (int64_t {} = {}; {} < {} + {}; {} += {})", b(l, d), start.empty() ? b(l - 1, d) : start, b(l, d),
                     b(l - 1, d), e(l - 1, d), b(l, d), tile(l, d)));
    line(fmt::format("const int64_t {} = std::min<int64_t>({}, {} + {} - {});", e(l, d), tile(l, d), b(l - 1, d), e(l - 1, d), b(l, d)));
    size_t stagedBefore = staged.size();
    stageAt(l, lp.dim);
    inner();
    staged.resize(stagedBefore);
    close();
  }

  std::string firstOf(const std::vector<Loop> &loops) const {
    std::vector<std::string> conds;
    for (const auto &lp : loops)
      if (isRed(size_t(lp.dim))) conds.push_back(fmt::format("{} == {}", b(lp.level, size_t(lp.dim)), b(lp.level - 1, size_t(lp.dim))));
    return conds.empty() ? "true" : joined(conds, " && ");
  }

  /// The accumulation scope: accumulators, the remaining (reduced) tile
  /// loops, the element loops, and the flush into the output.
  void scope(size_t i) {
    std::vector<Loop> outer(tileLoops.begin(), tileLoops.begin() + long(i));
    std::vector<Loop> inner(tileLoops.begin() + long(i), tileLoops.end());
    std::string id = L.op ? identityOf(*L.op) : "";
    open("");
    std::string scopeFirst = firstOf(inner);
    if (streamsRowsDirectly()) {
      emitInner(inner, 0, id, scopeFirst); // no accumulators: f goes straight to the output
      close();
      return;
    }
    // Padded rows (padsLanes()) store whole vectors past the last row's cells.
    if (accSize <= 1024) line(fmt::format("{} mdh_acc[{}];", E, vectorTileApplies() && padsLanes() ? accSize + 64 : accSize));
    const std::string initAcc = id.empty() ? "" : fmt::format("for (int64_t a = 0; a < {}; ++a) mdh_acc[a] = {};", accSize, id);
    if (vectorTileApplies()) {
      vectorScope(inner, id, scopeFirst, firstOf(outer), initAcc); // flushes in each branch
    } else {
      if (!initAcc.empty()) line(initAcc);
      emitInner(inner, 0, id, scopeFirst);
      flush(firstOf(outer));
    }
    close();
  }

  // ---- register tiles in vector registers ------------------------------------------------------------------
  // The accumulators of a full tile live in GCC vector variables (one per
  // `mdh_lanes` cells of the vector dimension) instead of the mdh_acc array,
  // which compilers keep in memory.  Each lane computes exactly what the
  // scalar path computes for its cell, in the same order, so both paths
  // give the same bits; mdh_acc then receives the vector accumulators for the
  // usual flush.

  /// Whether the scope can use vector accumulators (decided at emission; the
  /// tile-extent condition is checked by the generated code).
  bool vectorTileApplies() const {
    const int s = C.simdDim;
    if (L.strategy != ll::Strategy::Tiled || !L.op || L.op->kind != hl::BinaryOperator::Kind::Builtin) return false;
    // The reductions whose identity starts every lane and that vectorBinary gives lane-wise.
    const hl::BuiltinOp op = L.op->builtin;
    if (op != hl::BuiltinOp::Add && op != hl::BuiltinOp::Mul && op != hl::BuiltinOp::Max && op != hl::BuiltinOp::Min)
      return false;
    if (!hasLanewiseF()) return false;
    return s >= 0 && L.kept[size_t(s)] && accSize <= 1024; // accDims() puts it innermost
  }

  /// Lane stride of an input access along the vector dimension: 0 (one value
  /// for all lanes), 1 (consecutive elements), 2 (consecutive inside one
  /// panel of a staged region when panelAligned() holds), or -1 (anything
  /// else: gathered).
  int laneStride(const hl::Buffer &b, const hl::Access &a) const { return laneStride(b, a, size_t(C.simdDim)); }
  int laneStride(const hl::Buffer &b, const hl::Access &a, size_t s) const {
    const Staged *st = stagedOf(b);
    int nonzero = 0, contiguousDim = -1;
    for (size_t k = 0; k < a.dims.size(); ++k)
      if (a.dims[k].coeff(s) != 0) ++nonzero, contiguousDim = int(k);
    if (nonzero == 0) return 0;
    if (nonzero > 1 || a.dims[size_t(contiguousDim)].coeff(s) != 1) return -1;
    if (st && st->layout.back() != contiguousDim) return -1;
    if (st && st->panel > 0) return panelAligned(*st, a).empty() ? -1 : 2;
    if (st) return 1;
    return contiguousDim + 1 == int(a.dims.size()) ? 1 : -1;
  }

  /// A constant condition (the compiler folds it) under which every lane
  /// group of access `a` starts on a multiple of mdh_lanes inside a panel,
  /// so it never straddles two; "" when that cannot hold (the panel index
  /// also moves with other dimensions, or offsets are not constants).
  std::string panelAligned(const Staged &st, const hl::Access &a) const {
    const size_t s = size_t(C.simdDim), k = st.panelDim();
    for (size_t d = 0; d < D; ++d)
      if (d != s && a.dims[k].coeff(d) != 0) return "";
    auto off = a.dims[k].offset.constantValue();
    if (!off) return "";
    int64_t minOff = *off;
    for (const auto &other : st.buffer->accesses) {
      auto o = other.dims[k].offset.constantValue();
      if (!o) return "";
      minOff = std::min(minOff, *o);
    }
    std::vector<std::string> conds = {fmt::format("INT64_C({}) % mdh_lanes == 0", st.panel),
                                      fmt::format("INT64_C({}) % mdh_lanes == 0", *off - minOff)};
    // Tiles of the levels inside the staging level start at multiples of their extents.
    for (int l = st.level + 1; l <= lastLevel(); ++l) conds.push_back(fmt::format("INT64_C({}) % mdh_lanes == 0", tile(l, s)));
    return joined(conds, " && ");
  }

  /// The lanes of access `a` starting at x, element by element.
  std::string gather(const hl::Buffer &b, const hl::Access &a, const std::vector<std::string> &x) const {
    return gather(b, a, x, size_t(C.simdDim));
  }
  /// `lane`: the lane whose cell each lane l reads (a row's partial vectors
  /// clamp it into their cells).
  std::string gather(const hl::Buffer &b, const hl::Access &a, const std::vector<std::string> &x, size_t s,
                     const std::string &lane = "l") const {
    std::vector<std::string> xl = x;
    xl[s] = fmt::format("({} + {})", x[s], lane);
    return fmt::format("[&] {{ {} g; for (int64_t l = 0; l < mdh_lanes; ++l) g[l] = {}; return g; }}()", lanesOf(b), inputLoad(b, a, xl));
  }

  /// The vector of mdh_lanes elements of buffer b's type.
  std::string lanesOf(const hl::Buffer &b) const { return fmt::format("mdh_vt<{}, mdh_lanes>", cType(b.elem)); }

  /// The lanes [0, extent) of a tile narrower than one vector, read from `at` (maskLanes).
  std::string maskedLoad(const hl::Buffer &b, const std::string &at) const {
    return fmt::format("mdh_vload_first<{}>(&{}, {})", lanesOf(b), at,
                       maskReduced ? std::string("mdh_n") : e(lastLevel(), size_t(C.simdDim)));
  }

  /// Whether every lane a tile narrower than one vector loads stays inside its buffer:
  /// an unstaged input is read with masks (maskedLoad) and must be a broadcast or read
  /// consecutive elements across the vector dimension (a gathered lane past the tile's
  /// extent could fall outside it); a staged one is read as for a full tile, inside the
  /// thread's region, which holds a full tile (the lanes past the extent are not stored).
  bool lanesLoadMasked() const {
    for (const auto &b : P.inputs)
      for (const auto &a : b.accesses)
        if (const int st = laneStride(b, a); !stagedOf(b) && st != 0 && st != 1) return false;
    return true;
  }

  /// A masked load replaces a full vector's (maskLanes): unstaged inputs only.
  bool loadsMasked(const hl::Buffer &b) const { return maskReduced || (maskLanes && (!stagedOf(b) || padsLanes())); }

  /// Whether a register tile's remainder along a reduced vector dimension (a GEMV of 37
  /// columns in tiles of 32: 5) runs vector code over its extent, the last vector on
  /// masked lanes whose others hold the reduction's identity, instead of the scalar loops
  /// between a spill and a reload of the vector accumulators: lane-wise accumulators (not
  /// narrow counts), such remainders occur, and every input access reads one element or
  /// consecutive ones across the vector dimension (masked loads read nothing past it).
  bool maskedReductionApplies() const {
    if (C.simdDim < 0 || !L.op) return false;
    const size_t s = size_t(C.simdDim);
    if (!isRed(s) || narrow.bytes || !mayBePartial(s)) return false;
    return everyInputReadsLanesConsecutively(s);
  }

  /// The element loops of a remainder along the reduced vector dimension in vectors over
  /// its extent, lanes past it holding the identity (maskedReductionApplies()).
  void maskedReductionLoops() {
    maskReduced = usedMaskedReduction = usedMaskedLanes = true;
    vectorElementLoops(true);
    maskReduced = false;
  }

  /// Whether remainder tiles narrower than one vector along a concatenated vector
  /// dimension run the vector code on masked lanes [0, extent) instead of the scalar
  /// loops: every input access across it is a broadcast or reads consecutive elements
  /// (a gathered lane past the extent could fall outside its buffer), and such tiles
  /// can occur. A batched 4 x 4 x 4 product with run-time sizes, register tiles of 32
  /// lanes: every tile a remainder of 4.
  bool maskedLaneTiles() const {
    if (C.simdDim < 0 || !vectorTileApplies()) return false;
    const size_t s = size_t(C.simdDim);
    if (isRed(s) || narrowCounting().bytes || (!mayBePartial(s) && !padsLanes()) || !lanesLoadMasked()) return false;
    const std::set<int64_t> extents = lastLevelExtents(s);
    if (extents.empty()) return true;
    const int64_t widest = 64 / int64_t(P.f->result.size()); // lanes of an AVX-512 vector
    for (int64_t n : extents)
      if (n < widest) return true;
    return false;
  }

  /// Address steps of access `a` per element of the register tile, one per
  /// dimension (C expressions), when its address inside the tile is the
  /// address of the tile's first element plus a linear function of the
  /// element indices; none otherwise.  Then the micro-kernel reads through
  /// one pointer per access with constant displacements, instead of the
  /// compiler keeping one pointer per row of the tile (8 rows of A: 8
  /// registers, spilled once the accumulators take the rest).  With panels,
  /// the panel dimension is linear only while the tile stays inside one
  /// panel: its single index dimension moves with coefficient 1, the tile
  /// extent T divides the panel, and every tile start inside the staging
  /// level (enclosing tiles, constant offset differences) is a multiple of T.
  std::optional<std::vector<std::string>> elementSteps(const hl::Buffer &b, const hl::Access &a) const {
    const int last = lastLevel();
    std::vector<std::string> memStride;
    const Staged *st = stagedOf(b);
    if (!st) {
      memStride = strides(b);
    } else {
      const std::vector<int64_t> lstride = layoutStrides(*st);
      for (size_t k = 0; k < st->layout.size(); ++k) memStride.push_back(fmt::format("INT64_C({})", lstride[k]));
      if (st->panel > 0) {
        const size_t k = st->panelDim();
        int moving = -1;
        for (size_t d = 0; d < D; ++d) {
          int64_t c = a.dims[k].coeff(d);
          if (c == 0) continue;
          if (c != 1 || moving >= 0) return std::nullopt;
          moving = int(d);
        }
        if (moving >= 0) {
          const size_t d = size_t(moving);
          // The configured tile: a remainder tile starts where a full one would.
          const int64_t T = C.levels[size_t(last)].tile[d];
          if (st->panel % T != 0) return std::nullopt;
          for (int l = st->level + 1; l <= last; ++l)
            if (tile(l, d) % T != 0) return std::nullopt;
          auto off = a.dims[k].offset.constantValue();
          if (!off) return std::nullopt;
          for (const auto &other : st->buffer->accesses) {
            auto o = other.dims[k].offset.constantValue();
            if (!o || (*off - *o) % T != 0) return std::nullopt;
          }
        }
      }
    }
    std::vector<std::string> steps(D);
    for (size_t d = 0; d < D; ++d) {
      std::vector<std::string> terms;
      for (size_t k = 0; k < a.dims.size(); ++k)
        if (int64_t c = a.dims[k].coeff(d); c != 0) terms.push_back(c == 1 ? memStride[k] : fmt::format("INT64_C({})*{}", c, memStride[k]));
      steps[d] = terms.empty() ? "INT64_C(0)" : terms.size() == 1 ? terms[0] : "(" + joined(terms, " + ") + ")";
    }
    return steps;
  }

  /// Base pointers `<prefix><k>`, declared here at the tile's first element
  /// `x0`, for the input accesses that `wanted` accepts and whose address is
  /// linear in the element indices (elementSteps()); one entry per input
  /// access in applyF()'s order ("" where the access keeps its full index
  /// expression).
  template <class Wanted>
  std::vector<std::string> declareBasePointers(const std::vector<std::string> &x0, const char *prefix, Wanted wanted,
                                               bool opaque = false) {
    std::vector<std::string> bases;
    for (const auto &b : P.inputs)
      for (const auto &a : b.accesses) {
        if (!wanted(b, a) || !elementSteps(b, a)) {
          bases.push_back("");
          continue;
        }
        bases.push_back(fmt::format("{}{}", prefix, bases.size()));
        line(fmt::format(opaque && windowsOverlap(a) ? "const {} *const {} = mdh_opaque(&{});" : "const {} *const {} = &{};",
                         cType(b.elem), bases.back(), inputLoad(b, a, x0)));
      }
    return bases;
  }

  /// Whether rows of the register tile read, at a later reduction step, what
  /// other rows read before: a row dimension and a reduced dimension move the
  /// same index component of access `a` (a convolution's window, 2q + s).
  /// Only then can GCC's predictive commoning relate the steps' reads, so only
  /// then does the tile's base pointer go through mdh_opaque (elsewhere the
  /// asm would only cost a register copy per step).
  bool windowsOverlap(const hl::Access &a) const {
    for (const auto &dim : a.dims)
      for (size_t d = 0; d < D; ++d)
        if (clampsRows(d) && dim.coeff(d) != 0)
          for (size_t e = 0; e < D; ++e)
            if (isRed(e) && dim.coeff(e) != 0) return true;
    return false;
  }

  /// Element reads of the register tile through per-access base pointers,
  /// for every access read as whole vectors or broadcast.
  std::vector<std::string> declareTilePointers(const std::vector<std::string> &x0) {
    return declareBasePointers(x0, "mdh_p", [&](const hl::Buffer &b, const hl::Access &a) { return laneStride(b, a) >= 0; }, true);
  }

  /// The element of access `a` at element offsets `j` from the tile's first
  /// element, read through its base pointer (elementSteps() holds).
  std::string throughBase(const hl::Buffer &b, const hl::Access &a, const std::string &base,
                          const std::vector<std::string> &j) const {
    const auto steps = *elementSteps(b, a);
    std::vector<std::string> terms;
    for (size_t d = 0; d < D; ++d)
      if (steps[d] != "INT64_C(0)") terms.push_back(steps[d] == "INT64_C(1)" ? j[d] : fmt::format("{}*{}", steps[d], j[d]));
    return fmt::format("{}[{}]", base, terms.empty() ? "0" : joined(terms, " + "));
  }

  /// Base pointers for the scalar element loops, declared here for the tile
  /// at its start, for the accesses into staged panels only: their index
  /// divides by the panel width, which GCC vectorises with gathers (a
  /// 16x1000x2048 MatMul with B in panels of 32: 1.5 ms, a quarter of it in
  /// the gathers of its 8-column remainder tiles; 0.75 ms through pointers),
  /// while inside one panel the tile's elements are linear (elementSteps()).
  /// A remainder tile starts where a full one would, so it stays inside the
  /// panel too.
  std::vector<std::string> declarePanelPointers() {
    std::vector<std::string> x0(D);
    for (size_t d = 0; d < D; ++d) x0[d] = b(lastLevel(), d);
    return declareBasePointers(x0, "mdh_q", [&](const hl::Buffer &b, const hl::Access &) {
      const Staged *st = stagedOf(b);
      return st && st->panel > 0;
    });
  }

  /// Whether the register tile reads the same vectors of access `a` for
  /// several of its cells: the access ignores a dimension other than the
  /// vector one whose innermost tile has more than one element (a MatMul's or
  /// a convolution's weights across the rows of the tile). Such loads go
  /// through mdh_vload_reg, so that GCC keeps them in registers instead of
  /// folding one memory operand into every FMA that uses them: on AMD Zen 4
  /// those re-loads made a 4x64 convolution tile 1.8x slower (1.9 -> 1.03 ms,
  /// VGG-16's first layer), while loads used once are as fast folded.
  bool reusedInRegisterTile(const hl::Access &a) const {
    const int last = lastLevel();
    for (size_t d = 0; d < D; ++d) {
      if (int(d) == C.simdDim || tile(last, d) <= 1) continue;
      bool uses = false;
      for (const auto &ix : a.dims) uses = uses || ix.coeff(d) != 0;
      if (!uses) return true;
    }
    return false;
  }

  std::string vload(const hl::Access &a) const { return reusedInRegisterTile(a) ? "mdh_vload_reg" : "mdh_vload"; }

  /// f applied to the lanes starting at x (x[simdDim] is the first lane);
  /// with `bases` (declareTilePointers()), reads through the base pointers at
  /// element offsets `j` (j[simdDim] counts lanes).
  std::string applyVectorF(const std::vector<std::string> &x, const std::vector<std::string> &bases = {},
                           const std::vector<std::string> &j = {}, const std::string &narrowAcc = "") const {
    std::vector<std::string> args;
    if (narrow.bytes) args.push_back(narrowAcc); // the narrow variant adds f to it
    size_t ai = 0;
    for (const auto &b : P.inputs)
      for (const auto &a : b.accesses) {
        const size_t idx = ai++;
        if (idx < bases.size() && !bases[idx].empty()) {
          const std::string at = throughBase(b, a, bases[idx], j);
          args.push_back(laneStride(b, a) == 0 ? fmt::format("mdh_vsplat<{}>({})", lanesOf(b), at)
                         : loadsMasked(b)        ? maskedLoad(b, at)
                                                 : fmt::format("{}<{}>(&{})", vload(a), lanesOf(b), at));
          continue;
        }
        switch (laneStride(b, a)) {
        case 0: args.push_back(fmt::format("mdh_vsplat<{}>({})", lanesOf(b), inputLoad(b, a, x))); break;
        case 1:
          args.push_back(loadsMasked(b) ? maskedLoad(b, inputLoad(b, a, x)) : fmt::format("{}<{}>(&{})", vload(a), lanesOf(b), inputLoad(b, a, x)));
          break;
        case 2:
          // A shifted vector (laneOffset()) may start anywhere in a panel: gathered.
          if (clampLanes) args.push_back(gather(b, a, x));
          else args.push_back(fmt::format("(({}) ? mdh_vload<{}>(&{}) : {})", panelAligned(*stagedOf(b), a), lanesOf(b), inputLoad(b, a, x), gather(b, a, x)));
          break;
        default: args.push_back(gather(b, a, x));
        }
      }
    if (narrow.bytes) return fmt::format("{}<{}, mdh_lanes>({})", narrowVectorFnName(*P.f), laneType(), fmt::join(args, ", "));
    return fmt::format("{}<mdh_lanes>({})", vectorFnName(*P.f), fmt::join(args, ", "));
  }

  /// mdh_vacc index of the vector holding cell j (jv: vector index along simdDim).
  std::string vaccIndex(const std::vector<std::string> &j, const std::string &jv) const {
    const int last = lastLevel();
    std::string idx = "0";
    for (size_t d : accDims()) {
      bool vd = int(d) == C.simdDim;
      std::string ext = vd ? vectorsPerRow(true) : fmt::format("INT64_C({})", tile(last, d));
      std::string v = vd ? jv : j[d];
      idx = idx == "0" ? v : fmt::format("({})*{} + {}", idx, ext, v);
    }
    return idx;
  }

  /// `initAcc` (the identity into mdh_acc) runs in the scalar branch only:
  /// the vector branch writes every mdh_acc cell from the vector
  /// accumulators before it reads one (vaccToAcc()), and the 1-KiB fill per
  /// tile, which GCC kept ahead of the branch, was the hottest loop of a
  /// 224x224x64 3x3x3 convolution (27 reduction steps per tile).
  void vectorScope(const std::vector<Loop> &inner, const std::string &id, const std::string &scopeFirst,
                   const std::string &outerFirst, const std::string &initAcc) {
    const int last = lastLevel();
    const size_t s = size_t(C.simdDim);
    std::vector<std::string> full, fullLanes;
    bool partialRows = false, partialLanes = false;
    for (size_t d = 0; d < D; ++d)
      if (L.kept[d] && !isRed(d)) {
        full.push_back(fmt::format("{} == {}", e(last, d), tile(last, d)));
        if (d == s) fullLanes.push_back(full.back());
        else partialRows |= clampsRows(d) && mayBePartial(d);
      }
    partialLanes = !fullLanes.empty() && (mayBePartial(s) || padsLanes());
    narrow = narrowCounting();
    line(fmt::format("constexpr int64_t mdh_lanes = MDH_VBYTES / int64_t(sizeof({}));", laneType()));
    const std::string lanesDivide = fmt::format("INT64_C({}) % mdh_lanes == 0", tile(last, s));
    // A padded reduced vector dimension needs no whole vectors: its tiles run masked (vectorInner()).
    const std::string tileDivide = padsLanes() && isRed(s) ? "true" : lanesDivide;
    open(fmt::format("if ({}{})", full.empty() ? "" : joined(full, " && ") + " && ", tileDivide));
    vectorBranch(inner, id, outerFirst, initAcc);
    // Remainder tiles whose extents are known at compile time get the vector
    // code of a tile of exactly their size: a 4-row remainder of 12-row tiles
    // then does a third of a full tile's work, not all of it as below.
    const std::vector<std::vector<int64_t>> exact = exactRemainders();
    // Every remainder of the rows with whole vectors is one of them; those
    // with partial vectors (below) may still have partial rows.
    if (!exact.empty() && !partialLanes) partialRows = false;
    for (const std::vector<int64_t> &shape : exact) {
      std::vector<std::string> conds;
      for (size_t d = 0; d < D; ++d)
        if (L.kept[d] && !isRed(d)) conds.push_back(fmt::format("{} == {}", e(last, d), shape[d] > 0 ? shape[d] : tile(last, d)));
      close(fmt::format("}} else if ({} && {}) {{", joined(conds, " && "), tileDivide));
      ++indent;
      const int64_t fullAcc = accSize;
      exactTile = shape;
      for (size_t d = 0; d < D; ++d)
        if (shape[d] > 0) accSize = accSize / C.levels[size_t(last)].tile[d] * shape[d];
      vectorBranch(inner, id, outerFirst, initAcc);
      exactTile.clear();
      accSize = fullAcc;
    }
    if (partialRows && padsLanes() && !isRed(s)) {
      // Padded lanes make every tile a lane remainder (below); a tile whose rows are whole
      // still gets the rows' constant addresses, not the clamped ones of remainder rows
      // (a contraction with 25 along the output's last dimension in 8 rows over 31: 4.4
      // ms with every tile's rows clamped).
      std::vector<std::string> rowsFull;
      for (size_t d = 0; d < D; ++d)
        if (L.kept[d] && !isRed(d) && d != s) rowsFull.push_back(fmt::format("{} == {}", e(last, d), tile(last, d)));
      if (!rowsFull.empty()) {
        close(fmt::format("}} else if ({} && {} >= mdh_lanes) {{", joined(rowsFull, " && "), e(last, s)));
        ++indent;
        clampLanes = true;
        vectorBranch(inner, id, outerFirst, initAcc);
        clampLanes = false;
      }
    }
    if (partialRows || partialLanes) {
      // Remainder tiles along the rows run the full tile's vector code too, with
      // rows past the end recomputing the last row (reads stay in bounds) and
      // left unstored, instead of the scalar loops (MatMul 131^3 with the
      // default configuration, interleaved: 0.081-0.090 -> 0.053-0.078 ms).
      // So do remainders along the vector dimension at least one vector wide:
      // the last vector is shifted back to end on the tile's last element
      // (laneOffset()), vectors past it recompute it and are not stored, and
      // its lanes that overlap the previous vector are stored with the same
      // values (or, combined into the output, skipped).
      const std::string lanesCond = partialLanes ? fmt::format("{} >= mdh_lanes", e(last, s)) : joined(fullLanes, " && ");
      // Padded rows need no whole vectors per tile: vectorsPerRow() rounds up.
      const std::string clampDivide = padsLanes() ? "" : lanesDivide;
      const std::string clampCond = lanesCond.empty() || clampDivide.empty() ? lanesCond + clampDivide : lanesCond + " && " + clampDivide;
      close(fmt::format("}} else if ({}) {{", clampCond.empty() ? "true" : clampCond));
      ++indent;
      clampRows = partialRows;
      clampLanes = partialLanes;
      vectorBranch(inner, id, outerFirst, initAcc);
      clampRows = clampLanes = false;
    }
    if (partialLanes && maskedLaneTiles()) {
      // Narrower than one vector: lanes [0, extent) with masked loads and stores (and the
      // rows clamped as above), not the scalar loops below.
      close(padsLanes() ? fmt::format("}} else if ({} < mdh_lanes) {{", e(last, s))
                        : fmt::format("}} else if ({} < mdh_lanes && {}) {{", e(last, s), lanesDivide));
      ++indent;
      clampRows = partialRows;
      maskLanes = usedMaskedLanes = true;
      vectorBranch(inner, id, outerFirst, initAcc);
      clampRows = maskLanes = false;
    }
    close("} else {");
    ++indent;
    if (!initAcc.empty()) line(initAcc);
    emitInner(inner, 0, id, scopeFirst);
    flush(outerFirst);
    close();
    narrow = {};
  }

  /// The vector branch of vectorScope: vector accumulators over the tile,
  /// the inner tile loops, and the flush.
  void vectorBranch(const std::vector<Loop> &inner, const std::string &id, const std::string &outerFirst,
                    const std::string &initAcc) {
    line(fmt::format("typedef mdh_vt<{}, mdh_lanes> mdh_vec; (void)sizeof(mdh_vec);", laneType()));
    line(fmt::format("mdh_vec mdh_vacc[{}];", vectorCount()));
    // Every access to mdh_vacc has a compile-time index once loops are
    // unrolled, so that the vectors stay in registers.
    line("#pragma GCC unroll 64");
    if (narrow.bytes) {
      // Narrow lanes count from 0 and are widened into mdh_acc (vaccToAcc()).
      line(fmt::format("for (int64_t a = 0; a < {}; ++a) mdh_vacc[a] = mdh_vec{{}};", vectorCount()));
      line(initAcc);
      line("int64_t mdh_passes = 0;");
    } else {
      line(fmt::format("for (int64_t a = 0; a < {}; ++a) mdh_vacc[a] = mdh_vsplat<mdh_vec>({});", vectorCount(), id));
    }
    vectorInner(inner, 0, fmaTileLoopIndex(inner));
    if (vectorFlushApplies()) {
      vectorFlush(outerFirst);
    } else {
      vaccToAcc();
      flush(outerFirst); // run-time extents: only the tile's real cells
    }
  }

  /// While the vector branch for remainder rows is emitted (vectorScope).
  bool clampRows = false;
  /// While the vector branch for remainders along the vector dimension is emitted.
  bool clampLanes = false;
  /// While the vector branch for a tile narrower than one vector is emitted: lanes
  /// [0, extent) loaded and stored with masks (maskedLaneTiles()).
  bool maskLanes = false;
  bool usedMaskedLanes = false; ///< some branch used them: the kernel text starts with their helpers
  /// While the vector code for a remainder along a reduced vector dimension is emitted
  /// (maskedReductionApplies()): vector jv holds lanes [0, mdh_n) of the remainder, read
  /// with masks, and the identity in the others.
  bool maskReduced = false;
  bool usedMaskedReduction = false; ///< the kernel text starts with keepFirstLaneHelpers()
  bool usedFoldLanes = false;       ///< the kernel text starts with foldLanesHelpers()

  /// The first cell of vector `jv` along the vector dimension: jv*mdh_lanes,
  /// or, for remainders, at most the tile's extent less one vector, so that
  /// the last vector ends on the tile's last element and later ones repeat it.
  std::string laneOffset(const std::string &jv) const {
    if (maskLanes) return "INT64_C(0)"; // one vector: the tile's lanes [0, extent)
    const std::string o = fmt::format("{}*mdh_lanes", jv);
    return clampLanes ? fmt::format("mdh_imin({}, {} - mdh_lanes)", o, e(lastLevel(), size_t(C.simdDim))) : o;
  }

  /// Where vector `a` of mdh_vacc goes in mdh_acc (the vector dimension is innermost there).
  std::string accSlot(const std::string &a) const {
    const int64_t t = tile(lastLevel(), size_t(C.simdDim));
    const std::string perRow = vectorsPerRow(true);
    if (!clampLanes && !padsLanes()) return fmt::format("mdh_acc + {} * mdh_lanes", a);
    // Padded rows (padsLanes()): masked lanes store whole vectors from each row's start, the
    // last row's into mdh_acc's padding; the rows they overrun are stored after them.
    if (!clampLanes) return fmt::format("mdh_acc + ({} / {}) * INT64_C({}) + ({} % {}) * mdh_lanes", a, perRow, t, a, perRow);
    return fmt::format("mdh_acc + ({} / {}) * INT64_C({}) + {}", a, perRow, t, laneOffset(fmt::format("({} % {})", a, perRow)));
  }

  /// Whether the register tile along a concatenated vector dimension is not known to be
  /// whole vectors (not a multiple of the widest lanes, 64 bytes of f's result: 14 of a
  /// contraction's dimension of 14): its vector code then counts ceil(tile / lanes)
  /// vectors per row and runs every tile as a remainder, the last vector shifted back
  /// (clampLanes) or, narrower than a vector, on masked lanes (maskLanes), where the
  /// scalar loops ran before (a 24 x 20 x 22 x 18 x 16 x 14 x 26 contraction: 42 -> 11
  /// ms). Only where every input access reads one element or consecutive ones across
  /// the vector dimension, staged or not, so that masked loads cover them.
  bool padsLanes() const {
    if (C.simdDim < 0 || !P.f) return false;
    const size_t s = size_t(C.simdDim);
    if (!L.kept[s] || narrowCounting().bytes) return false;
    // Along a reduced dimension every tile then runs as a masked remainder
    // (maskedReductionApplies()), which needs lane-wise accumulators of f's result.
    if (isRed(s) && (!L.op || !P.f->result.isNumeric())) return false;
    const int64_t widest = 64 / std::max<int64_t>(1, int64_t(P.f->result.size()));
    if (tile(lastLevel(), s) % widest == 0) return false;
    // A reduced tile of whole 32-byte vectors (8 f32) stays with the scalar loops, which
    // GCC vectorises at that width: 100003 x 8 GEMV 0.041 ms, masked 16-lane vectors 0.046.
    if (isRed(s) && tile(lastLevel(), s) % (widest / 2) == 0) return false;
    return everyInputReadsLanesConsecutively(s);
  }

  /// readsLanesConsecutively() for every access of every input.
  bool everyInputReadsLanesConsecutively(size_t s) const {
    for (const auto &b : P.inputs)
      for (const auto &a : b.accesses)
        if (!readsLanesConsecutively(b, a, s)) return false;
    return true;
  }

  /// Whether access `a` reads one element, or consecutive ones, across dimension s in
  /// the copy the element loops read: laneStride() 0 or 1, decided from the
  /// configuration's stages alone, so that it holds at every point of the emission
  /// (laneStride() sees a stage only where its copy is in scope).
  bool readsLanesConsecutively(const hl::Buffer &b, const hl::Access &a, size_t s) const {
    return ll::readsLanesConsecutively(b, a, s, C.stages);
  }

  /// The vectors per row of the register tile along the vector dimension (an emitted
  /// expression; `parenthesised` for use inside a larger one): tile / mdh_lanes, rounded
  /// up where padsLanes().
  std::string vectorsPerRow(bool parenthesised) const {
    const int64_t t = tile(lastLevel(), size_t(C.simdDim));
    const std::string v = padsLanes() ? fmt::format("(INT64_C({}) + mdh_lanes - 1) / mdh_lanes", t)
                                      : fmt::format("INT64_C({}) / mdh_lanes", t);
    return parenthesised ? "(" + v + ")" : v;
  }

  /// The number of vector accumulators (an emitted expression): accSize / mdh_lanes, or
  /// rows times vectorsPerRow() where padsLanes().
  std::string vectorCount() const {
    if (!padsLanes()) return fmt::format("INT64_C({}) / mdh_lanes", accSize);
    return fmt::format("INT64_C({}) * {}", accSize / tile(lastLevel(), size_t(C.simdDim)), vectorsPerRow(true));
  }

  /// Whether dimension d is a row dimension of the register tile: it has
  /// accumulators of its own, more than one, and is not the vector dimension.
  bool clampsRows(size_t d) const { return L.kept[d] && !isRed(d) && int(d) != C.simdDim && tile(lastLevel(), d) > 1; }

  /// Row j of dimension d in the vector branch: j itself, or, for remainder
  /// rows, clamped to the tile's last real row.
  std::string rowOffset(size_t d) const {
    const std::string j = fmt::format("j{}", d);
    return clampRows && clampsRows(d) ? fmt::format("mdh_imin({}, {} - 1)", j, e(lastLevel(), d)) : j;
  }

  /// Whether some register tile along dimension d can be shorter than the
  /// last level's tile: sizes known only at run time, or a level's tile
  /// that does not divide an extent of the level above.
  bool mayBePartial(size_t d) const {
    const std::set<int64_t> extents = lastLevelExtents(d);
    return extents.empty() || extents.size() > 1 || *extents.begin() != tile(lastLevel(), d);
  }

  /// Every extent that a register tile along d takes, for sizes known at
  /// compile time; empty when the size is a run-time one.
  std::set<int64_t> lastLevelExtents(size_t d) const {
    const int64_t n = ll::concreteSizes(P)[d];
    if (n <= 0) return {};
    std::set<int64_t> extents = {n};
    for (int lv = 0; lv <= lastLevel(); ++lv) {
      std::set<int64_t> next;
      for (int64_t x : extents) {
        const int64_t t = tile(lv, d);
        if (x >= t) next.insert(t);
        if (x % t != 0) next.insert(x % t);
      }
      extents = next;
    }
    return extents;
  }

  /// Most remainder shapes of the register tile that get vector code of
  /// their own: each is another copy of the micro-kernel to compile.
  static constexpr size_t kMaxExactRemainders = 3;

  /// The remainder shapes of the register tile that vectorScope() gives
  /// their own vector branch (per dimension, the extent; 0 where the tile is
  /// full): every combination of the compile-time extents of its row
  /// dimensions other than all full, when there are at most
  /// kMaxExactRemainders; none otherwise, or when a size is a run-time one.
  std::vector<std::vector<int64_t>> exactRemainders() const {
    const int last = lastLevel();
    std::vector<std::vector<int64_t>> shapes = {std::vector<int64_t>(D, 0)};
    for (size_t d = 0; d < D; ++d) {
      if (!clampsRows(d) || !mayBePartial(d)) continue;
      const std::set<int64_t> extents = lastLevelExtents(d);
      if (extents.empty()) return {};
      std::vector<std::vector<int64_t>> next;
      for (const auto &sh : shapes)
        for (int64_t x : extents) {
          next.push_back(sh);
          next.back()[d] = x == tile(last, d) ? 0 : x;
        }
      shapes = std::move(next);
      if (shapes.size() > kMaxExactRemainders + 1) return {};
    }
    // All full is the main branch.
    shapes.erase(std::remove(shapes.begin(), shapes.end(), std::vector<int64_t>(D, 0)), shapes.end());
    return shapes;
  }

  /// Whether the vector accumulators can go to the output with vector loads
  /// and stores: the vector dimension is not reduced, and the output (its
  /// single component, or the buffer of partial results) holds consecutive
  /// cells of it at consecutive addresses.
  bool vectorFlushApplies() const {
    const size_t s = size_t(C.simdDim);
    if (isRed(s)) return false;
    if (!L.directOutput) {
      for (size_t d = s + 1; d < D; ++d)
        if (!isRed(d)) return false;
      return true;
    }
    auto comps = outputComponents();
    if (comps.size() != 1 || cType(comps[0].first->elem) != E) return false;
    const hl::Access &a = comps[0].first->accesses[comps[0].second];
    if (a.dims.empty()) return false;
    for (size_t k = 0; k < a.dims.size(); ++k)
      if (a.dims[k].coeff(s) != (k + 1 == a.dims.size() ? 1 : 0)) return false;
    return true;
  }

  /// Whether the output of a program with point-wise dimensions is streamed: each
  /// cell's one store comes from vectorFlush() (ll::streamsWholeReductions).
  bool anyReductionStreams() const { return C.streamStores && !ll::streamStoresApply(P); }

  /// flush() for a full register tile straight from the vector accumulators:
  /// per vector, a store (first contribution) or a load, the combine of
  /// vectorCombine() (the output's value on the left, as in flush()) and a
  /// store.
  void vectorFlush(const std::string &outerFirst) {
    const int last = lastLevel();
    const size_t s = size_t(C.simdDim);
    std::vector<std::string> j(D, "0"), c(D, "INT64_C(0)");
    int opened = 0;
    for (size_t d : accDims()) {
      if (d == s) {
        line("#pragma GCC unroll 16");
        open(fmt::format("for (int64_t jv = 0; jv < {}; ++jv)", vectorsPerRow(false)));
        c[d] = fmt::format("({} + {})", b(last, d), laneOffset("jv"));
      } else {
        if (unrolls(d, true)) line(fmt::format("#pragma GCC unroll {}", tile(last, d)));
        open(fmt::format("for (int64_t j{} = 0; j{} < INT64_C({}); ++j{})", d, d, tile(last, d), d));
        j[d] = fmt::format("j{}", d);
        c[d] = fmt::format("({} + j{})", b(last, d), d);
      }
      ++opened;
    }
    std::string at;
    if (!L.directOutput) {
      at = fmt::format("{}[{}]", dst, outLinear(c));
    } else {
      at = singleOutputCell(c);
    }
    std::vector<std::string> real;
    for (size_t d : accDims())
      if (clampRows && clampsRows(d)) real.push_back(fmt::format("j{} < {}", d, e(last, d)));
    if (clampLanes || maskLanes) real.push_back(fmt::format("jv*mdh_lanes < {}", e(last, s)));
    if (!real.empty()) {
      open(fmt::format("if ({})", joined(real, " && ")));
      ++opened;
    }
    line(fmt::format("{} *const mdh_o = &{};", E, at));
    line(fmt::format("const mdh_vec mdh_v = mdh_vacc[{}];", vaccIndex(j, "jv")));
    bool anyRed = false;
    for (size_t d = 0; d < D; ++d) anyRed |= isRed(d);
    // With the reduction whole in the tile (ll::streamsWholeReductions), this store is the
    // cell's only one: streamed where the vector fills a line of a line-aligned buffer.
    const std::string store =
        maskLanes ? fmt::format("mdh_vstore_first(mdh_o, mdh_v, {});", e(last, s))
        : anyReductionStreams() ? "if (mdh_stream_ok && reinterpret_cast<uintptr_t>(mdh_o) % MDH_VBYTES == 0) mdh_vstream(mdh_o, mdh_v); "
                                  "else std::memcpy(mdh_o, &mdh_v, sizeof(mdh_vec));"
                                : "std::memcpy(mdh_o, &mdh_v, sizeof(mdh_vec));";
    if (maskLanes) {
      if (anyRed) {
        open(fmt::format("if ({})", outerFirst));
        line(store);
        close("} else {");
        ++indent;
        line(fmt::format("const mdh_vec mdh_w = {};", vectorCombine(fmt::format("mdh_vload_first<mdh_vec>(mdh_o, {})", e(last, s)), "mdh_v")));
        line(fmt::format("mdh_vstore_first(mdh_o, mdh_w, {});", e(last, s)));
        close();
      } else {
        line(store);
      }
    } else if (!anyRed) {
      line(store);
    } else {
      open(fmt::format("if ({})", outerFirst));
      line(store);
      if (clampLanes) {
        // A shifted last vector: its first lanes were combined by the previous one.
        close(fmt::format("}} else if (const int64_t mdh_skip = jv*mdh_lanes - {}; mdh_skip > 0) {{", laneOffset("jv")));
        ++indent;
        // Constant bounds: GCC 12 -O3 warned "iteration 4611686018427387903 invokes undefined
        // behavior" for a loop from mdh_skip (a path it cannot rule out, where it has no meaning).
        line(fmt::format("for (int64_t l = 0; l < mdh_lanes; ++l) if (l >= mdh_skip) mdh_o[l] = {};", applyBinary(*L.op, "mdh_o[l]", "mdh_v[l]")));
      }
      close("} else {");
      ++indent;
      line(fmt::format("const mdh_vec mdh_w = {};", vectorCombine("mdh_vload<mdh_vec>(mdh_o)", "mdh_v")));
      line("std::memcpy(mdh_o, &mdh_w, sizeof(mdh_vec));");
      close();
    }
    for (int i = 0; i < opened; ++i) close();
  }

  /// `asmLoop`: the loop of `inner` an asm loop may replace (fmaTileLoopIndex()).
  void vectorInner(const std::vector<Loop> &inner, size_t k, size_t asmLoop) {
    if (k < inner.size()) {
      const std::string start = k == asmLoop ? fmaTileLoopFirst(inner, k) : "";
      emitOneTileLoop(inner[k], [&] { vectorInner(inner, k + 1, asmLoop); }, start);
      return;
    }
    const int last = lastLevel();
    if (padsLanes() && isRed(size_t(C.simdDim))) {
      // A reduced vector dimension whose tile no vector width is known to divide: every
      // tile as a masked remainder (a row reduction of 13 ran the scalar loops).
      maskedReductionLoops();
      return;
    }
    std::vector<std::string> full;
    for (size_t d = 0; d < D; ++d)
      if (isRed(d)) full.push_back(fmt::format("{} == {}", e(last, d), tile(last, d)));
    if (!full.empty()) open(fmt::format("if ({})", joined(full, " && ")));
    vectorElementLoops();
    if (narrow.bytes) {
      open(fmt::format("if (++mdh_passes == INT64_C({}))", narrow.passes));
      vaccToAcc();
      close();
    }
    const size_t s = size_t(C.simdDim);
    // Only where such a remainder occurs: a run-time size, or a static one
    // that the tiles do not divide (else the branch is never taken).
    bool reductionRemainders = false;
    for (size_t d = 0; d < D; ++d) reductionRemainders = reductionRemainders || (isRed(d) && d != s && mayBePartial(d));
    if (!full.empty() && !narrow.bytes && reductionRemainders) {
      // A remainder of the reductions outside the vector dimension (a reduced
      // vector dimension whole): the same vector code with their run-time trip
      // counts. Spilled to the scalar loops, a convolution's filter of 3 x 3
      // with run-time sizes, in register tiles of 4 steps, spilled every step.
      close(isRed(s) ? fmt::format("}} else if ({} == {}) {{", e(last, s), tile(last, s)) : "} else {");
      ++indent;
      vectorElementLoops(true);
      if (!isRed(s)) close();
    }
    if (!full.empty() && maskedReductionApplies()) {
      // A remainder along the reduced vector dimension (and perhaps the other reductions):
      // vectors over its extent, the last one masked (maskedReductionApplies()).
      close("} else {");
      ++indent;
      maskedReductionLoops();
      close();
    } else if (!full.empty() && (narrow.bytes || isRed(s) || !reductionRemainders)) {
      // A remainder tile: the scalar element loops on mdh_acc, between a
      // spill and a reload of the vector accumulators (narrow lanes: a
      // widening, after which they count from 0 again).
      close("} else {");
      ++indent;
      vaccToAcc();
      laneElementLoops();
      if (!narrow.bytes) {
        line("#pragma GCC unroll 64");
        line(fmt::format("for (int64_t a = 0; a < {}; ++a) mdh_vacc[a] = mdh_vload<mdh_vec>({});", vectorCount(), accSlot("a")));
      }
      close();
    }
  }

  /// The vector accumulators into mdh_acc: copied, or, narrow lanes,
  /// sign-extended and added to it (then reset to 0).
  void vaccToAcc() {
    line("#pragma GCC unroll 64");
    if (!narrow.bytes) {
      line(fmt::format("for (int64_t a = 0; a < {}; ++a) std::memcpy({}, &mdh_vacc[a], sizeof(mdh_vec));", vectorCount(), accSlot("a")));
      return;
    }
    open(fmt::format("for (int64_t a = 0; a < INT64_C({}) / mdh_lanes; ++a)", accSize));
    const std::string wide = fmt::format("mdh_vt<uint{}_t, mdh_lanes>", P.f->result.size() * 8);
    line(fmt::format("{} mdh_w;", wide));
    line("std::memcpy(&mdh_w, mdh_acc + a * mdh_lanes, sizeof(mdh_w));");
    line(fmt::format("mdh_w += ({})__builtin_convertvector(mdh_vacc[a], mdh_vt<{}, mdh_lanes>);", wide, E));
    line("std::memcpy(mdh_acc + a * mdh_lanes, &mdh_w, sizeof(mdh_w));");
    line("mdh_vacc[a] = mdh_vec{};");
    close();
    line("mdh_passes = 0;");
  }

  /// Narrow lane accumulators (hl/ResultRange.h): when the vector dimension
  /// is reduced with an integer add (its lanes hold partial sums, summed at
  /// the flush) and f's result is bounded, a full tile counts in lanes of 1
  /// or 2 bytes, widened into mdh_acc every `narrow.passes` passes of the element
  /// loops, before any lane can overflow.  A histogram's compare-and-count
  /// then covers 64 bytes per compare instead of 16.
  hl::NarrowCounting narrow; ///< bytes = 0: lanes of the accumulator type

  /// Passes between two widenings, at least (fewer: lanes of the result type).
  static constexpr int64_t kMinNarrowPasses = 8;

  hl::NarrowCounting narrowCounting() const {
    const size_t s = size_t(C.simdDim);
    if (cType(P.f->result) != E) return {};
    const int last = lastLevel();
    int64_t updates = 1; // of each lane per pass: the tile's other reduced dimensions
    for (size_t d = 0; d < D; ++d)
      if (isRed(d) && d != s) updates *= tile(last, d);
    const hl::NarrowCounting n = hl::narrowCounting(P, s, updates, kMinNarrowPasses);
    // Whole vectors of narrow lanes on every target (up to 64-byte vectors).
    if (!n.bytes || tile(last, s) % (64 / n.bytes) != 0) return {};
    return n;
  }

  /// The lane type of the vector accumulators.
  std::string laneType() const { return narrow.bytes ? fmt::format("int{}_t", narrow.bytes * 8) : E; }

  /// Element loops of a register tile: the dimensions without their own
  /// accumulators (reductions) outermost, then the accumulator dimensions,
  /// the vector dimension last; each level's relative order is kept.  Every
  /// accumulator sees its updates in the same sequence as with the level's
  /// order (same bits), but each input vector is loaded once per reduction
  /// step and reused across the tile's rows, like a BLAS micro-kernel,
  /// instead of being kept live across the whole tile (register spills).
  std::vector<int> elementOrder() const {
    std::vector<int> order = C.levels[size_t(lastLevel())].order;
    order.erase(std::remove(order.begin(), order.end(), C.simdDim), order.end());
    std::stable_partition(order.begin(), order.end(), [&](int d) { return !L.kept[size_t(d)]; });
    order.push_back(C.simdDim);
    return order;
  }

  /// A full tile: compile-time trip counts, one vector operation per mdh_lanes
  /// cells; `reductionRemainder`: the reduced dimensions other than the vector
  /// one with their run-time extents (a reduced vector dimension is whole).
  void vectorElementLoops(bool reductionRemainder = false) {
    const int last = lastLevel();
    const size_t s = size_t(C.simdDim);
    std::vector<std::string> j(D), x(D);
    std::vector<std::string> jOff(D);
    for (size_t d = 0; d < D; ++d) {
      j[d] = fmt::format("j{}", d);
      jOff[d] = rowOffset(d);
      x[d] = fmt::format("({} + {})", b(last, d), jOff[d]);
    }
    x[s] = fmt::format("({} + {})", b(last, s), laneOffset("jv"));
    std::vector<std::string> x0(D);
    for (size_t d = 0; d < D; ++d) x0[d] = fmt::format("({})", b(last, d));
    jOff[s] = fmt::format("({})", laneOffset("jv"));
    const std::vector<std::string> bases = declareTilePointers(x0);
    if (!reductionRemainder) prefetchReductionRows(bases);
    int opened = 0;
    for (int dd : elementOrder()) {
      size_t d = size_t(dd);
      if (d == s && maskReduced) {
        line("#pragma GCC unroll 16");
        open(fmt::format("for (int64_t jv = 0; jv * mdh_lanes < {}; ++jv)", e(last, d)));
        line(fmt::format("const int64_t mdh_n = mdh_imin(mdh_lanes, {} - jv * mdh_lanes);", e(last, d)));
      } else if (d == s) {
        line("#pragma GCC unroll 16");
        // A tile narrower than one vector (maskLanes) is that one vector: the others of the
        // row would repeat it (laneOffset() is 0), 3x the work of a remainder of 1 in 24.
        open(fmt::format("for (int64_t jv = 0; jv < {}; ++jv)", maskLanes ? "INT64_C(1)" : vectorsPerRow(false)));
      } else if (reductionRemainder && isRed(d) && d != s) {
        open(fmt::format("for (int64_t j{} = 0; j{} < {}; ++j{})", d, d, e(last, d), d));
      } else {
        if (unrolls(d, true)) line(fmt::format("#pragma GCC unroll {}", tile(last, d)));
        open(fmt::format("for (int64_t j{} = 0; j{} < INT64_C({}); ++j{})", d, d, tile(last, d), d));
      }
      ++opened;
    }
    std::string slot = fmt::format("mdh_vacc[{}]", vaccIndex(j, "jv"));
    std::string value = narrow.bytes ? "" : applyVectorF(x, bases, jOff);
    if (maskReduced)
      value = fmt::format("mdh_vkeep_first<mdh_vec>({}, mdh_vsplat<mdh_vec>({}), mdh_n)", value, identityOf(*L.op));
    line(fmt::format("{} = {};", slot, narrow.bytes ? applyVectorF(x, bases, jOff, slot) : vectorCombine(slot, value)));
    for (int i = 0; i < opened; ++i) close();
  }

  size_t inputAccessCount() const {
    size_t n = 0;
    for (const auto &b : P.inputs) n += b.accesses.size();
    return n;
  }

  /// The tile loop of `inner` that an asm loop replaces (fmaTileLoopFirst()): the innermost, or
  /// the loop around a chain of innermost reduction loops that each run one register tile, their
  /// enclosing tile being no larger (a convolution's 3 channels inside its filter columns: the asm
  /// loop over the channels ran one iteration per entry; over the columns 7 for ResNet-50).
  /// Not past loops whose rows are prefetched (rowPrefetches(): relative to the innermost loop).
  size_t fmaTileLoopIndex(const std::vector<Loop> &inner) const {
    if (inner.empty()) return 0;
    const int last = lastLevel();
    size_t k = inner.size() - 1;
    // Every access as if read through a base pointer: rows that might be prefetched keep the
    // asm loop innermost.
    if (!rowPrefetches(std::vector<std::string>(inputAccessCount(), "base")).empty()) return k;
    auto reducedLast = [&](const Loop &lp) { return lp.level == last && isRed(size_t(lp.dim)) && lp.dim != C.simdDim; };
    while (k > 0 && reducedLast(inner[k]) && reducedLast(inner[k - 1]) && tile(last - 1, size_t(inner[k].dim)) == tile(last, size_t(inner[k].dim)))
      --k;
    return k;
  }

  /// Where the whole tiles of tile loop inner[k] (fmaTileLoopIndex()) run as an asm loop
  /// (fmaTileLoop()), emits it, under MDH_FMA_TILE_ASM, and returns the variable that holds the
  /// start of the first tile it left to the C++ loop (the remainder, or every tile without the
  /// asm); elsewhere emits nothing and returns "". The loops inside inner[k] must then run one
  /// whole tile each. Not where a stage is copied inside these loops, which the asm loop would skip.
  std::string fmaTileLoopFirst(const std::vector<Loop> &inner, size_t k) {
    const int last = lastLevel();
    const Loop &lp = inner[k];
    const size_t r = size_t(lp.dim);
    if (lp.level != last || !isRed(r) || int(r) == C.simdDim) return "";
    std::vector<bool> inside(D, false);
    for (size_t t = k; t < inner.size(); ++t) {
      if (stagesAt(inner[t].level, inner[t].dim)) return "";
      inside[size_t(inner[t].dim)] = t > k;
    }
    const size_t mark = out.size();
    const int indentMark = indent;
    const std::string first = fmt::format("mdh_first{}", r), whole = fmt::format("{} / INT64_C({})", e(last - 1, r), tile(last, r));
    std::vector<std::string> conds = {fmt::format("{} >= INT64_C({})", e(last - 1, r), tile(last, r))};
    for (size_t d = 0; d < D; ++d)
      if (isRed(d) && d != r) conds.push_back(fmt::format("{} == {}", inside[d] ? e(last - 1, d) : e(last, d), tile(last, d)));
    line(fmt::format("int64_t {} = {};", first, b(last - 1, r)));
    line("#if MDH_FMA_TILE_ASM");
    open(fmt::format("if ({})", joined(conds, " && ")));
    line(fmt::format("const int64_t {} = {};", b(last, r), b(last - 1, r)));
    for (size_t d = 0; d < D; ++d)
      if (inside[d]) line(fmt::format("const int64_t {} = {};", b(last, d), b(last - 1, d)));
    std::vector<std::string> x0(D);
    for (size_t d = 0; d < D; ++d) x0[d] = fmt::format("({})", b(last, d));
    const std::vector<std::string> bases = declareTilePointers(x0);
    const auto loop = fmaTileLoop(bases, lp, whole);
    if (!loop) {
      out.resize(mark);
      indent = indentMark;
      return "";
    }
    for (const std::string &l : *loop) line(l);
    line(fmt::format("{} += {} * INT64_C({});", first, whole, tile(last, r)));
    close();
    line("#endif");
    return first;
  }

  /// Whether a stage is copied at the start of every tile of loop (level, dim) (stageAt()).
  bool stagesAt(int level, int dim) const {
    for (const auto &s : pendingStages)
      if (s.level == level && stageAnchorDim(s) == dim) return true;
    return false;
  }

  /// The whole tiles of the innermost reduction loop `lp` as one asm loop (FmaTileAsm.h),
  /// `iterations` of them from the base pointers `bases`, for 32-byte vectors, where f
  /// multiplies a broadcast input by a vector input read through base pointers at constant
  /// offsets and the reduction adds (FMA contraction allowed: not strict_fp). Nothing where
  /// anything else is asked of the tile.
  std::optional<std::vector<std::string>> fmaTileLoop(const std::vector<std::string> &bases, const Loop &lp,
                                                      const std::string &iterations) const {
    if (narrow.bytes || maskReduced || maskLanes || clampRows || clampLanes || padsLanes() || C.strictFp) return std::nullopt;
    if (!L.op || !hl::sumsFloatProducts(P)) return std::nullopt;
    const int64_t elemBytes = P.f->result.kind == Type::Kind::F64 ? 8 : 4, lanes = 32 / elemBytes;
    const int last = lastLevel();
    const size_t s = size_t(C.simdDim);
    if (tile(last, s) % lanes != 0) return std::nullopt;
    // The broadcast input (one element across the lanes) and the vector input (lanes consecutive).
    std::optional<std::vector<int64_t>> broadcastSteps, vectorSteps;
    std::string broadcastBase, vectorBase;
    size_t ai = 0;
    for (const auto &b : P.inputs)
      for (const auto &a : b.accesses) {
        const size_t idx = ai++;
        if (idx >= bases.size() || bases[idx].empty() || b.elem != P.f->result || loadsMasked(b)) return std::nullopt;
        // Tiles along r must lie at one stride from each other: not so in panels cut along
        // a dimension that r moves (A staged in panels along k: the next panel starts a
        // block of rows later; found by mdhc tune as a wrong result).
        if (const Staged *st = stagedOf(b); st && st->panel > 0 && a.dims[st->panelDim()].coeff(size_t(lp.dim)) != 0)
          return std::nullopt;
        auto steps = constantElementSteps(b, a);
        if (!steps) return std::nullopt;
        const int stride = laneStride(b, a);
        if (stride == 0 && !broadcastSteps) broadcastSteps = std::move(steps), broadcastBase = bases[idx];
        // Through a base pointer, a panel's lanes (stride 2) are consecutive too: the tile stays inside one panel.
        else if ((stride == 1 || stride == 2) && !vectorSteps) vectorSteps = std::move(steps), vectorBase = bases[idx];
        else return std::nullopt;
      }
    if (!broadcastSteps || !vectorSteps) return std::nullopt;
    FmaTile t;
    t.f64 = elemBytes == 8;
    t.accumulators = "mdh_vacc";
    t.broadcastBase = broadcastBase;
    t.vectorBase = vectorBase;
    t.iterations = iterations;
    const size_t r = size_t(lp.dim);
    t.broadcastAdvance = tile(last, r) * (*broadcastSteps)[r] * elemBytes;
    t.vectorAdvance = tile(last, r) * (*vectorSteps)[r] * elemBytes;
    // The rows prefetchReductionRows() hints in the C++ loop, hinted in every iteration.
    for (const RowPrefetch &pf : rowPrefetches(bases)) {
      if (pf.base != vectorBase) return std::nullopt;
      const int64_t rowBytes = tile(last, s) * elemBytes;
      for (int64_t pr = 0; pr < tile(last, r); ++pr)
        for (int64_t pb = 0; pb < rowBytes; pb += 64)
          t.vectorPrefetches.push_back((*vectorSteps)[r] * (reductionPrefetchSteps() + pr) * elemBytes + pb);
    }
    // The C++ loops' order (elementOrder()), an odometer over the tile's extents.
    const std::vector<int> order = elementOrder();
    std::vector<int64_t> extent(order.size()), j(D, 0);
    for (size_t k = 0; k < order.size(); ++k)
      extent[k] = size_t(order[k]) == s ? tile(last, s) / lanes : tile(last, size_t(order[k]));
    int64_t points = 1;
    for (int64_t x : extent) points *= x;
    if (points > 4096) return std::nullopt;
    const std::vector<size_t> accD = accDims();
    for (int64_t n = 0; n < points; ++n) {
      int64_t rest = n;
      for (size_t k = order.size(); k-- > 0;) {
        j[size_t(order[k])] = rest % extent[k];
        rest /= extent[k];
      }
      FmaTileUpdate u;
      int64_t acc = 0;
      for (size_t d : accD) acc = acc * (d == s ? tile(last, s) / lanes : tile(last, d)) + j[d];
      u.accumulator = acc;
      for (size_t d = 0; d < D; ++d)
        if (!L.kept[d] && d != s) u.step = u.step * tile(last, d) + j[d];
      for (size_t d = 0; d < D; ++d) {
        // j[s] counts vectors: lane offset j[s] * lanes.
        const int64_t at = d == s ? j[d] * lanes : j[d];
        u.broadcastByte += at * (*broadcastSteps)[d] * elemBytes;
        u.vectorByte += at * (*vectorSteps)[d] * elemBytes;
      }
      t.updates.push_back(u);
    }
    return fmaTileAsm(t);
  }

  /// elementSteps() as numbers, where every one is a compile-time constant.
  std::optional<std::vector<int64_t>> constantElementSteps(const hl::Buffer &b, const hl::Access &a) const {
    if (!elementSteps(b, a)) return std::nullopt;
    std::vector<int64_t> memStride;
    if (const Staged *st = stagedOf(b)) {
      const std::vector<int64_t> lstride = layoutStrides(*st);
      memStride.assign(lstride.begin(), lstride.begin() + std::ptrdiff_t(st->layout.size()));
    } else {
      memStride.assign(b.shape.size(), 1);
      for (size_t k = b.shape.size(); k-- > 1;) {
        const auto n = b.shape[k].constantValue();
        if (!n) return std::nullopt;
        memStride[k - 1] = memStride[k] * *n;
      }
    }
    std::vector<int64_t> steps(D, 0);
    for (size_t d = 0; d < D; ++d)
      for (size_t k = 0; k < a.dims.size(); ++k) steps[d] += a.dims[k].coeff(d) * memStride[k];
    return steps;
  }

  /// Reduction steps ahead whose rows a register tile prefetches (see
  /// prefetchReductionRows()): the configuration's, else 8.  16x1000x2048
  /// MatMul, interleaved, three rounds: 0.50-0.59 ms without, 0.39-0.50 ms
  /// with 8 steps; 16 and 32 steps gained less.  Rows from memory want more
  /// (Config::prefetchSteps).
  int64_t reductionPrefetchSteps() const {
    return C.prefetchSteps > 0 ? C.prefetchSteps : ll::Config::kDefaultPrefetchSteps;
  }

  /// Read hints for the rows a register tile will read reductionPrefetchSteps()
  /// steps of its innermost reduction loop ahead, for each unstaged access
  /// that reads whole vectors (consecutive lanes) and moves to another row
  /// of its buffer with each reduction step: B of a MatMul with few rows,
  /// read in a column panel down 2048 rows 4000 bytes apart.  Every step
  /// lands on another page, which the hardware prefetchers do not follow,
  /// so the tile waited for each row from L3; accesses that walk their rows
  /// (A) or were staged (already in L2) need no hint.
  void prefetchReductionRows(const std::vector<std::string> &bases) {
    const int last = lastLevel();
    const size_t s = size_t(C.simdDim);
    for (const RowPrefetch &pf : rowPrefetches(bases)) {
      const size_t r = size_t(tileLoops.back().dim); // rowPrefetches(): the innermost loop, a reduction
      const std::string step = (*elementSteps(*pf.buffer, *pf.access))[r];
      const int64_t rowBytes = tile(last, s) * int64_t(pf.buffer->elem.size());
      line(fmt::format("#pragma GCC unroll {}", std::min<int64_t>(tile(last, r), 64)));
      open(fmt::format("for (int64_t mdh_pr = 0; mdh_pr < INT64_C({}); ++mdh_pr)", tile(last, r)));
      line(fmt::format("#pragma GCC unroll {}", (rowBytes + 63) / 64));
      open(fmt::format("for (int64_t mdh_pb = 0; mdh_pb < INT64_C({}); mdh_pb += 64)", rowBytes));
      line(fmt::format("__builtin_prefetch(reinterpret_cast<const void *>(reinterpret_cast<uintptr_t>({}) + ({})*(INT64_C({}) + mdh_pr)*INT64_C({}) + mdh_pb), 0, 3);",
                       pf.base, step, reductionPrefetchSteps(), pf.buffer->elem.size()));
      close();
      close();
    }
  }

  struct RowPrefetch {
    const hl::Buffer *buffer;
    const hl::Access *access;
    std::string base;
  };
  /// The accesses prefetchReductionRows() prefetches.
  std::vector<RowPrefetch> rowPrefetches(const std::vector<std::string> &bases) const {
    std::vector<RowPrefetch> rows;
    if (tileLoops.empty()) return rows;
    const int last = lastLevel();
    const Loop &innermost = tileLoops.back();
    const size_t r = size_t(innermost.dim);
    if (innermost.level != last || !isRed(r)) return rows;
    size_t ai = 0;
    for (const auto &b : P.inputs)
      for (const auto &a : b.accesses) {
        const size_t idx = ai++;
        if (idx >= bases.size() || bases[idx].empty() || stagedOf(b) || laneStride(b, a) != 1) continue;
        // Another row per step: r moves a dimension outside the innermost, or
        // the innermost by at least a cache line.
        bool crossesRows = false;
        for (size_t k = 0; k < a.dims.size(); ++k)
          if (const int64_t c = a.dims[k].coeff(r); c != 0)
            crossesRows = crossesRows || k + 1 < a.dims.size() || std::abs(c) * int64_t(b.elem.size()) >= 64;
        if (crossesRows) rows.push_back({&b, &a, bases[idx]});
      }
    return rows;
  }

  /// The reduction's add or mul on accumulator vectors (integers wrap like
  /// mdh_add: vectorBinary goes through the unsigned vector of their size).
  std::string vectorCombine(const std::string &acc, const std::string &v) const {
    return vectorBinary(*L.op, acc, v, "mdh_vec", "mdh_lanes");
  }

  /// A remainder tile (reduced dimensions only): scalar f on mdh_acc.
  void laneElementLoops() {
    const int last = lastLevel();
    std::vector<std::string> j(D), x(D);
    for (size_t d = 0; d < D; ++d) {
      j[d] = fmt::format("j{}", d);
      x[d] = fmt::format("({} + j{})", b(last, d), d);
    }
    const std::vector<std::string> bases = declarePanelPointers();
    int opened = 0;
    for (int dd : elementOrder()) {
      size_t d = size_t(dd);
      open(fmt::format("for (int64_t j{} = 0; j{} < {}; ++j{})", d, d, e(last, d), d));
      ++opened;
    }
    std::string slot = fmt::format("mdh_acc[{}]", accIndex(j));
    line(fmt::format("{} = {};", slot, applyBinary(*L.op, slot, applyF(x, bases, j))));
    for (int i = 0; i < opened; ++i) close();
  }

  void emitInner(const std::vector<Loop> &inner, size_t k, const std::string &id, const std::string &scopeFirst) {
    if (k < inner.size()) {
      emitOneTileLoop(inner[k], [&] { emitInner(inner, k + 1, id, scopeFirst); });
      return;
    }
    const int last = lastLevel();
    // Full tiles run with compile-time trip counts (unrolled, vectorised);
    // remainder tiles with the run-time extents.
    std::vector<std::string> full;
    for (size_t d = 0; d < D; ++d) full.push_back(fmt::format("{} == {}", e(last, d), tile(last, d)));
    if (D > 0) {
      open(fmt::format("if ({})", fmt::join(full, " && ")));
      elementLoops(true, id, scopeFirst);
      close("} else {");
      ++indent;
    }
    elementLoops(false, id, scopeFirst);
    if (D > 0) close();
  }

  /// The dimensions with their own accumulators, in mdh_acc's row-major
  /// order: the vector dimension last, so that its lanes are contiguous
  /// (vector accumulators map onto mdh_acc by plain copies).
  std::vector<size_t> accDims() const {
    std::vector<size_t> dims;
    for (size_t d = 0; d < D; ++d)
      if (L.kept[d] && int(d) != C.simdDim) dims.push_back(d);
    if (C.simdDim >= 0 && L.kept[size_t(C.simdDim)]) dims.push_back(size_t(C.simdDim));
    return dims;
  }

  std::string accIndex(const std::vector<std::string> &j) const {
    const int last = lastLevel();
    std::string s = "0";
    for (size_t d : accDims()) s = s == "0" ? j[d] : fmt::format("({})*{} + {}", s, tile(last, d), j[d]);
    return s;
  }

  /// Whether the element loops write f straight to the output, a row
  /// segment (one tile along the vector dimension) at a time, streaming
  /// whole vectors from the segment's first line boundary on
  /// (streamedRowLoops): every cell is written once, and the output is
  /// contiguous along the vector dimension.  No accumulator tile sits
  /// between f and the output.  Segments must start on cache lines
  /// (streamsAlong), span the row, or be at least kMinStreamedSegmentBytes
  /// long: a row that starts mid-line costs a peel and up to two plainly
  /// stored partial lines, worth it for whole rows of 4094 floats (Jacobi2D,
  /// interleaved: 7.3 -> 5.6 ms) but not for tiles of 64 floats (7.1 -> 9.9
  /// ms through the accumulators).  These limits were measured before
  /// segments moved onto lines themselves, when every segment that started
  /// mid-line shared its first and last lines with its neighbours.
  bool streamsRowsDirectly() const {
    if (L.op || !C.streamStores || C.simdDim < 0 || L.streamedScan >= 0) return false;
    for (size_t d = 0; d < D; ++d)
      if (L.prefix[d]) return false;
    const size_t s = size_t(C.simdDim);
    if (!outputContiguousAlong(s)) return false;
    if (streamsAlong(s)) return true;
    const int64_t n = ll::concreteSizes(P)[s], t = tile(lastLevel(), s);
    return (n > 0 && t >= n) || t * int64_t(P.f->result.size()) >= ll::kMinStreamedSegmentBytes;
  }

  /// The access of input b that leads along dimension s, for a software
  /// prefetch in streamed rows: of the accesses that read consecutive
  /// elements along s, the one with the largest constant offset into the
  /// buffer (a stencil's newest row or plane, which no other access has
  /// brought into the caches yet); nullptr if none does or b is staged.
  /// Interleaved in the driver, warm, two runs: Jacobi1D 4.5 -> 3.9 ms,
  /// Jacobi2D 5.2–5.4 -> 4.4–4.7, Jacobi3D 7.8–8.0 -> 6.6–6.9.  The folds
  /// of pipelined scans prefetch their (next) chunk the same way: 2^24 i32
  /// 5.5–5.7 -> 4.7–4.8 ms.
  const hl::Access *leadingAccess(const hl::Buffer &b, size_t s) const {
    if (stagedOf(b)) return nullptr;
    const hl::Access *best = nullptr;
    int64_t bestOffset = 0;
    for (const auto &a : b.accesses) {
      if (laneStride(b, a, s) != 1) continue;
      int64_t offset = 0, stride = 1;
      for (size_t k = a.dims.size(); k-- > 0;) {
        auto o = a.dims[k].offset.constantValue();
        auto extent = b.shape[k].constantValue();
        if (!o || !extent) return nullptr;
        offset += *o * stride;
        stride *= *extent;
      }
      if (!best || offset > bestOffset) best = &a, bestOffset = offset;
    }
    return best;
  }

  /// A read hint 2 KiB ahead of each input's leading access along s, at cell x.
  /// With `rows` (rowPointers()), through the leading access's row pointer.
  void prefetchLeading(size_t s, const std::vector<std::string> &x, const std::vector<std::string> &rows = {}) {
    size_t first = 0;
    for (const auto &b : P.inputs) {
      if (const hl::Access *a = leadingAccess(b, s)) {
        const size_t idx = first + size_t(a - b.accesses.data());
        if (idx < rows.size() && !rows[idx].empty()) line(fmt::format("mdh_prefetch_ahead({} + mdh_j);", rows[idx]));
        else line(fmt::format("mdh_prefetch_ahead(&{});", inputLoad(b, *a, x)));
      }
      first += b.accesses.size();
    }
  }

  /// Whether streamedRowLoops() moves each segment's ends onto lines, which
  /// computes cells of the next segment along the row: not where an input is
  /// staged, since a stage holds the current tile's part of its buffer only
  /// (a Jacobi2D configuration with I staged in L2 read past it, found by
  /// the tuner).
  bool segmentsMoveOntoLines() const { return streamsRowsDirectly() && C.stages.empty(); }

  /// elementLoops() where streamsRowsDirectly(): per row, cells one by one
  /// (short rows with AVX-512: one masked vector) up to a vector boundary of
  /// the output, then whole vectors of f streamed (f's vector version where
  /// it has one, else mdh_lanes cells through a local line), then the rest
  /// one by one (or as one masked vector); rows go all plain when the output
  /// buffer's cells are not aligned to their size (mdh_stream_ok).
  void streamedRowLoops(bool constant) {
    const int last = lastLevel();
    const size_t s = size_t(C.simdDim);
    std::vector<std::string> x(D);
    for (size_t d = 0; d < D; ++d) x[d] = fmt::format("({} + j{})", b(last, d), d);
    int opened = 0;
    for (int dd : elementOrder()) {
      const size_t d = size_t(dd);
      if (d == s) continue;
      if (constant && unrolls(d)) line(fmt::format("#pragma GCC unroll {}", tile(last, d)));
      open(fmt::format("for (int64_t j{} = 0; j{} < {}; ++j{})", d, d, constant ? fmt::format("INT64_C({})", tile(last, d)) : e(last, d), d));
      ++opened;
    }
    const std::string segment = constant ? fmt::format("INT64_C({})", tile(last, s)) : e(last, s);
    std::vector<std::string> rowStart = x, cell = x;
    rowStart[s] = b(last, s);
    cell[s] = fmt::format("({} + mdh_j)", b(last, s));
    declareLanes();
    line(fmt::format("{} *__restrict mdh_o = &{};", E, singleOutputCell(rowStart)));
    const std::string n = "mdh_n";
    line(fmt::format("int64_t mdh_j = 0, mdh_n = {};", segment));
    open("if (mdh_stream_ok)");
    // Each segment writes whole lines: from the row's first line boundary at
    // or after its first cell to the one at or after its end (the cells up to
    // it are the next segment's along the row, which starts past them), so
    // no two segments, or threads, share a line whatever the buffer's
    // alignment; the row's own ends stay put.  A line shared by two
    // segments' partial stores cost NumPy-placed outputs (16 bytes past a
    // page) their streaming: Jacobi1D 2^24 1.82 ms against 1.35 into a
    // line-aligned buffer, interleaved, where this writes ~1.3 into both.
    if (segmentsMoveOntoLines()) {
      line(fmt::format("const int64_t mdh_row_left = {} - {};", N(s), b(last, s)));
      line(fmt::format("auto mdh_to_line = [](const {} *p) {{ return int64_t((64 - reinterpret_cast<uintptr_t>(p) % 64) % 64) / int64_t(sizeof({})); }};", E, E));
      line(fmt::format("if ({} != 0) mdh_j = std::min<int64_t>(mdh_to_line(mdh_o), mdh_row_left);", b(last, s)));
      line(fmt::format("if ({} < mdh_row_left) mdh_n = std::min<int64_t>({} + mdh_to_line(mdh_o + {}), mdh_row_left);", segment, segment, segment));
    }
    const std::vector<std::string> rows = hasLanewiseF() ? rowPointers(s, rowStart) : std::vector<std::string>{};
    const std::string vectorF = rowLanesF(s, cell, rows, false), edgeF = rowLanesF(s, cell, rows, true);
    // With AVX-512 masks, a short row's partial first and last vectors are
    // f on the row's lanes, stored with a mask into their aligned vectors:
    // the lines a row shares with its neighbours get one store each, and
    // never one that straddles a streamed line (an unaligned store, even
    // masked, made Jacobi3D 254^3 4x slower).  Alone in the driver, with
    // the row pointers: Jacobi3D 254^3 (rows of 16 vectors), warm 41.0 ->
    // 43.6 GB/s, cold 24.6 -> 26.6, one cell at a time before.  Long rows
    // keep the cells one by one: Jacobi2D 4094^2 (256 vectors) ran 4-5%
    // slower cold with the masked edges (34.6-35.0 -> 32.3-33.3 GB/s, three
    // runs), for an unexplained memory effect of the masked loads, and has
    // no compute to save at its edges.  Then the scalar loop below does
    // nothing: mdh_j is on a vector boundary or at the row's end.
    const bool edges = !edgeF.empty();
    if (edges) {
      line("#if MDH_VBYTES == 64");
      line(fmt::format("const bool mdh_edges = {} < 64 * mdh_lanes;", segment));
      line(fmt::format("const int64_t mdh_k = int64_t(reinterpret_cast<uintptr_t>(mdh_o + mdh_j) % MDH_VBYTES) / int64_t(sizeof({}));", E));
      open("if (mdh_edges && mdh_k != 0 && mdh_j < mdh_n)");
      line("const int64_t mdh_lo = mdh_k, mdh_hi = std::min<int64_t>(mdh_lanes, mdh_k + (mdh_n - mdh_j));");
      line("const int64_t mdh_first = mdh_j;");
      line("mdh_j = mdh_first - mdh_k;");
      line(fmt::format("mdh_vstore_lanes(mdh_o + mdh_j, {}, mdh_lo, mdh_hi);", edgeF));
      line("mdh_j = mdh_first - mdh_k + mdh_hi;");
      close();
      line("#endif");
    }
    line(fmt::format("for (; mdh_j < {} && reinterpret_cast<uintptr_t>(mdh_o + mdh_j) % MDH_VBYTES != 0; ++mdh_j) mdh_o[mdh_j] = {};", n,
                     applyF(cell)));
    if (!vectorF.empty()) {
      open(fmt::format("for (; mdh_j + mdh_lanes <= {}; mdh_j += mdh_lanes)", n));
      prefetchLeading(s, cell, rows);
      line(fmt::format("mdh_vstream(mdh_o + mdh_j, {});", vectorF));
      close();
      if (edges) {
        line("#if MDH_VBYTES == 64");
        open(fmt::format("if (mdh_edges && mdh_j < {})", n));
        line(fmt::format("const int64_t mdh_lo = 0, mdh_hi = {} - mdh_j;", n));
        line(fmt::format("mdh_vstore_lanes(mdh_o + mdh_j, {}, mdh_lo, mdh_hi);", edgeF));
        line(fmt::format("mdh_j = {};", n));
        close();
        line("#endif");
      }
    } else {
      open(fmt::format("for (; mdh_j + mdh_lanes <= {}; mdh_j += mdh_lanes)", n));
      line(fmt::format("alignas(MDH_VBYTES) {} mdh_line[mdh_lanes];", E));
      std::vector<std::string> lane = x;
      lane[s] = fmt::format("({} + mdh_j + l)", b(last, s));
      line("#pragma omp simd");
      line(fmt::format("for (int64_t l = 0; l < mdh_lanes; ++l) mdh_line[l] = {};", applyF(lane)));
      line("mdh_vstream(mdh_o + mdh_j, mdh_vload<mdh_vec>(mdh_line));");
      close();
    }
    close();
    line("#pragma omp simd");
    open(fmt::format("for (int64_t j{0} = mdh_j; j{0} < {1}; ++j{0})", s, n));
    line(fmt::format("mdh_o[j{}] = {};", s, applyF(x)));
    close();
    for (int i = 0; i < opened; ++i) close();
  }

  void elementLoops(bool constant, const std::string &id, const std::string &scopeFirst) {
    if (streamsRowsDirectly()) {
      streamedRowLoops(constant);
      return;
    }
    const int last = lastLevel();
    // Element loops follow the innermost level's order, with the vector
    // dimension moved innermost.
    std::vector<int> order = C.levels[size_t(last)].order;
    if (C.simdDim >= 0) {
      order.erase(std::remove(order.begin(), order.end(), C.simdDim), order.end());
      order.push_back(C.simdDim);
    }
    std::vector<std::string> j(D), x(D);
    for (size_t d = 0; d < D; ++d) {
      j[d] = fmt::format("j{}", d);
      x[d] = fmt::format("({} + j{})", b(last, d), d);
    }
    const std::vector<std::string> bases = declarePanelPointers();
    int opened = 0;
    for (size_t k = 0; k < D; ++k) {
      size_t d = size_t(order[k]);
      std::string bound = constant ? fmt::format("INT64_C({})", tile(last, d)) : e(last, d);
      bool innermost = k + 1 == D;
      if (innermost && L.kept[d] && int(d) == C.simdDim) line("#pragma omp simd");
      else if (constant && unrolls(d)) line(fmt::format("#pragma GCC unroll {}", tile(last, d)));
      open(fmt::format("for (int64_t j{} = 0; j{} < {}; ++j{})", d, d, bound, d));
      ++opened;
    }
    std::string v = applyF(x, bases, j);
    std::string slot = fmt::format("mdh_acc[{}]", accIndex(j));
    if (!L.op) {
      line(fmt::format("{} = {};", slot, v)); // no reduction: every cell is written once
    } else if (!id.empty() && P.f->result.isPrimitive()) {
      line(fmt::format("{} = {};", slot, applyBinary(*L.op, slot, v)));
    } else if (!id.empty()) {
      // A tuple's component-wise combine names its operand once per component:
      // f is evaluated once (200 outputs were 200 calls of f per element).
      line(fmt::format("const {} mdh_f = {};", E, v));
      line(fmt::format("{} = {};", slot, applyBinary(*L.op, slot, "mdh_f")));
    } else {
      std::vector<std::string> conds = {scopeFirst};
      for (size_t d = 0; d < D; ++d)
        if (isRed(d) && !L.kept[d]) conds.push_back(fmt::format("j{} == 0", d));
      line(fmt::format("const {} mdh_f = {};", E, v));
      line(fmt::format("{} = ({}) ? mdh_f : {};", slot, fmt::join(conds, " && "), applyBinary(*L.op, slot, "mdh_f")));
    }
    for (int i = 0; i < opened; ++i) close();
  }

  /// The lane-wise form (`a + b`, `a * b`) in which flush() folds a row's `count` lane
  /// accumulators of a reduced vector dimension as a tree of halves (mdh_fold_lanes),
  /// or "" for the serial fold: floating-point sums and products over a power-of-two
  /// count. The serial fold was 31 dependent adds per row of 32 lanes, the most of a
  /// GEMV with few columns (50021 x 37: 0.155 -> 0.057 ms, NumPy 0.070; Zen 5).
  std::string foldableLaneOp(int64_t count) const {
    if (!L.op || L.op->kind != hl::BinaryOperator::Kind::Builtin || (E != "float" && E != "double")) return "";
    // Up to 256 lanes (register tiles are 16 to 64): a larger count, which a pinned tile
    // can make, would instantiate vector types of kilobytes.
    if (count < 2 || count > 256 || (count & (count - 1)) != 0) return "";
    if (L.op->builtin == hl::BuiltinOp::Add) return "a + b";
    if (L.op->builtin == hl::BuiltinOp::Mul) return "a * b";
    return "";
  }

  /// mdh_fold_lanes for foldableLaneOp(), once per translation unit.
  static std::string foldLanesHelpers() {
    return R"(#ifndef MDH_FOLD_LANES
#define MDH_FOLD_LANES
template <class S, int N> struct mdh_fold_vec { typedef S type __attribute__((vector_size(N * sizeof(S)))); };
// op over p[0, N) (N a power of two): the halves combined lane-wise, as vectors, until
// two values are left.
template <int N, class S, class Op> static inline S mdh_fold_lanes(const S *p, Op op) {
  if constexpr (N == 1) {
    return p[0];
  } else if constexpr (N == 2) {
    return op(p[0], p[1]);
  } else {
    typedef typename mdh_fold_vec<S, N / 2>::type H;
    H lo, hi;
    std::memcpy(&lo, p, sizeof(H));
    std::memcpy(&hi, p + N / 2, sizeof(H));
    const H h = op(lo, hi);
    S half[N / 2];
    std::memcpy(half, &h, sizeof(H));
    return mdh_fold_lanes<N / 2>(half, op);
  }
}
#endif
)";
  }

  void flush(const std::string &outerFirst) {
    const int last = lastLevel();
    if (!accDims().empty() && streamsAlong(accDims().back())) {
      streamFlush();
      return;
    }
    int opened = 0;
    std::vector<std::string> j(D, "0"), c(D);
    for (size_t d = 0; d < D; ++d) {
      if (isRed(d)) {
        c[d] = "INT64_C(0)";
        continue;
      }
      j[d] = fmt::format("j{}", d);
      c[d] = fmt::format("({} + j{})", b(last, d), d);
      open(fmt::format("for (int64_t j{} = 0; j{} < {}; ++j{})", d, d, e(last, d), d));
      ++opened;
    }
    int lanes = C.simdDim >= 0 && isRed(size_t(C.simdDim)) && L.kept[size_t(C.simdDim)] ? C.simdDim : -1;
    if (lanes >= 0) {
      std::vector<std::string> j0 = j;
      j0[size_t(lanes)] = "0";
      // All lanes: the ones a remainder tile did not reach hold the identity.
      const int64_t count = tile(last, size_t(lanes));
      if (const std::string op = foldableLaneOp(count); !op.empty()) {
        usedFoldLanes = true;
        line(fmt::format("{} mdh_v = mdh_fold_lanes<{}>(&mdh_acc[{}], [](auto a, auto b) {{ return {}; }});", E, count,
                         accIndex(j0), op));
      } else {
        line(fmt::format("{} mdh_v = mdh_acc[{}];", E, accIndex(j0)));
        std::vector<std::string> jl = j;
        jl[size_t(lanes)] = "l";
        line(fmt::format("for (int64_t l = 1; l < {}; ++l) mdh_v = {};", count,
                         applyBinary(*L.op, "mdh_v", fmt::format("mdh_acc[{}]", accIndex(jl)))));
      }
    } else {
      line(fmt::format("const {} mdh_v = mdh_acc[{}];", E, accIndex(j)));
    }
    bool anyRed = false;
    for (size_t d = 0; d < D; ++d) anyRed |= isRed(d);
    if (!anyRed) {
      storeOut(c, "mdh_v", dst);
    } else {
      open(fmt::format("if ({})", outerFirst));
      storeOut(c, "mdh_v", dst);
      close("} else {");
      ++indent;
      storeOut(c, applyBinary(*L.op, loadOperand(c, dst, "mdh_old"), "mdh_v"), dst);
      close();
    }
    for (int i = 0; i < opened; ++i) close();
  }

  /// ⊕ lane-wise on mdh_vec operands a and b for streamedScan(); "" when
  /// it has no lane-wise form (then the running values go one by one).
  std::string scanVectorOp() const {
    if (L.streamedScan < 0 || !L.op || !P.f->result.isNumeric()) return "";
    return vectorBinary(*L.op, "a", "b", "mdh_vec", "mdh_lanes");
  }

  /// Whether f has a vector version that lanes of cells can go through (it
  /// has one and takes no indices).
  bool hasLanewiseF() const { return !P.usesIndices && isVectorizable(*P.f); }

  /// f on the mdh_lanes cells from x along dimension p (x[p] is the first)
  /// through f's vector version; "" when f has none or takes indices.
  std::string scanLanesF(size_t p, const std::vector<std::string> &x) const { return rowLanesF(p, x, {}, false); }

  /// scanLanesF() with `rows` (rowPointers()): the accesses that have one
  /// read at rows[i] + mdh_j.  With `edge`, only lanes [mdh_lo, mdh_hi) are
  /// cells (a row's partial first or last vector): the inputs are read at
  /// those lanes only, and the other lanes repeat lane mdh_lo's values, so
  /// that f never sees a value from outside the inputs' cells.
  std::string rowLanesF(size_t p, const std::vector<std::string> &x, const std::vector<std::string> &rows, bool edge) const {
    if (!hasLanewiseF()) return "";
    std::vector<std::string> args;
    size_t ai = 0;
    for (const auto &b : P.inputs)
      for (const auto &a : b.accesses) {
        const size_t idx = ai++;
        const std::string at = idx < rows.size() && !rows[idx].empty() ? rows[idx] + " + mdh_j" : "&" + inputLoad(b, a, x);
        switch (laneStride(b, a, p)) {
        case 0: args.push_back(fmt::format("mdh_vsplat<{}>({})", lanesOf(b), inputLoad(b, a, x))); break;
        case 1:
          args.push_back(edge ? fmt::format("mdh_vload_lanes<{}>({}, mdh_lo, mdh_hi)", lanesOf(b), at)
                              : fmt::format("mdh_vload<{}>({})", lanesOf(b), at));
          break;
        default: args.push_back(gather(b, a, x, p, edge ? "(l < mdh_lo || l >= mdh_hi ? mdh_lo : l)" : "l"));
        }
      }
    return fmt::format("{}<mdh_lanes>({})", vectorFnName(*P.f), fmt::join(args, ", "));
  }

  /// For streamedRowLoops(): declares a pointer to the row's first cell for
  /// each input access that reads consecutive elements along s, and returns
  /// their names (in applyF()'s order; "" for the others).  Addressing the
  /// row through them keeps the vector loop's addresses in registers: with
  /// the full index expressions, GCC kept Jacobi3D's output pointer on the
  /// stack and reloaded it every vector.
  std::vector<std::string> rowPointers(size_t s, const std::vector<std::string> &rowStart) {
    std::vector<std::string> rows;
    size_t ai = 0;
    for (const auto &b : P.inputs)
      for (const auto &a : b.accesses) {
        const size_t idx = ai++;
        if (laneStride(b, a, s) != 1) {
          rows.push_back("");
          continue;
        }
        rows.push_back(fmt::format("mdh_r{}", idx));
        line(fmt::format("const {} *const mdh_r{} = &{};", cType(b.elem), idx, inputLoad(b, a, rowStart)));
      }
    return rows;
  }

  /// Whether streamedScan() goes whole vectors at a time from the inputs to
  /// the output: ⊕ and f have lane-wise forms, and the output is contiguous
  /// along p.
  bool scanInVectors(size_t p) const {
    return !scanVectorOp().empty() && outputContiguousAlong(p) && !scanLanesF(p, outCoords("c")).empty();
  }

  /// Declares mdh_lanes (cells of E in the widest vector) and mdh_vec (E in
  /// lanes).
  void declareLanes() {
    line(fmt::format("constexpr int64_t mdh_lanes = MDH_VBYTES / int64_t(sizeof({}));", E));
    line(fmt::format("typedef mdh_vt<{}, mdh_lanes> mdh_vec; (void)sizeof(mdh_vec);", E));
  }

  /// declareLanes() and mdh_vop (⊕ on mdh_vec, `vop` from scanVectorOp())
  /// for the vector code of streamedScan().
  void declareScanLanes(const std::string &vop) {
    declareLanes();
    line(fmt::format("const auto mdh_vop = [](mdh_vec a, mdh_vec b) {{ return {}; }};", vop));
  }

  /// scanRangeLambda() where scanInVectors(p): cells one by one until the
  /// output is at a vector boundary, then whole vectors straight from the
  /// inputs to the output (streaming stores with stream_stores), then the
  /// rest one by one.  Given mdh_fold2, the lambda also folds cells
  /// [mdh_lo2, mdh_hi2) into it, one vector of those per vector scanned: the
  /// next chunk is read from memory while this one is written (2^24 i32,
  /// interleaved: 5.8/5.6 -> 5.2/5.0 ms).
  void scanRangeVectors(size_t p, const std::string &vop) {
    const std::string cp = fmt::format("c{}", p);
    std::vector<std::string> c = outCoords("c"), c2 = c;
    c2[p] = "mdh_c2";
    auto scalarCell = [&] {
      line(fmt::format("const {} mdh_f = {};", E, applyF(c)));
      line(fmt::format("mdh_run = mdh_carried ? {} : mdh_f;", applyBinary(*L.op, "mdh_run", "mdh_f")));
      line("mdh_carried = true;");
      line(fmt::format("{} = mdh_run;", singleOutputCell(c)));
    };
    declareScanLanes(vop);
    line("int64_t mdh_c2 = mdh_lo2;");
    line("const bool mdh_folding = mdh_fold2 && mdh_hi2 - mdh_lo2 >= 2 * mdh_lanes;");
    line("mdh_vec mdh_vfold{};");
    open("if (mdh_folding)");
    line(fmt::format("mdh_vfold = {};", scanLanesF(p, c2)));
    line("mdh_c2 += mdh_lanes;");
    close();
    line(fmt::format("int64_t {} = mdh_lo;", cp));
    open(fmt::format("for (; {} < mdh_hi && reinterpret_cast<uintptr_t>(&{}) % MDH_VBYTES != 0; ++{})", cp, singleOutputCell(c), cp));
    scalarCell();
    close();
    line("mdh_vec mdh_cv = mdh_vsplat<mdh_vec>(mdh_run);");
    const std::string store = streamsAlong(p, false) ? fmt::format("mdh_vstream(&{}, mdh_v);", singleOutputCell(c))
                                                     : fmt::format("std::memcpy(&{}, &mdh_v, sizeof(mdh_vec));", singleOutputCell(c));
    // One vector of running values at c: scanned, combined with the carry
    // (when `carried`), stored; its last lane is the next carry.
    auto scanVector = [&](bool carried) {
      const std::string scanned = fmt::format("mdh_vscan({}, mdh_vop)", scanLanesF(p, c));
      line(fmt::format("const mdh_vec mdh_v = {};", carried ? fmt::format("mdh_vop(mdh_cv, {})", scanned) : scanned));
      line(store);
      line("mdh_cv = mdh_vlast(mdh_v);");
    };
    // The first vector of an uncarried range, then vectors that all combine
    // with the carry: no test in the loops that do the work.
    open(fmt::format("if (!mdh_carried && {} + mdh_lanes <= mdh_hi)", cp));
    scanVector(false);
    line("mdh_carried = true;");
    line(fmt::format("{} += mdh_lanes;", cp));
    close();
    open("if (mdh_folding)");
    open(fmt::format("for (; {0} + mdh_lanes <= mdh_hi && mdh_c2 + mdh_lanes <= mdh_hi2; {0} += mdh_lanes, mdh_c2 += mdh_lanes)", cp));
    prefetchLeading(p, c2);
    line(fmt::format("mdh_vfold = mdh_vop(mdh_vfold, {});", scanLanesF(p, c2)));
    scanVector(true);
    close();
    close();
    open(fmt::format("for (; {0} + mdh_lanes <= mdh_hi; {0} += mdh_lanes)", cp));
    scanVector(true);
    close();
    line("mdh_run = mdh_cv[0];");
    open(fmt::format("for (; {0} < mdh_hi; ++{0})", cp));
    scalarCell();
    close();
    open("if (mdh_fold2 && mdh_lo2 < mdh_hi2)");
    line(fmt::format("{} mdh_fold;", E));
    open("if (mdh_folding)");
    line(fmt::format("for (; mdh_c2 + mdh_lanes <= mdh_hi2; mdh_c2 += mdh_lanes) mdh_vfold = mdh_vop(mdh_vfold, {});", scanLanesF(p, c2)));
    line("mdh_fold = mdh_vfold[0];");
    line(fmt::format("for (int64_t l = 1; l < mdh_lanes; ++l) mdh_fold = {};", applyBinary(*L.op, "mdh_fold", "mdh_vfold[l]")));
    close("} else {");
    ++indent;
    line(fmt::format("mdh_fold = {};", applyF(c2)));
    line("++mdh_c2;");
    close();
    line(fmt::format("for (; mdh_c2 < mdh_hi2; ++mdh_c2) mdh_fold = {};", applyBinary(*L.op, "mdh_fold", applyF(c2))));
    line("*mdh_fold2 = mdh_fold;");
    close();
  }

  /// streamedScan()'s lambda `mdh_scan_range(lo, hi, carried, run)`: the
  /// scan of cells [lo, hi) of the current line along p, starting from
  /// run ⊕ f (f alone when not carried).  scanRangeVectors() where
  /// scanInVectors(p); else batches of 256 cells: f into mdh_x (a
  /// vectorisable loop), then the running values in place, whole vectors at
  /// a time by mdh_vscan where ⊕ has a lane-wise form, then the batch is
  /// stored as a row (streamed where streamsAlong(p, false)).
  void scanRangeLambda(size_t p, const std::string &dst) {
    const std::string cp = fmt::format("c{}", p);
    std::vector<std::string> c = outCoords("c");
    const std::string vop = scanVectorOp();
    if (scanInVectors(p)) {
      open(fmt::format("const auto mdh_scan_range = [&](const int64_t mdh_lo, const int64_t mdh_hi, bool mdh_carried, {0} mdh_run, "
                       "const int64_t mdh_lo2 = 0, const int64_t mdh_hi2 = 0, {0} *mdh_fold2 = nullptr)",
                       E));
      scanRangeVectors(p, vop);
      close("};");
      return;
    }
    open(fmt::format("const auto mdh_scan_range = [&](const int64_t mdh_lo, const int64_t mdh_hi, bool mdh_carried, {} mdh_run)", E));
    line(fmt::format("alignas(64) {} mdh_x[256];", E));
    open("for (int64_t mdh_at = mdh_lo; mdh_at < mdh_hi; mdh_at += 256)");
    line("const int64_t mdh_n = std::min<int64_t>(256, mdh_hi - mdh_at);");
    line("#pragma omp simd");
    open("for (int64_t l = 0; l < mdh_n; ++l)");
    line(fmt::format("const int64_t {} = mdh_at + l;", cp));
    line(fmt::format("mdh_x[l] = {};", applyF(c)));
    close();
    line("int64_t l = 0;");
    const bool stream = streamsAlong(p, false);
    std::vector<std::string> row = c;
    row[p] = "mdh_at";
    // Streamed rows that start on a vector go out vector by vector (through
    // mdh_x and mdh_stream_row instead, 2^24 i32 took 8.1 ms against 6.9);
    // the rest is one row.
    if (stream && !vop.empty())
      line(fmt::format("const bool mdh_direct = mdh_stream_ok && reinterpret_cast<uintptr_t>(&{}) % MDH_VBYTES == 0;", singleOutputCell(row)));
    if (!vop.empty()) {
      declareScanLanes(vop);
      line("mdh_vec mdh_cv = mdh_vsplat<mdh_vec>(mdh_run);");
      open("for (; l + mdh_lanes <= mdh_n; l += mdh_lanes)");
      line("mdh_vec mdh_v = mdh_vscan(mdh_vload<mdh_vec>(mdh_x + l), mdh_vop);");
      line("if (mdh_carried) mdh_v = mdh_vop(mdh_cv, mdh_v);");
      line("mdh_carried = true;");
      if (stream) {
        std::vector<std::string> at = c;
        at[p] = "(mdh_at + l)";
        line(fmt::format("if (mdh_direct) mdh_vstream(&{}, mdh_v);", singleOutputCell(at)));
        line("else std::memcpy(mdh_x + l, &mdh_v, sizeof(mdh_vec));");
      } else {
        line("std::memcpy(mdh_x + l, &mdh_v, sizeof(mdh_vec));");
      }
      line("mdh_cv = mdh_vlast(mdh_v);");
      close();
      line("mdh_run = mdh_cv[0];");
    }
    line("const int64_t mdh_vend = l;");
    line("(void)mdh_vend;");
    open("for (; l < mdh_n; ++l)");
    line(fmt::format("mdh_run = mdh_carried ? {} : mdh_x[l];", applyBinary(*L.op, "mdh_run", "mdh_x[l]")));
    line("mdh_carried = true;");
    line("mdh_x[l] = mdh_run;");
    close();
    if (stream) {
      if (!vop.empty()) {
        line("const int64_t mdh_from = mdh_direct ? mdh_vend : 0;");
        std::vector<std::string> rest = c;
        rest[p] = "(mdh_at + mdh_from)";
        line(fmt::format("mdh_stream_row(&{}, mdh_x + mdh_from, mdh_n - mdh_from, mdh_stream_ok);", singleOutputCell(rest)));
      } else {
        line(fmt::format("mdh_stream_row(&{}, mdh_x, mdh_n, mdh_stream_ok);", singleOutputCell(row)));
      }
    } else {
      open("for (int64_t l = 0; l < mdh_n; ++l)");
      line(fmt::format("const int64_t {} = mdh_at + l;", cp));
      storeOut(c, "mdh_x[l]", dst);
      close();
    }
    close();
    close("};");
  }

  /// streamedScan()'s fold of f over cells [lo, hi) (non-empty) of the
  /// current line along p into `target`, over consecutive cells in lanes (⊕
  /// is commutative, Lemma 10): vectors of f where scanLanesF() gives them,
  /// else 16 lanes in a loop that vectorises; short ranges one by one.
  void foldRange(size_t p, const std::string &lo, const std::string &hi, const std::string &target) {
    const std::string cp = fmt::format("c{}", p);
    std::vector<std::string> c = outCoords("c");
    const std::string vop = scanVectorOp(), lanesF = vop.empty() ? "" : scanLanesF(p, c);
    open("");
    line(fmt::format("{} mdh_fold;", E));
    if (!lanesF.empty()) {
      declareScanLanes(vop);
    }
    open(fmt::format("if ({} - {} >= {})", hi, lo, lanesF.empty() ? "32" : "2 * mdh_lanes"));
    if (!lanesF.empty()) {
      // Whole vectors of f straight from the inputs (2^24 i32: 6.7 -> 6.4 ms).
      line(fmt::format("int64_t {} = {};", cp, lo));
      line(fmt::format("mdh_vec mdh_vfold = {};", lanesF));
      open(fmt::format("for ({0} = {1} + mdh_lanes; {0} + mdh_lanes <= {2}; {0} += mdh_lanes)", cp, lo, hi));
      line(fmt::format("mdh_vfold = mdh_vop(mdh_vfold, {});", lanesF));
      close();
      line("mdh_fold = mdh_vfold[0];");
      line(fmt::format("for (int64_t l = 1; l < mdh_lanes; ++l) mdh_fold = {};", applyBinary(*L.op, "mdh_fold", "mdh_vfold[l]")));
      open(fmt::format("for (; {0} < {1}; ++{0})", cp, hi));
      line(fmt::format("mdh_fold = {};", applyBinary(*L.op, "mdh_fold", applyF(c))));
      close();
    } else {
      foldIn16Lanes(p, lo, hi);
    }
    close("} else {");
    ++indent;
    open("");
    line(fmt::format("const int64_t {} = {};", cp, lo));
    line(fmt::format("mdh_fold = {};", applyF(c)));
    close();
    open(fmt::format("for (int64_t {0} = {1} + 1; {0} < {2}; ++{0})", cp, lo, hi));
    line(fmt::format("mdh_fold = {};", applyBinary(*L.op, "mdh_fold", applyF(c))));
    close();
    close();
    line(fmt::format("{} = mdh_fold;", target));
    close();
  }

  /// foldRange()'s fold into mdh_fold of at least 32 cells in 16 lanes.
  void foldIn16Lanes(size_t p, const std::string &lo, const std::string &hi) {
    const std::string cp = fmt::format("c{}", p);
    std::vector<std::string> c = outCoords("c");
    line(fmt::format("{} mdh_lane[16];", E));
    open("for (int64_t l = 0; l < 16; ++l)");
    line(fmt::format("const int64_t {} = {} + l;", cp, lo));
    line(fmt::format("mdh_lane[l] = {};", applyF(c)));
    close();
    line(fmt::format("int64_t mdh_at = {} + 16;", lo));
    open(fmt::format("for (; mdh_at + 16 <= {}; mdh_at += 16)", hi));
    line("#pragma omp simd");
    open("for (int64_t l = 0; l < 16; ++l)");
    line(fmt::format("const int64_t {} = mdh_at + l;", cp));
    line(fmt::format("mdh_lane[l] = {};", applyBinary(*L.op, "mdh_lane[l]", applyF(c))));
    close();
    close();
    line("mdh_fold = mdh_lane[0];");
    line(fmt::format("for (int64_t l = 1; l < 16; ++l) mdh_fold = {};", applyBinary(*L.op, "mdh_fold", "mdh_lane[l]")));
    open(fmt::format("for (int64_t {0} = mdh_at; {0} < {1}; ++{0})", cp, hi));
    line(fmt::format("mdh_fold = {};", applyBinary(*L.op, "mdh_fold", applyF(c))));
    close();
  }

  /// flush() as streamed rows: one mdh_stream_row per row of the
  /// accumulators along their innermost dimension (streamsAlong() holds).
  void streamFlush() {
    const int last = lastLevel();
    const std::vector<size_t> dims = accDims();
    const size_t row = dims.back();
    std::vector<std::string> j(D, "0"), c(D);
    int opened = 0;
    for (size_t d : dims) {
      c[d] = fmt::format("({} + j{})", b(last, d), d);
      if (d == row) continue;
      j[d] = fmt::format("j{}", d);
      open(fmt::format("for (int64_t j{} = 0; j{} < {}; ++j{})", d, d, e(last, d), d));
      ++opened;
    }
    c[row] = b(last, row);
    line(fmt::format("mdh_stream_row(&{}, &mdh_acc[{}], {}, mdh_stream_ok);", singleOutputCell(c), accIndex(j), e(last, row)));
    for (int i = 0; i < opened; ++i) close();
  }

  /// A program whose only non-concatenation dimension p is a prefix sum
  /// (Lowered::streamedScan): every line along p is scanned while f is
  /// evaluated, so each input is read and each output written once.  Few
  /// long lines are cut into chunks of about 128 KiB, dealt out in rounds of
  /// one chunk per thread: each thread folds its chunk (inputs only), and
  /// after a barrier scans it again, now from its cache, starting from the
  /// folds of all earlier chunks (combined in index order).  The totals of
  /// a round alternate between two halves of mdh_total, so one barrier per
  /// round suffices: a thread writes a half again only two rounds later,
  /// after every thread has passed the barrier that follows its last read.
  /// Where scanInVectors(p), the fold of a thread's next chunk runs inside
  /// the scan of its current one (memory is read while it is written); the
  /// barrier then ends the round.
  void streamedScan(size_t p) {
    const std::string dst = L.directOutput ? "" : "mdh_tmp.data()";
    const bool stream = streamsAlong(p, false);
    if (!L.directOutput) line(fmt::format("mdh_array<{}> mdh_tmp(static_cast<size_t>(mdh_cells));", E));
    const bool across = p + 1 < D;
    if (across) {
      open(fmt::format("if ({} >= 16 && (mdh_cells / ({} * {}) * (({} + 255) / 256) >= mdh_threads || {} < INT64_C(32768)))",
                       N(D - 1), N(p), N(D - 1), N(D - 1), N(p)));
      scanAcrossLines(p, dst);
      close("} else {");
      ++indent;
    }
    line(fmt::format("// prefix sum along dimension {}, streamed", p + 1));
    line(fmt::format("const int64_t mdh_lines = mdh_cells / {};", N(p)));
    auto decodeLine = [&]() { decodeCoordsExcept("line", p, D); };
    open(fmt::format("if (mdh_lines >= mdh_threads || {} / mdh_threads < INT64_C(32768))", N(p)));
    line("#pragma omp parallel num_threads(mdh_threads)");
    open("");
    line("#pragma omp for schedule(static)");
    open("for (int64_t line = 0; line < mdh_lines; ++line)");
    decodeLine();
    scanRangeLambda(p, dst);
    line(fmt::format("mdh_scan_range(INT64_C(0), {}, false, {}{{}});", N(p), E));
    close();
    if (stream) line("mdh_stream_fence();");
    close();
    close("} else {");
    ++indent;
    line(fmt::format("constexpr int64_t mdh_chunk = std::max<int64_t>(1024, 131072 / int64_t(sizeof({})));", E));
    line(fmt::format("mdh_array<{}> mdh_total(2 * static_cast<size_t>(mdh_threads));", E));
    open("for (int64_t line = 0; line < mdh_lines; ++line)");
    decodeLine();
    line("#pragma omp parallel num_threads(mdh_threads)");
    open("");
    // The team may be smaller than asked for (a call from inside a parallel region runs on one thread).
    line("const int64_t t = omp_get_thread_num(), mdh_team = omp_get_num_threads();");
    scanRangeLambda(p, dst);
    open("if (mdh_team == 1)");
    line(fmt::format("mdh_scan_range(INT64_C(0), {}, false, {}{{}});", N(p), E));
    close("} else {");
    ++indent;
    line(fmt::format("{} mdh_base{{}};", E));
    // Pipelined (scanInVectors): the fold of round r + 1's chunk runs inside
    // the scan of round r's, so a round ends with the barrier after which
    // its successor's totals are complete.
    const bool pipelined = scanInVectors(p);
    auto chunkOf = [&](const std::string &round, const std::string &lo, const std::string &hi) {
      line(fmt::format("const int64_t {1} = std::min<int64_t>({0}, ({2} * mdh_team + t) * mdh_chunk), {3} = std::min<int64_t>({0}, {1} + mdh_chunk);",
                       N(p), lo, round, hi));
    };
    if (pipelined) {
      open("");
      chunkOf("0", "lo", "hi");
      open("if (lo < hi)");
      foldRange(p, "lo", "hi", "mdh_total[size_t(t)]");
      close();
      close();
      line("#pragma omp barrier");
    }
    open(fmt::format("for (int64_t r = 0; r * mdh_team * mdh_chunk < {}; ++r)", N(p)));
    line(fmt::format("{} *mdh_tot = &mdh_total[size_t((r & 1) * mdh_team)];", E));
    chunkOf("r", "lo", "hi");
    if (pipelined) {
      chunkOf("(r + 1)", "lo2", "hi2");
    } else {
      open("if (lo < hi)");
      foldRange(p, "lo", "hi", "mdh_tot[t]");
      close();
      line("#pragma omp barrier");
    }
    open("if (lo < hi)");
    line("const bool mdh_carried = r > 0 || t > 0;");
    line(fmt::format("{} mdh_carry = r > 0 ? mdh_base : mdh_tot[0];", E));
    line(fmt::format("for (int64_t u = r > 0 ? 0 : 1; u < t; ++u) mdh_carry = {};", applyBinary(*L.op, "mdh_carry", "mdh_tot[u]")));
    if (pipelined)
      line("mdh_scan_range(lo, hi, mdh_carried, mdh_carry, lo2, hi2, &mdh_total[size_t(((r + 1) & 1) * mdh_team + t)]);");
    else
      line("mdh_scan_range(lo, hi, mdh_carried, mdh_carry);");
    close();
    line(fmt::format("const int64_t mdh_live = std::min<int64_t>(mdh_team, ({} - r * mdh_team * mdh_chunk + mdh_chunk - 1) / mdh_chunk);", N(p)));
    line("if (r == 0) mdh_base = mdh_tot[0];");
    line(fmt::format("for (int64_t u = r > 0 ? 0 : 1; u < mdh_live; ++u) mdh_base = {};", applyBinary(*L.op, "mdh_base", "mdh_tot[u]")));
    if (pipelined) line("#pragma omp barrier");
    close();
    close();
    if (stream) line("mdh_stream_fence();");
    close();
    close();
    close();
    if (across) close();
    if (!L.directOutput) scatter("mdh_tmp.data()");
  }

  /// Declares c<k> for the dimensions k < `end` other than `skip` from the linear index
  /// `from` (the last of them varies fastest).
  void decodeCoordsExcept(const std::string &from, size_t skip, size_t end) {
    line(fmt::format("int64_t mdh_rem = {};", from));
    for (size_t k = end; k-- > 0;) {
      if (k == skip) continue;
      line(fmt::format("const int64_t c{} = mdh_rem % {}; mdh_rem /= {};", k, N(k), N(k)));
    }
    line("(void)mdh_rem;");
  }

  /// streamedScan() along a dimension p other than the last: its lines are strided, so
  /// instead of one line at a time (each cell a cache line of its own), blocks of 256
  /// cells along the last dimension step down p together, one running value each, in a
  /// loop over the block that vectorises; every cell is read and written once, in the
  /// order of the sequential scan (the same bits).  The blocks and the lines of the
  /// other dimensions are shared out over the threads.
  void scanAcrossLines(size_t p, const std::string &dst) {
    const size_t last = D - 1;
    std::vector<std::string> c = outCoords("c");
    line(fmt::format("// prefix sum along dimension {}, blocks of dimension {} side by side", p + 1, last + 1));
    line(fmt::format("const int64_t mdh_rows = mdh_cells / ({} * {});", N(p), N(last)));
    line(fmt::format("const int64_t mdh_blocks = ({} + 255) / 256;", N(last)));
    line("#pragma omp parallel for schedule(static) num_threads(mdh_threads)");
    open("for (int64_t mdh_part = 0; mdh_part < mdh_rows * mdh_blocks; ++mdh_part)");
    decodeCoordsExcept("mdh_part / mdh_blocks", p, last);
    line(fmt::format("const int64_t mdh_lo = mdh_part % mdh_blocks * 256, mdh_n = std::min<int64_t>(256, {} - mdh_lo);", N(last)));
    line(fmt::format("alignas(64) {} mdh_run[256];", E));
    open(fmt::format("for (int64_t c{0} = 0; c{0} < {1}; ++c{0})", p, N(p)));
    line("#pragma omp simd");
    open("for (int64_t l = 0; l < mdh_n; ++l)");
    line(fmt::format("const int64_t c{} = mdh_lo + l;", last));
    line(fmt::format("const {} mdh_v = {};", E, applyF(c)));
    line(fmt::format("mdh_run[l] = c{} == 0 ? mdh_v : {};", p, applyBinary(*L.op, "mdh_run[l]", "mdh_v")));
    storeOut(c, "mdh_run[l]", dst);
    close();
    close();
    close();
  }

  /// Inclusive scan of the output MDA along dimension d.
  void scan(size_t d, const std::string &temp) {
    line(fmt::format("// prefix sum along dimension {}", d + 1));
    open("");
    line(fmt::format("const int64_t mdh_lines = mdh_cells / {};", N(d)));
    std::vector<std::string> c = outCoords("c"), cprev = c;
    c[d] = fmt::format("c{}", d);
    cprev[d] = fmt::format("(c{} - 1)", d);
    auto decodeLine = [&]() {
      line("int64_t mdh_rem = line;");
      for (size_t k = D; k-- > 0;) {
        if (isRed(k) || k == d) continue;
        line(fmt::format("const int64_t c{} = mdh_rem % {}; mdh_rem /= {};", k, N(k), N(k)));
      }
      line("(void)mdh_rem;");
    };
    open("if (mdh_lines >= mdh_threads || mdh_threads == 1)");
    line("#pragma omp parallel for schedule(static) num_threads(mdh_threads)");
    open("for (int64_t line = 0; line < mdh_lines; ++line)");
    decodeLine();
    open(fmt::format("for (int64_t c{} = 1; c{} < {}; ++c{})", d, d, N(d), d));
    {
      const std::string prev = loadOperand(cprev, temp, "mdh_prev"), cur = loadOperand(c, temp, "mdh_cur");
      storeOut(c, applyBinary(*L.op, prev, cur), temp);
    }
    close();
    close();
    close("} else {");
    ++indent;
    // Few long lines: blocked scan (scan blocks, carry in order, apply carries).
    open("for (int64_t line = 0; line < mdh_lines; ++line)");
    decodeLine();
    line(fmt::format("mdh_array<{}> mdh_carry(static_cast<size_t>(mdh_threads));", E));
    line("#pragma omp parallel num_threads(mdh_threads)");
    open("");
    // The team may be smaller than asked for (a call from inside a parallel region runs on one thread).
    line("const int64_t t = omp_get_thread_num(), mdh_team = omp_get_num_threads();");
    line(fmt::format("const int64_t mdh_block = ({} + mdh_team - 1) / mdh_team;", N(d)));
    line(fmt::format("const int64_t lo = t * mdh_block, hi = std::min<int64_t>({}, lo + mdh_block);", N(d)));
    open(fmt::format("for (int64_t c{} = lo + 1; c{} < hi; ++c{})", d, d, d));
    {
      const std::string prev = loadOperand(cprev, temp, "mdh_prev"), cur = loadOperand(c, temp, "mdh_cur");
      storeOut(c, applyBinary(*L.op, prev, cur), temp);
    }
    close();
    line("#pragma omp barrier");
    line("#pragma omp single");
    open("");
    open("for (int64_t u = 1; u < mdh_team; ++u)");
    line(fmt::format("const int64_t prevHi = std::min<int64_t>({}, u * mdh_block);", N(d)));
    line(fmt::format("if (prevHi <= (u - 1) * mdh_block) {{ mdh_carry[size_t(u)] = mdh_carry[size_t(u - 1)]; continue; }}"));
    {
      std::vector<std::string> cl = c;
      cl[d] = "(prevHi - 1)";
      line(fmt::format("const {} tot = {};", E, loadOut(cl, temp)));
      line(fmt::format("mdh_carry[size_t(u)] = u == 1 ? tot : {};", applyBinary(*L.op, "mdh_carry[size_t(u - 1)]", "tot")));
    }
    close();
    close();
    open("if (t > 0)");
    open(fmt::format("for (int64_t c{} = lo; c{} < hi; ++c{})", d, d, d));
    storeOut(c, applyBinary(*L.op, "mdh_carry[size_t(t)]", loadOut(c, temp)), temp);
    close();
    close();
    close();
    close();
    close();
    close();
  }

public:
  /// The .h; `configuration`: the lines naming the configuration(s) (a dispatch's); empty: this one's.
  std::string header(const std::string &configuration = "") const {
    HeaderTypes types(P, {name, name + "_run"});
    const std::string sig = declaration([&](const Type &t) { return types.type(t); });
    std::string h = fmt::format(R"(// {0}.h — generated by mdhc {1} (OpenMP backend). Do not edit.
//
// Entry: {2};
//
// Contract:
//  * Buffers are dense, row-major (C order), with the shapes below; inputs and
//    outputs must not overlap (they are declared __restrict). No alignment is
//    required beyond the element type's.
//  * Records and tuples use the C layout with natural alignment, fields in
//    declaration order — the same as NumPy's np.dtype([...], align=True).
//  * Threads: OpenMP; {3}. The call is re-entrant: the kernel keeps no state
//    between calls, and the same configuration and thread count give
//    bitwise-identical results run after run.
//  * Output cells that no output-view access writes are left untouched.
//  * Status: 0 on success. 1 when a run-time size is below 1 or puts an access
//    outside its buffer (docs/language.md §12.5), or a buffer is a null
//    pointer: it prints why on stderr and writes no output. 2 when its
//    scratch storage cannot be allocated: it prints so, and the outputs may
//    be partly written. <name>_run returns the same status.
//  * Integer division by zero yields 0 (docs/language.md §14).
//  * This header is valid C11 and C++; the .cpp is C++17 (link a C program
//    with a C++ compiler driver, or add -lstdc++).
//  * Built with: {4}
{5}//
)", name, MDH_VERSION, sig, C.threads > 0 ? fmt::format("{} thread{} (pinned by the configuration)", C.threads, C.threads == 1 ? "" : "s") : "the thread count is OMP_NUM_THREADS or omp_set_num_threads()",
                                buildFlags(C.strictFp) + (C.strictFp ? " (strict: the source turns contraction off for GCC and Clang, "
                                                                      "unless Clang is given -ffp-contract=fast)" : "") +
                                    "; with GCC 12 also --param=vrp2-mode=vrp (GCC 12.2 miscompiles some kernels "
                                    "without it: docs/compiler.md, \"A host-compiler bug\")",
                                configuration.empty() ? "//  * Configuration: " + ll::toJson(C).dump() + "\n" : configuration);
    h += shapesComment(P);
    h += "#pragma once\n" + types.declarations() + "\n";
    h += "#ifdef __cplusplus\nextern \"C\" {\n#endif\n";
    h += sig + ";\nint " + name + "_run(const int64_t *sizes, void *const *buffers);\n";
    h += "#ifdef __cplusplus\n}\n#endif\n";
    return h;
  }
};

} // namespace

EmittedKernel emitOpenMP(const ll::Lowered &l, const std::string &name) { return Emitter(l, name).run(); }

EmittedKernel emitOpenMPDispatch(const std::vector<ll::Lowered> &variants, const ll::VectorDimensionRule &rule,
                                 const ll::StreamingRule &streaming, const std::string &name) {
  if (variants.size() == 1) return emitOpenMP(variants[0], name);
  EmittedKernel k = emitOpenMP(variants[0], name); // the public name, common part, flags and header
  std::vector<Emitter::DispatchVariant> symbols;
  std::string kernels, configuration = "//  * Configurations (one per vector dimension and store kind, chosen when the kernel\n"
                                       "//    starts from the sizes it is called with, as mdhc chooses for known sizes):\n";
  const hl::Program &p = *variants[0].program;
  for (size_t i = 0; i < variants.size(); ++i) {
    const ll::Config &c = variants[i].config;
    const std::string symbol = fmt::format("mdh_v{}_{}", i, k.name);
    kernels += Emitter(variants[i], symbol, k.name).run().kernel;
    symbols.push_back({c.simdDim, c.streamStores, symbol});
    configuration += fmt::format("//    - vector dimension {}{}{}: {}\n", c.simdDim >= 0 ? p.dimNames[size_t(c.simdDim)] : "none",
                                 c.streamStores ? ", streaming stores" : "", i == 0 ? " (also for any other choice)" : "",
                                 ll::toJson(c).dump());
  }
  Emitter entry(variants[0], k.name);
  k.kernel = kernels + entry.dispatchEntry(rule, streaming, symbols);
  k.source = k.common + k.kernel;
  k.header = entry.header(configuration);
  return k;
}

} // namespace mdh::codegen
