/** \file
 * GPU C kernels of a GpuPlan (see GpuKernelWriter.h).
 *
 * Kernels of a configuration `<name>`:
 *   <name>_tile     tiled strategy: one work-group per work-group tile
 *   <name>_canon    canonical strategy: one work-item per output cell, or, with
 *                   prefix-sum dimensions, one per block of cells over them (each scan's
 *                   running value is carried: linear, same bits; one per index combination
 *                   of the point-wise dimensions before it and the scans after it, in
 *                   mdh_sums, or private when there are none)
 *   <name>_combine  partial results of work-groups that split a reduction, in part order
 *   <name>_scanA_d / scanB_d / scanC_d   prefix sum along dimension d: block scan,
 *                   scan of block totals per line, carries added
 *   <name>_scatter  temporary MDA written through the output views
 */
#include "codegen/GpuKernelWriter.h"

#include "codegen/CanonicalCarries.h"
#include "codegen/ScalarC.h"

#include <fmt/format.h>

#include <optional>

namespace mdh::codegen {

std::string gpuStorageType(const Type &t) { return t.kind == Type::Kind::Bool ? "uint8_t" : cType(t); }

std::string gpuCommon(const hl::Program &p) {
  Dialect d = gpuDialect();
  return emitTypeDecls(p, d) + emitGpuHelpers(p) + emitFunctions(p, d);
}

std::string dialectPrelude(GpuDialect d, bool strictFp) {
  if (d == GpuDialect::OpenCL)
    return fmt::format(R"(// ---- OpenCL C dialect ----
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
{}typedef char int8_t;
typedef short int16_t;
typedef int int32_t;
typedef long int64_t;
typedef uchar uint8_t;
typedef ushort uint16_t;
typedef uint uint32_t;
typedef ulong uint64_t;
#define INT64_C(x) ((int64_t)(x##L))
#define INT64_MIN ((int64_t)(-9223372036854775807L - 1))
#define MDH_FN static inline __attribute__((overloadable))
#define MDH_STATIC_ASSERT(c, m) _Static_assert(c, m)
#define MDH_KERNEL __kernel
#define MDH_WG(n) __attribute__((reqd_work_group_size(n, 1, 1)))
#define MDH_GLOBAL __global
#define MDH_GROUP_ID ((int64_t)get_group_id(0))
#define MDH_LOCAL_ID ((int64_t)get_local_id(0))
#define MDH_BARRIER() barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE)
#define MDH_SMEM_DECL
#define MDH_LOCAL_ARRAY(T, name, n, off) __local T name[n]
)", strictFp ? "#pragma OPENCL FP_CONTRACT OFF\n" : "");
  return R"(// ---- CUDA dialect ----
#include <cstdint>
#include <cmath>
#define MDH_FN __device__ __forceinline__
#define MDH_STATIC_ASSERT(c, m) static_assert(c, m)
#define MDH_KERNEL extern "C" __global__
#define MDH_WG(n) __launch_bounds__(n)
#define MDH_GLOBAL
#define MDH_GROUP_ID ((int64_t)blockIdx.x)
#define MDH_LOCAL_ID ((int64_t)threadIdx.x)
#define MDH_BARRIER() __syncthreads()
#define MDH_SMEM_DECL extern __shared__ __align__(16) unsigned char mdh_smem[];
#define MDH_LOCAL_ARRAY(T, name, n, off) T *name = (T *)(mdh_smem + (off))
)";
}

namespace {

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

class Writer {
public:
  Writer(const GpuPlan &g, std::string name) : G(g), L(*g.lowered), P(*g.program), name(std::move(name)) {
    D = P.dims();
    E = cType(P.f->result);
    S = gpuStorageType(P.f->result);
    dia = gpuDialect();
  }

  GpuKernels run() {
    GpuKernels k;
    k.tempType = S;
    k.tempBytes = int64_t(P.f->result.size());
    hostSizes(k);
    if (G.canonical) canonKernel(k);
    else tileKernel(k);
    if (G.wgRedSplit) combineKernel(k);
    for (size_t d = 0; d < D; ++d)
      if (G.prefix[d] && !G.canonical) scanKernels(k, d);
    if (!G.directOutput) scatterKernel(k);
    k.kernels = out;
    return k;
  }

private:
  const GpuPlan &G;
  const ll::Lowered &L;
  const hl::Program &P;
  std::string name;
  size_t D = 0;
  std::string E, S;
  Dialect dia;
  std::string out;
  int indent = 0;

  void line(const std::string &s) { out += std::string(size_t(indent * 2), ' ') + s + "\n"; }
  void open(const std::string &s) { line(s + " {"); ++indent; }
  void close(const std::string &s = "}") { --indent; line(s); }
  std::string N(size_t d) const { return fmt::format("N{}", d); }
  bool isRed(size_t d) const { return G.reduced[d]; }
  std::string op(const std::string &a, const std::string &b) const { return applyBinary(*L.op, a, b, dia); }

  std::string params() const {
    std::vector<std::string> ps;
    for (const auto &s : P.dynamicSizes) ps.push_back("int64_t sz_" + s);
    for (const auto &b : P.inputs) ps.push_back(fmt::format("MDH_GLOBAL const {} *in_{}", gpuStorageType(b.elem), b.name));
    for (const auto &b : P.outputs) ps.push_back(fmt::format("MDH_GLOBAL {} *out_{}", gpuStorageType(b.elem), b.name));
    ps.push_back(fmt::format("MDH_GLOBAL {} *mdh_tmp", S));
    ps.push_back(fmt::format("MDH_GLOBAL {} *mdh_sums", S));
    return fmt::format("{}", fmt::join(ps, ", "));
  }

