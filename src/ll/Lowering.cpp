/** \file
 * Lowering decisions and the low-level printer.
 */
#include "ll/Lowering.h"

#include "hl/Injectivity.h"

#include <fmt/format.h>

namespace mdh::ll {

bool insideLemma10(const hl::Program &p, std::string *why) {
  const hl::BinaryOperator *first = nullptr;
  for (size_t d = 0; d < p.dims(); ++d) {
    const auto &c = p.ops[d];
    if (c.kind == hl::CombineOperator::Kind::Concat) continue;
    if (!c.op.assoc() || !c.op.comm()) {
      if (why) *why = fmt::format("operator `{}` of dimension {} is not declared associative and commutative", c.op.str(), d + 1);
      return false;
    }
    if (first && !first->sameAs(c.op)) {
      if (why) *why = fmt::format("dimensions combine with different operators `{}` and `{}`", first->str(), c.op.str());
      return false;
    }
    first = &c.op;
  }
  return true;
}

bool outputsStorableInPlace(const hl::Program &p) {
  const std::vector<SizePoly> out = p.outputSizes();
  for (const auto &b : p.outputs)
    if (b.accesses.size() != 1 || !hl::provablyInjective(b, b.accesses[0], out)) return false;
  return true;
}

Lowered lower(const hl::Program &p, const Config &c) {
  Lowered l;
  l.program = &p;
  l.config = c;
  const size_t D = p.dims();
  l.reduced.assign(D, false);
  l.prefix.assign(D, false);
  for (size_t d = 0; d < D; ++d) {
    l.reduced[d] = p.ops[d].kind == hl::CombineOperator::Kind::PointWise;
    l.prefix[d] = p.ops[d].kind == hl::CombineOperator::Kind::PrefixSum;
    if (p.ops[d].kind != hl::CombineOperator::Kind::Concat && !l.op) l.op = &p.ops[d].op;
  }
  std::string why;
  if (!insideLemma10(p, &why)) {
    l.strategy = Strategy::Canonical;
    l.reason = why + " (outside Lemma 10): every output cell is folded in the canonical order";
  } else {
    l.strategy = Strategy::Tiled;
    l.reason = "inside Lemma 10: any tiling and order gives the same result";
  }
  // A reduction split across cores needs partial results: keep them in a temporary.
  bool certainSplit = false, possibleSplit = false;
  std::vector<int64_t> N = concreteSizes(p);
  if (l.strategy == Strategy::Tiled && !c.levels.empty())
    for (size_t d = 0; d < D; ++d) {
      if (!l.reduced[d]) continue;
      if (N[d] > 0 && c.levels[0].tile[d] < N[d]) certainSplit = true;
      // A run-time size, unless its core tile is one no size reaches (the default's
      // 2^40 for a reduction it keeps whole; the kernel refuses a larger size).
      if (N[d] <= 0 && c.levels[0].tile[d] < kWholeRunTimeSize) possibleSplit = true;
    }
  const bool storable = outputsStorableInPlace(p);
  l.directOutput = storable && !certainSplit && !possibleSplit;
  l.directUnlessSplit = storable && !certainSplit && possibleSplit;
  l.kept.assign(D, false);
  // A reduced vector dimension keeps one accumulator per lane; lanes a
  // remainder tile leaves unwritten must hold the identity, so this needs one.
  for (size_t d = 0; d < D; ++d) l.kept[d] = !l.reduced[d] || (int(d) == c.simdDim && l.op && l.op->hasIdentity());
  // The accumulation scope: the longest suffix of tile loops over reduced dims.
  std::vector<int> loopDims;
  for (size_t lv = 1; lv < c.levels.size(); ++lv)
    for (int d : c.levels[lv].order) loopDims.push_back(d);
  int s = int(loopDims.size());
  while (s > 0 && l.reduced[loopDims[s - 1]]) --s;
  l.scopeStart = s;
  l.streamedScan = streamedScanDim(p);
  return l;
}

int streamedScanDim(const hl::Program &p) {
  int prefixDims = 0, reducedDims = 0, prefixDim = -1;
  for (size_t d = 0; d < p.dims(); ++d) {
    reducedDims += p.ops[d].kind == hl::CombineOperator::Kind::PointWise;
    if (p.ops[d].kind == hl::CombineOperator::Kind::PrefixSum) ++prefixDims, prefixDim = int(d);
  }
  return insideLemma10(p) && prefixDims == 1 && reducedDims == 0 ? prefixDim : -1;
}

std::string printLowered(const Lowered &l) {
  const hl::Program &p = *l.program;
  const Config &c = l.config;
  std::vector<std::string> names = p.dimNames;
  while (names.size() < p.dims()) names.push_back(fmt::format("i{}", names.size() + 1));
  std::string out = fmt::format("// low-level expression of {} on the `{}` model\n", p.instanceName, c.model);
  out += fmt::format("// strategy: {}: {}\n", l.strategy == Strategy::Tiled ? "tiled" : "canonical", l.reason);
  out += fmt::format("// output: {}\n", l.directOutput        ? "combined in place in the output buffers"
                                       : l.directUnlessSplit ? "in place in the output buffers where the run-time sizes leave every reduction in one core "
                                                               "part and the output view keeps the MDA's layout (OpenMP), else combined "
                                                               "in a temporary MDA, then written through the output view"
                                                             : "combined in a temporary MDA, then written through the output view");
  if (l.streamedScan >= 0)
    out += fmt::format("// OpenMP: streamed prefix sum along {} (no reduced dimension, a cell is one f): the levels below apply to "
                       "the CUDA and OpenCL kernels only\n",
                       names[size_t(l.streamedScan)]);
  if (c.streamStores) out += "// OpenMP: output rows written with streaming (non-temporal) stores\n";
  else if (l.strategy == Strategy::Tiled && l.streamedScan < 0 && !p.dynamicSizes.empty())
    out += "// OpenMP: a run-time size's core tile is evened out when the kernel starts: as many parts as the configured "
           "tile gives, their sizes rounded up to whole tiles of the last level\n";
  std::vector<int64_t> prev = concreteSizes(p);
  for (size_t i = 0; i < c.levels.size(); ++i) {
    const auto &lv = c.levels[i];
    std::vector<std::string> prt, ord;
    for (size_t d = 0; d < p.dims(); ++d) {
      int64_t parts = prev[d] > 0 ? (prev[d] + lv.tile[d] - 1) / lv.tile[d] : 0;
      prt.push_back(fmt::format("{}:{}{}", names[d], parts ? std::to_string(parts) : "?",
                                prev[d] > 0 && prev[d] % lv.tile[d] ? "*" : ""));
    }
    for (int d : lv.order) ord.push_back(names[d]);
    std::string staged;
    for (const auto &s : c.stages)
      if (s.layer == lv.layer) {
        std::vector<std::string> lay;
        for (int x : s.layout) lay.push_back(std::to_string(x + 1));
        staged += fmt::format(" {}: {}[{}]{}", s.buffer, lv.layer, fmt::join(lay, ","), s.panel > 0 ? fmt::format(" panels of {}", s.panel) : "");
      }
    out += fmt::format("=:<{}> #PRT=({}) σ=({}) tile=({}){}\n", lv.layer, fmt::join(prt, ", "), fmt::join(ord, ","),
                       fmt::join(lv.tile, ","), staged.empty() ? "" : " ↓-mem" + staged);
    // A run-time size kept whole stays unknown below the level that keeps it.
    for (size_t d = 0; d < p.dims(); ++d) prev[d] = prev[d] <= 0 && lv.tile[d] >= kWholeRunTimeSize ? 0 : lv.tile[d];
  }
  std::vector<std::string> ops;
  for (const auto &o : p.ops) ops.push_back(o.str());
  out += fmt::format("f↦ {} on every element; SIMD dimension: {}\n", p.f ? p.f->sourceName : "?",
                     c.simdDim >= 0 ? names[c.simdDim] : "none");
  for (size_t i = c.levels.size(); i-- > 0;)
    out += fmt::format("⊛:<{}> ({}){}\n", c.levels[i].layer, fmt::join(ops, ", "),
                       i == 0 ? " — partial results of cores combined in the R1 order (ascending part index)" : "");
  out += "// (* = remainder tile: the size is not a multiple of the tile extent)\n";
  return out;
}

} // namespace mdh::ll