  void beginKernel(const std::string &k, int64_t groupSize) {
    out += fmt::format("\nMDH_KERNEL MDH_WG({}) void {}_{}({}) {{\n", groupSize, name, k, params());
    indent = 1;
    line("MDH_SMEM_DECL");
    // (void): kernels such as the scatter of combined cells use only some sizes.
    for (size_t d = 0; d < D; ++d) line(fmt::format("const int64_t {0} = {1}; (void){0};", N(d), polyC(P.sizes[d])));
    std::string cells = "INT64_C(1)";
    for (size_t d = 0; d < D; ++d)
      if (!isRed(d)) cells += "*" + N(d);
    line(fmt::format("const int64_t mdh_cells = {};", cells));
    line("(void)mdh_cells;");
  }
  void endKernel() {
    indent = 0;
    out += "}\n";
  }

  void hostSizes(GpuKernels &k) {
    std::string h;
    for (size_t d = 0; d < D; ++d) h += fmt::format("  const int64_t {} = {};\n", N(d), polyC(P.sizes[d]));
    std::string cells = "INT64_C(1)", groups = "INT64_C(1)", redParts = "INT64_C(1)";
    for (size_t d = 0; d < D; ++d) {
      if (!isRed(d)) cells += "*" + N(d);
      h += fmt::format("  const int64_t cp{} = ({} + {} - 1) / {};\n", d, N(d), G.wgTile[d], G.wgTile[d]);
      groups += fmt::format("*cp{}", d);
      if (isRed(d)) redParts += fmt::format("*cp{}", d);
    }
    h += fmt::format("  const int64_t mdh_cells = {};\n", cells);
    h += fmt::format("  const int64_t mdh_groups = {};\n", groups);
    h += fmt::format("  const int64_t mdh_red_parts = {};\n", G.wgRedSplit ? redParts : "INT64_C(1)");
    h += "  const int64_t mdh_tmp_elems = mdh_cells * mdh_red_parts;\n";
    std::string sums = "INT64_C(1)";
    for (size_t d = 0; d < D; ++d)
      if (G.prefix[d] && !G.canonical) {
        h += fmt::format("  const int64_t mdh_nb{} = ({} + {} - 1) / {};\n", d, N(d), G.auxGroupSize, G.auxGroupSize);
        h += fmt::format("  const int64_t mdh_lines{} = {} > 0 ? mdh_cells / {} : 0;\n", d, N(d), N(d));
        sums = fmt::format("std::max<int64_t>({}, mdh_lines{} * mdh_nb{})", sums, d, d);
      }
    // The canonical block kernel's blocks and the running values kept in mdh_sums.
    h += fmt::format("  const int64_t mdh_canon_blocks = ({0}) > 0 ? mdh_cells / ({0}) : 0;\n", G.canonical ? blockCells() : "INT64_C(1)");
    if (G.canonical && !scanDimensions(P).empty() && !sharedCarries().empty())
      sums = fmt::format("mdh_canon_blocks * ({})", sharedCarrySlots());
    h += fmt::format("  const int64_t mdh_sums_elems = {};\n", sums);
    h += "  (void)mdh_groups; (void)mdh_red_parts; (void)mdh_canon_blocks;\n";
    k.hostSizes = h;
  }

  // ---- buffers and the output MDA (as in the OpenMP emitter) -------------------------------
  std::vector<std::string> strides(const hl::Buffer &b) const {
    std::vector<std::string> s(b.shape.size());
    std::string acc = "INT64_C(1)";
    for (size_t k = b.shape.size(); k-- > 0;) {
      s[k] = acc;
      acc = acc == "INT64_C(1)" ? polyC(b.shape[k]) : acc + "*" + polyC(b.shape[k]);
    }
    return s;
  }
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
    return fmt::format("{}", fmt::join(parts, " + "));
  }
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
  /// The MDA cell at c: in the output buffers (direct) or in mdh_tmp.
  std::string loadOut(const std::vector<std::string> &c) const {
    if (!G.directOutput) return fmt::format("mdh_tmp[{}]", outLinear(c));
    auto comps = outputComponents();
    std::vector<std::string> parts;
    for (auto [b, a] : comps) parts.push_back(fmt::format("out_{}[{}]", b->name, linearIndex(*b, b->accesses[a], c)));
    if (parts.size() == 1) return parts[0];
    return fmt::format("{}({})", makeFn(P.f->result), fmt::join(parts, ", "));
  }
  void storeOut(const std::vector<std::string> &c, const std::string &v) {
    if (!G.directOutput) {
      line(fmt::format("mdh_tmp[{}] = {};", outLinear(c), v));
      return;
    }
    auto comps = outputComponents();
    if (comps.size() == 1) {
      line(fmt::format("out_{}[{}] = {};", comps[0].first->name, linearIndex(*comps[0].first, comps[0].first->accesses[comps[0].second], c), v));
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
  void decodeOutCell(const std::string &q, const char *prefix) {
    line(fmt::format("int64_t mdh_qrem = {};", q));
    for (size_t d = D; d-- > 0;) {
      if (isRed(d)) continue;
      line(fmt::format("const int64_t {}{} = mdh_qrem % {}; mdh_qrem /= {};", prefix, d, N(d), N(d)));
    }
    line("(void)mdh_qrem;");
  }

  // ---- f and staged loads --------------------------------------------------------------------
  struct InScope {
    const GpuStage *stage;
  };
  std::vector<InScope> staged;

  std::string inputLoad(const hl::Buffer &b, const hl::Access &a, const std::vector<std::string> &x) const {
    for (auto it = staged.rbegin(); it != staged.rend(); ++it) {
      const GpuStage &s = *it->stage;
      if (s.buffer != &b) continue;
      std::vector<int64_t> lstride(b.shape.size(), 1);
      int64_t acc = 1;
      for (size_t m = s.layout.size(); m-- > 0;) {
        lstride[size_t(s.layout[m])] = acc;
        acc *= s.maxExt[size_t(s.layout[m])];
      }
      std::vector<std::string> parts;
      for (size_t k = 0; k < a.dims.size(); ++k)
        parts.push_back(fmt::format("(({}) - {}_lo{})*INT64_C({})", indexComponent(a.dims[k], x), s.var, k, lstride[k]));
      return fmt::format("{}[{}]", s.var, parts.empty() ? "0" : fmt::format("{}", fmt::join(parts, " + ")));
    }
    return fmt::format("in_{}[{}]", b.name, linearIndex(b, a, x));
  }
  std::string applyF(const std::vector<std::string> &x) const {
    std::vector<std::string> args;
    if (P.usesIndices)
      for (size_t d = 0; d < D; ++d) args.push_back(x[d]);
    for (const auto &b : P.inputs)
      for (const auto &a : b.accesses) args.push_back(inputLoad(b, a, x));
    return fmt::format("{}({})", fnName(*P.f), fmt::join(args, ", "));
  }

  // ---- canonical strategy ------------------------------------------------------------------
  /// Cells per block of the block kernel: the product of the scanned extents.
  std::string blockCells() const {
    std::string n = "INT64_C(1)";
    for (size_t p : scanDimensions(P)) n += "*" + N(p);
    return n;
  }
  /// The scans whose running values live in mdh_sums (those with selectors); the others
  /// have one running value per block, private to the work-item (mdh_carry<p>).
  std::vector<size_t> sharedCarries() const {
    std::vector<size_t> shared;
    for (size_t p : scanDimensions(P))
      if (!carrySelectors(P, p).empty()) shared.push_back(p);
    return shared;
  }
  /// mdh_sums elements per block: every shared scan's slots, one after the other.
  std::string sharedCarrySlots() const {
    std::string n;
    for (size_t p : sharedCarries()) n += (n.empty() ? "" : " + ") + carrySlotCount(P, p);
    return n.empty() ? "INT64_C(0)" : n;
  }
  /// Where scan p's running value for the current selectors is: private (mdh_carry<p>), or
  /// p's slots in this block's part of mdh_sums.
  std::string carrySlot(size_t p) const {
    if (carrySelectors(P, p).empty()) return fmt::format("mdh_carry{}", p);
    std::string offset;
    for (size_t q : sharedCarries()) {
      if (q == p) break;
      offset += " + " + carrySlotCount(P, q);
    }
    return fmt::format("mdh_sums[q * ({}){} + {}]", sharedCarrySlots(), offset, carrySlotIndex(P, p));
  }
  void canonKernel(GpuKernels &k) {
    if (!scanDimensions(P).empty()) return canonBlockKernel(k);
    beginKernel("canon", G.groupSize);
    line(fmt::format("const int64_t q = MDH_GROUP_ID * INT64_C({}) + MDH_LOCAL_ID;", G.groupSize));
    open("if (q < mdh_cells)");
    decodeOutCell("q", "c");
    std::vector<std::string> x(D);
    for (size_t d = 0; d < D; ++d) x[d] = fmt::format("i{}", d);
    fold(0, x);
    storeOut(outCoords("c"), "v0");
    close();
    endKernel();
    k.launches.push_back({name + "_canon", fmt::format("(mdh_cells + {} - 1) / {}", G.groupSize, G.groupSize), G.groupSize, 0, ""});
  }
  /// Canonical strategy with prefix-sum dimensions: one work-item per block of cells (an
  /// index combination of the concatenated dimensions), which walks the block in ascending
  /// lexicographic order over the scanned dimensions; every scan p extends its running value
  /// (carrySlot()) by each new element's inner fold.  The value p left for c<p> - 1 and the
  /// same later coordinates is still there, and it restarts at c<p> = 0, i.e. whenever an
  /// earlier coordinate moved on: the same left folds as the per-cell kernel (same bits),
  /// linear in the cells instead of quadratic per scan.
  void canonBlockKernel(GpuKernels &k) {
    const auto scans = scanDimensions(P);
    beginKernel("canon", G.groupSize);
    line(fmt::format("const int64_t mdh_blocks = ({0}) > 0 ? mdh_cells / ({0}) : 0;", blockCells()));
    line(fmt::format("const int64_t q = MDH_GROUP_ID * INT64_C({}) + MDH_LOCAL_ID;", G.groupSize));
    open("if (q < mdh_blocks)");
    for (const auto &l : blockCoordinates(P, "q", "mdh_qrem")) line(l);
    std::vector<std::string> x(D);
    for (size_t d = 0; d < D; ++d) x[d] = fmt::format("i{}", d);
    for (size_t p : scans)
      if (carrySelectors(P, p).empty()) line(fmt::format("{} mdh_carry{};", E, p));
    for (size_t p : scans) open(fmt::format("for (int64_t c{0} = 0; c{0} < {1}; ++c{0})", p, N(p)));
    fold(0, x, true);
    storeOut(outCoords("c"), "v0");
    for (size_t i = 0; i < scans.size(); ++i) close();
    close();
    endKernel();
    k.launches.push_back({name + "_canon",
                          fmt::format("(mdh_canon_blocks + {0} - 1) / {0}", G.groupSize), G.groupSize, 0, ""});
  }
  /// v<d> = the part of Def. 9 for dims d..D-1.  With `carryScans` (canonBlockKernel), a
  /// prefix-sum dimension does not fold from 0 at each cell: it extends its running value
  /// (carrySlot()) by this element's inner fold.
  void fold(size_t d, const std::vector<std::string> &x, bool carryScans = false) {
    if (d == D) {
      line(fmt::format("const {} v{} = {};", E, d, applyF(x)));
      return;
    }
    const auto &cop = P.ops[d];
    if (carryScans && cop.kind == hl::CombineOperator::Kind::PrefixSum) {
      line(fmt::format("const int64_t i{0} = c{0};", d));
      fold(d + 1, x, carryScans);
      const std::string slot = carrySlot(d);
      line(fmt::format("if (c{0} == 0) {1} = v{2}; else {1} = {3};", d, slot, d + 1, applyBinary(cop.op, slot, fmt::format("v{}", d + 1), dia)));
      line(fmt::format("const {} v{} = {};", E, d, slot));
      return;
    }
    if (cop.kind == hl::CombineOperator::Kind::Concat) {
      line(fmt::format("const int64_t i{} = c{};", d, d));
      fold(d + 1, x, carryScans);
      line(fmt::format("const {} v{} = v{};", E, d, d + 1));
      return;
    }
    line(fmt::format("{} v{};", E, d));
    std::string bound = cop.kind == hl::CombineOperator::Kind::PrefixSum ? fmt::format("i{} <= c{}", d, d) : fmt::format("i{} < {}", d, N(d));
    open(fmt::format("for (int64_t i{} = 0; {}; ++i{})", d, bound, d));
    fold(d + 1, x, carryScans);
    line(fmt::format("if (i{} == 0) v{} = v{}; else v{} = {};", d, d, d + 1, d,
                     applyBinary(cop.op, fmt::format("v{}", d), fmt::format("v{}", d + 1), dia)));
    close();
  }

  // ---- tiled strategy: the tile kernel --------------------------------------------------------
  std::string b0(size_t d) const { return fmt::format("b0_{}", d); }
  std::string e0(size_t d) const { return fmt::format("e0_{}", d); }
  std::string b1(size_t d) const { return fmt::format("b1_{}", d); }
  std::string e1(size_t d) const { return fmt::format("e1_{}", d); }

  void stageCopy(const GpuStage &s, bool cooperative) {
    const hl::Buffer &buf = *s.buffer;
    auto bb = [&](size_t d) { return s.local ? b0(d) : b1(d); };
    auto ee = [&](size_t d) { return s.local ? e0(d) : e1(d); };
    std::vector<std::string> ns;
    for (size_t k = 0; k < buf.shape.size(); ++k) {
      std::vector<std::string> los, his;
      for (const auto &a : buf.accesses) {
        std::string lo = polyC(a.dims[k].offset), hi = lo;
        for (size_t d = 0; d < D; ++d) {
          int64_t c = a.dims[k].coeff(d);
          if (c == 0) continue;
          std::string first = bb(d), lastIdx = fmt::format("({} + {} - 1)", bb(d), ee(d));
          lo += fmt::format(" + INT64_C({})*{}", c, c > 0 ? first : lastIdx);
          hi += fmt::format(" + INT64_C({})*{}", c, c > 0 ? lastIdx : first);
        }
        los.push_back(lo);
        his.push_back(hi);
      }
      std::string lo = los[0], hi = his[0];
      for (size_t i = 1; i < los.size(); ++i) {
        lo = fmt::format("mdh_imin({}, {})", lo, los[i]);
        hi = fmt::format("mdh_imax({}, {})", hi, his[i]);
      }
      line(fmt::format("const int64_t {}_lo{} = {};", s.var, k, lo));
      line(fmt::format("const int64_t {}_n{} = {} - {}_lo{} + 1;", s.var, k, hi, s.var, k));
      ns.push_back(fmt::format("{}_n{}", s.var, k));
    }
    std::vector<int64_t> lstride(buf.shape.size(), 1);
    int64_t acc = 1;
    for (size_t m = s.layout.size(); m-- > 0;) {
      lstride[size_t(s.layout[m])] = acc;
      acc *= s.maxExt[size_t(s.layout[m])];
    }
    auto gst = strides(buf);
    std::string total = "INT64_C(1)";
    for (const auto &n : ns) total += "*" + n;
    // One linear loop over the footprint: the work-items of a group share it.
    open(fmt::format("for (int64_t s = {}; s < {}; s += {})", cooperative ? "MDH_LOCAL_ID" : "0", total,
                     cooperative ? fmt::format("INT64_C({})", G.groupSize) : "1"));
    line("int64_t srem = s;");
    for (size_t k = buf.shape.size(); k-- > 0;)
      line(fmt::format("const int64_t s{} = srem % {}; srem /= {};", k, ns[k], ns[k]));
    line("(void)srem;");
    std::vector<std::string> lparts, gparts;
    for (size_t k = 0; k < buf.shape.size(); ++k) {
      lparts.push_back(fmt::format("s{}*INT64_C({})", k, lstride[k]));
      gparts.push_back(fmt::format("({}_lo{} + s{})*{}", s.var, k, k, gst[k]));
    }
    line(fmt::format("{}[{}] = in_{}[{}];", s.var, lparts.empty() ? "0" : fmt::format("{}", fmt::join(lparts, " + ")), buf.name,
                     gparts.empty() ? "0" : fmt::format("{}", fmt::join(gparts, " + "))));
    close();
  }

  std::string accIndex(const std::vector<std::string> &j) const {
    std::string s = "0";
    for (size_t d = 0; d < D; ++d) {
      if (isRed(d)) continue;
      s = s == "0" ? j[d] : fmt::format("({})*INT64_C({}) + {}", s, G.wiTile[d], j[d]);
    }
    return s;
  }

  /// A loop over the first e1_<d> cells of the work-item tile along d. Its trip
  /// count is the tile's (a constant, the same in every work-item) and a guard
  /// skips the cells past e1_<d>: PoCL 3.1 ran a loop whose trip count differed
  /// between the work-items of a group (a remainder tile) with another
  /// work-item's count, reading past the tile (a sum over 17 × 5 split 16 + 1
  /// over two work-items read 16 rows in the second: garbage, NaN).
  void openWorkItemLoop(size_t d) {
    open(fmt::format("for (int64_t j{} = 0; j{} < INT64_C({}); ++j{}) if (j{} < {})", d, d, G.wiTile[d], d, d, e1(d)));
  }

  /// Element loops over the work-item tile: constant trip counts for full tiles.
  /// `firstChunk` (chunked folds): a condition the "first element" test also needs.
  void elementLoops(bool constant, const std::string &id, const std::string &firstChunk) {
    std::vector<std::string> j(D), x(D);
    for (size_t d = 0; d < D; ++d) {
      j[d] = fmt::format("j{}", d);
      x[d] = fmt::format("({} + j{})", b1(d), d);
    }
    for (size_t k = 0; k < D; ++k) {
      size_t d = size_t(G.wiOrder[k]);
      if (constant) open(fmt::format("for (int64_t j{} = 0; j{} < INT64_C({}); ++j{})", d, d, G.wiTile[d], d));
      else openWorkItemLoop(d);
    }
    std::string v = applyF(x);
    std::string slot = fmt::format("mdh_acc[{}]", accIndex(j));
    if (!L.op) {
      line(fmt::format("{} = {};", slot, v));
    } else if (!id.empty()) {
      line(fmt::format("{} = {};", slot, op(slot, v)));
    } else {
      std::vector<std::string> conds;
      if (!firstChunk.empty()) conds.push_back(firstChunk);
      for (size_t d = 0; d < D; ++d)
        if (isRed(d)) conds.push_back(fmt::format("j{} == 0", d));
      line(fmt::format("const {} mdh_f = {};", E, v));
      if (conds.empty()) line(fmt::format("{} = mdh_f;", slot)); // no reduced dim: every cell once (prefix sums only)
      else line(fmt::format("if ({}) {} = mdh_f; else {} = {};", fmt::format("{}", fmt::join(conds, " && ")), slot, slot, op(slot, "mdh_f")));
    }
    for (size_t k = 0; k < D; ++k) close();
  }

  /// Stores one work-group result for output cell c (coordinates of non-reduced dims).
  void groupResult(const std::vector<std::string> &c, const std::string &v) {
    if (G.wgRedSplit) line(fmt::format("mdh_tmp[mdh_red_idx * mdh_cells + {}] = {};", outLinear(c), v));
    else storeOut(c, v);
  }

  /// Loops over the work-item's output cells (non-reduced dims), j<d> local, c<d> global.
  template <class Body> void cellLoops(Body body) {
    int opened = 0;
    std::vector<std::string> j(D, "0"), c(D, "INT64_C(0)"), w(D, "0");
    for (size_t d = 0; d < D; ++d) {
      if (isRed(d)) continue;
      j[d] = fmt::format("j{}", d);
      c[d] = fmt::format("({} + j{})", b1(d), d);
      w[d] = fmt::format("({} - {} + j{})", b1(d), b0(d), d);
      openWorkItemLoop(d);
      ++opened;
    }
    std::string wcell = "0";
    for (size_t d = 0; d < D; ++d) {
      if (isRed(d)) continue;
      wcell = wcell == "0" ? w[d] : fmt::format("({})*INT64_C({}) + {}", wcell, G.wgTile[d], w[d]);
    }
    body(j, c, wcell);
    for (int i = 0; i < opened; ++i) close();
  }

  /// The work-item's part of the group's tile (of the current chunk): u<d>
  /// decoded from the local id in `rem` (the work-item order), b1/e1 and
  /// mdh_active.
  void workItemTile(const std::string &rem) {
    for (size_t i = D; i-- > 0;) {
      size_t d = size_t(G.wiOrder[i]);
      line(fmt::format("const int64_t u{} = {} % INT64_C({}); {} /= INT64_C({});", d, rem, G.wiParts[d], rem, G.wiParts[d]));
    }
    line(fmt::format("(void){};", rem));
    std::vector<std::string> active;
    for (size_t d = 0; d < D; ++d) {
      line(fmt::format("const int64_t {} = {} + u{} * INT64_C({});", b1(d), b0(d), d, G.wiTile[d]));
      line(fmt::format("const int64_t {} = mdh_imin(INT64_C({}), {} + {} - {});", e1(d), G.wiTile[d], b0(d), e0(d), b1(d)));
      active.push_back(fmt::format("{} > 0", e1(d)));
    }
    line(fmt::format("const bool mdh_active = {};", active.empty() ? "true" : fmt::format("{}", fmt::join(active, " && "))));
  }

  /// Inside `if (mdh_active)`: the private stages of the work-item tile, then
  /// its elements folded into the accumulators (constant trip counts for a
  /// full tile, guarded loops for a remainder); the staged buffers go out of
  /// scope after it.
  void privateStagesAndFold(const std::string &id, const std::string &firstChunk = "") {
    for (const auto &s : G.stages)
      if (!s.local) {
        line(fmt::format("{} {}[{}];", gpuStorageType(s.buffer->elem), s.var, s.elems));
        stageCopy(s, false);
        staged.push_back({&s});
      }
    if (!id.empty() && !G.chunked) line(fmt::format("for (int64_t a = 0; a < {}; ++a) mdh_acc[a] = {};", G.accCells, id));
    std::vector<std::string> full;
    for (size_t d = 0; d < D; ++d) full.push_back(fmt::format("{} == INT64_C({})", e1(d), G.wiTile[d]));
    int64_t elems = 1;
    for (size_t d = 0; d < D; ++d) elems *= G.wiTile[d];
    if (D > 0 && elems <= 64) {
      open(fmt::format("if ({})", fmt::join(full, " && ")));
      elementLoops(true, id, firstChunk);
      close("} else {");
      ++indent;
      elementLoops(false, id, firstChunk);
      close();
    } else {
      elementLoops(false, id, firstChunk);
    }
    staged.clear();
  }

  /// The work-group walks its tile along the reduced dimensions in chunks
  /// (GpuPlan::chunkTile): per chunk, b0/e0 and the work-item's b1/e1 along
  /// them are re-declared for the chunk (shadowing the tile's), the local
  /// stages are refilled between two barriers (every work-item of the group
  /// takes the same trips: they depend on the group's tile only), and each
  /// active work-item folds the chunk into the accumulators it keeps across
  /// chunks.  Without an identity the first element of the first chunk
  /// initialises an accumulator (`firstChunk`: the condition "the group's first chunk").
  void chunkedFold(const std::string &id) {
    line(fmt::format("{} mdh_acc[{}];", E, G.accCells));
    if (!id.empty()) {
      open("if (mdh_active)");
      line(fmt::format("for (int64_t a = 0; a < {}; ++a) mdh_acc[a] = {};", G.accCells, id));
      close();
    }
    // Only dimensions cut into several chunks get a loop.
    std::vector<size_t> walked;
    for (size_t d = 0; d < D; ++d)
      if (isRed(d) && G.chunkTile[d] < G.wgTile[d]) walked.push_back(d);
    for (size_t d : walked) line(fmt::format("const int64_t mdh_tb0_{0} = {1}, mdh_te0_{0} = {2};", d, b0(d), e0(d)));
    for (size_t d : walked) open(fmt::format("for (int64_t k{0} = 0; k{0} < mdh_te0_{0}; k{0} += INT64_C({1}))", d, G.chunkTile[d]));
    std::vector<std::string> first;
    for (size_t d : walked) {
      line(fmt::format("const int64_t {} = mdh_tb0_{} + k{};", b0(d), d, d));
      line(fmt::format("const int64_t {} = mdh_imin(INT64_C({}), mdh_te0_{} - k{});", e0(d), G.chunkTile[d], d, d));
      first.push_back(fmt::format("k{} == 0", d));
    }
    bool anyLocal = false;
    for (const auto &s : G.stages) anyLocal |= s.local;
    // Barriers only around local stages: the previous chunk's are read by every
    // work-item before they are overwritten, and the new ones are complete before
    // they are read.
    if (anyLocal) line("MDH_BARRIER();");
    for (const auto &s : G.stages)
      if (s.local) {
        stageCopy(s, true);
        staged.push_back({&s});
      }
    if (anyLocal) line("MDH_BARRIER();");
    // The work-item's tile in this chunk (b1/e1 along the walked dimensions).
    line("int64_t mdh_crem = MDH_LOCAL_ID;");
    workItemTile("mdh_crem");
    open("if (mdh_active)");
    privateStagesAndFold(id, fmt::format("{}", fmt::join(first, " && ")));
    close();
    for (size_t i = 0; i < walked.size(); ++i) close();
  }

  void tileKernel(GpuKernels &k) {
    beginKernel("tile", G.groupSize);
    for (size_t d = 0; d < D; ++d) line(fmt::format("const int64_t cp{} = ({} + {} - 1) / {};", d, N(d), G.wgTile[d], G.wgTile[d]));
    line("int64_t mdh_rem = MDH_GROUP_ID;");
    for (size_t i = D; i-- > 0;) {
      size_t d = size_t(G.wgOrder[i]);
      line(fmt::format("const int64_t t{} = mdh_rem % cp{}; mdh_rem /= cp{};", d, d, d));
    }
    for (size_t d = 0; d < D; ++d) {
      line(fmt::format("const int64_t {} = t{} * INT64_C({});", b0(d), d, G.wgTile[d]));
      line(fmt::format("const int64_t {} = mdh_imin(INT64_C({}), {} - {});", e0(d), G.wgTile[d], N(d), b0(d)));
    }
    std::string redIdx = "INT64_C(0)";
    for (size_t d = 0; d < D; ++d)
      if (isRed(d)) redIdx = fmt::format("({})*cp{} + t{}", redIdx, d, d);
    line(fmt::format("const int64_t mdh_red_idx = {};", redIdx));
    line("(void)mdh_red_idx;");
    line("mdh_rem = MDH_LOCAL_ID;");
    workItemTile("mdh_rem");
    // Local memory: stages of the work-group tile, then the reduction scratch.
    bool anyLocal = false;
    for (const auto &s : G.stages)
      if (s.local) {
        line(fmt::format("MDH_LOCAL_ARRAY({}, {}, {}, {});", gpuStorageType(s.buffer->elem), s.var, s.elems, s.localOffset));
        anyLocal = true;
      }
    if (G.wiRedSplit) line(fmt::format("MDH_LOCAL_ARRAY({}, mdh_red, {}, {});", S, G.wiRedParts * G.wgCells, G.redScratchOffset));
    std::string id = L.op ? identityOf(*L.op, dia) : "";
    if (G.chunked) {
      chunkedFold(id);
    } else {
      for (const auto &s : G.stages)
        if (s.local) {
          stageCopy(s, true);
          staged.push_back({&s});
        }
      if (anyLocal) line("MDH_BARRIER();");
      line(fmt::format("{} mdh_acc[{}];", E, G.accCells));
      open("if (mdh_active)");
      privateStagesAndFold(id);
      close();
    }
    if (G.wiRedSplit) {
      // Reduction across work-items: partials in local memory, combined in part order.
      std::string r = "INT64_C(0)";
      for (size_t d = 0; d < D; ++d)
        if (isRed(d)) r = fmt::format("({})*INT64_C({}) + u{}", r, G.wiParts[d], d);
      line(fmt::format("const int64_t mdh_wr = {};", r));
      open("if (mdh_active)");
      cellLoops([&](const std::vector<std::string> &j, const std::vector<std::string> &, const std::string &wcell) {
        line(fmt::format("mdh_red[mdh_wr * INT64_C({}) + {}] = mdh_acc[{}];", G.wgCells, wcell, accIndex(j)));
      });
      close();
      line("MDH_BARRIER();");
      open("if (mdh_active && mdh_wr == 0)");
      cellLoops([&](const std::vector<std::string> &, const std::vector<std::string> &c, const std::string &wcell) {
        line(fmt::format("{} mdh_v = mdh_red[{}];", E, wcell));
        open(fmt::format("for (int64_t rr = 1; rr < INT64_C({}); ++rr)", G.wiRedParts));
        line("int64_t rrem = rr;");
        std::vector<std::string> live;
        for (size_t d = D; d-- > 0;) {
          if (!isRed(d)) continue;
          line(fmt::format("const int64_t ur{} = rrem % INT64_C({}); rrem /= INT64_C({});", d, G.wiParts[d], G.wiParts[d]));
          live.push_back(fmt::format("ur{} * INT64_C({}) < {}", d, G.wiTile[d], e0(d)));
        }
        line(fmt::format("if ({}) mdh_v = {};", fmt::join(live, " && "), op("mdh_v", fmt::format("mdh_red[rr * INT64_C({}) + {}]", G.wgCells, wcell))));
        close();
        groupResult(c, "mdh_v");
      });
      close();
    } else {
      open("if (mdh_active)");
      cellLoops([&](const std::vector<std::string> &j, const std::vector<std::string> &c, const std::string &) {
        groupResult(c, fmt::format("mdh_acc[{}]", accIndex(j)));
      });
      close();
    }
    endKernel();
    k.launches.push_back({name + "_tile", "mdh_groups", G.groupSize, G.tileLocalBytes, ""});
  }

  // ---- second passes ---------------------------------------------------------------------------
  void combineKernel(GpuKernels &k) {
    int64_t B = G.auxGroupSize;
    beginKernel("combine", B);
    std::string redParts = "INT64_C(1)";
    for (size_t d = 0; d < D; ++d)
      if (isRed(d)) redParts += fmt::format("*(({} + {} - 1) / {})", N(d), G.wgTile[d], G.wgTile[d]);
    line(fmt::format("const int64_t mdh_red_parts = {};", redParts));
    line(fmt::format("const int64_t q = MDH_GROUP_ID * INT64_C({}) + MDH_LOCAL_ID;", B));
    open("if (q < mdh_cells)");
    line(fmt::format("{} mdh_v = mdh_tmp[q];", E));
    line(fmt::format("for (int64_t r = 1; r < mdh_red_parts; ++r) mdh_v = {};", op("mdh_v", "mdh_tmp[r * mdh_cells + q]")));
    if (G.directOutput) {
      decodeOutCell("q", "c");
      storeOut(outCoords("c"), "mdh_v");
    } else {
      line("mdh_tmp[q] = mdh_v;");
    }
    close();
    endKernel();
    k.launches.push_back({name + "_combine", fmt::format("(mdh_cells + {} - 1) / {}", B, B), B, 0, "mdh_red_parts > 1"});
  }

  void decodeLine(size_t d) {
    line("int64_t lrem = mdh_line;");
    for (size_t k = D; k-- > 0;) {
      if (isRed(k) || k == d) continue;
      line(fmt::format("const int64_t c{} = lrem % {}; lrem /= {};", k, N(k), N(k)));
    }
    line("(void)lrem;");
  }

  void scanKernels(GpuKernels &k, size_t d) {
    int64_t B = G.auxGroupSize;
    std::vector<std::string> c = outCoords("c");
    c[d] = "cd";
    auto head = [&] {
      line(fmt::format("const int64_t mdh_nb = ({} + {} - 1) / {};", N(d), B, B));
      line(fmt::format("const int64_t mdh_lines = {} > 0 ? mdh_cells / {} : 0;", N(d), N(d)));
      line("const int64_t mdh_line = MDH_GROUP_ID / mdh_nb, mdh_blk = MDH_GROUP_ID % mdh_nb;");
      line("const int64_t mdh_lid = MDH_LOCAL_ID;");
      line(fmt::format("const int64_t cd = mdh_blk * INT64_C({}) + mdh_lid;", B));
      line(fmt::format("const bool mdh_valid = mdh_line < mdh_lines && cd < {};", N(d)));
    };
    // A: scan of each block in local memory (Hillis-Steele), block totals to mdh_sums.
    beginKernel(fmt::format("scanA_{}", d), B);
    line(fmt::format("MDH_LOCAL_ARRAY({}, mdh_s, {}, 0);", S, B));
    head();
    open("if (mdh_valid)");
    decodeLine(d);
    line(fmt::format("mdh_s[mdh_lid] = {};", loadOut(c)));
    close();
    line("MDH_BARRIER();");
    open(fmt::format("for (int64_t off = 1; off < INT64_C({}); off *= 2)", B));
    line(fmt::format("{} mdh_t;", E));
    line("const bool mdh_take = mdh_valid && mdh_lid >= off;");
    line(fmt::format("if (mdh_take) mdh_t = {};", op("mdh_s[mdh_lid - off]", "mdh_s[mdh_lid]")));
    line("MDH_BARRIER();");
    line("if (mdh_take) mdh_s[mdh_lid] = mdh_t;");
    line("MDH_BARRIER();");
    close();
    open("if (mdh_valid)");
    decodeLine(d);
    storeOut(c, "mdh_s[mdh_lid]");
    line(fmt::format("if (cd == {} - 1 || mdh_lid == INT64_C({})) mdh_sums[mdh_line * mdh_nb + mdh_blk] = mdh_s[mdh_lid];", N(d), B - 1));
    close();
    endKernel();
    // B: carries — an inclusive scan of the block totals of each line.
    beginKernel(fmt::format("scanB_{}", d), B);
    line(fmt::format("const int64_t mdh_nb = ({} + {} - 1) / {};", N(d), B, B));
    line(fmt::format("const int64_t mdh_lines = {} > 0 ? mdh_cells / {} : 0;", N(d), N(d)));
    line(fmt::format("const int64_t mdh_line = MDH_GROUP_ID * INT64_C({}) + MDH_LOCAL_ID;", B));
    open("if (mdh_line < mdh_lines)");
    line(fmt::format("for (int64_t b = 1; b < mdh_nb; ++b) mdh_sums[mdh_line * mdh_nb + b] = {};",
                     op("mdh_sums[mdh_line * mdh_nb + b - 1]", "mdh_sums[mdh_line * mdh_nb + b]")));
    close();
    endKernel();
    // C: the carry of the blocks before, added to every element of a block.
    beginKernel(fmt::format("scanC_{}", d), B);
    head();
    open("if (mdh_valid && mdh_blk > 0)");
    decodeLine(d);
    storeOut(c, op("mdh_sums[mdh_line * mdh_nb + mdh_blk - 1]", loadOut(c)));
    close();
    endKernel();
    std::string blocks = fmt::format("mdh_lines{} * mdh_nb{}", d, d);
    k.launches.push_back({fmt::format("{}_scanA_{}", name, d), blocks, B, B * int64_t(P.f->result.size()), ""});
    k.launches.push_back({fmt::format("{}_scanB_{}", name, d), fmt::format("(mdh_lines{} + {} - 1) / {}", d, B, B), B, 0, fmt::format("mdh_nb{} > 1", d)});
    k.launches.push_back({fmt::format("{}_scanC_{}", name, d), blocks, B, 0, fmt::format("mdh_nb{} > 1", d)});
  }

  void scatterKernel(GpuKernels &k) {
    int64_t B = G.auxGroupSize;
    beginKernel("scatter", B);
    line(fmt::format("const int64_t q = MDH_GROUP_ID * INT64_C({}) + MDH_LOCAL_ID;", B));
    open("if (q < mdh_cells)");
    decodeOutCell("q", "c");
    line(fmt::format("const {} mdh_v = mdh_tmp[q];", E));
    auto comps = outputComponents();
    auto c = outCoords("c");
    for (size_t i = 0; i < comps.size(); ++i)
      line(fmt::format("out_{}[{}] = mdh_v{};", comps[i].first->name, linearIndex(*comps[i].first, comps[i].first->accesses[comps[i].second], c),
                       comps.size() > 1 ? fmt::format("._{}", i) : ""));
    close();
    endKernel();
    k.launches.push_back({name + "_scatter", fmt::format("(mdh_cells + {} - 1) / {}", B, B), B, 0, ""});
  }
};

} // namespace

GpuKernels writeGpuKernels(const GpuPlan &plan, const std::string &name) { return Writer(plan, name).run(); }

} // namespace mdh::codegen
