/** \file
 * Derivation of the GPU kernel plan (see GpuPlan.h).
 */
#include "codegen/GpuPlan.h"

#include "ll/GpuConfig.h"

#include <algorithm>
#include <fmt/format.h>
#include <numeric>

namespace mdh::codegen {
namespace {

void markReads(const hl::SExpr &e, std::vector<bool> &read) {
  if (e.kind == hl::SExpr::Kind::Local && e.slot >= 0 && size_t(e.slot) < read.size()) read[size_t(e.slot)] = true;
  for (const auto &a : e.args)
    if (a) markReads(*a, read);
}

void markReads(const std::vector<hl::SStmtPtr> &body, std::vector<bool> &read) {
  for (const auto &s : body) {
    if (!s) continue;
    if (s->value) markReads(*s->value, read);
    markReads(s->thenBody, read);
    markReads(s->elseBody, read);
  }
}

/// Whether f reads a value of input buffer `b`: a stage of a buffer it ignores
/// only costs copies (and PoCL aborted on a staged array never read when a
/// work-group has one work-item).
bool fReadsBuffer(const hl::Program &p, const hl::Buffer &b) {
  if (!p.f) return true;
  std::vector<bool> read(p.f->localTypes.size(), false);
  markReads(p.f->body, read);
  size_t param = p.usesIndices ? p.dims() : 0;
  for (const auto &in : p.inputs) {
    for (size_t a = 0; a < in.accesses.size(); ++a, ++param)
      if (&in == &b && (param >= p.f->numParams || read[param])) return true;
  }
  return false;
}

} // namespace

GpuPlan planGpu(const ll::Lowered &l, int64_t maxGroupSize) {
  GpuPlan g;
  g.lowered = &l;
  g.program = l.program;
  const hl::Program &p = *l.program;
  const ll::Config &c = l.config;
  const size_t D = p.dims();
  g.dims = D;
  g.canonical = l.strategy == ll::Strategy::Canonical;
  g.reduced = l.reduced;
  g.prefix = l.prefix;
  for (bool b : g.prefix) g.hasPrefix |= b;
  g.wgTile = c.levels.at(0).tile;
  g.wgOrder = c.levels.at(0).order;
  g.wiTile = c.levels.size() > 1 ? c.levels[1].tile : std::vector<int64_t>(D, 1);
  g.wiOrder = c.levels.size() > 1 ? c.levels[1].order : g.wgOrder;
  g.chunkTile = g.canonical ? g.wgTile : ll::gpuChunkTile(c);
  g.chunked = g.chunkTile != g.wgTile;
  g.wiParts.assign(D, 1);
  g.groupSize = 1;
  for (size_t d = 0; d < D; ++d) {
    g.wiParts[d] = (g.chunkTile[d] + g.wiTile[d] - 1) / g.wiTile[d];
    g.groupSize *= g.wiParts[d];
  }
  g.auxGroupSize = std::max<int64_t>(1, std::min<int64_t>(64, maxGroupSize));
  std::vector<int64_t> N = ll::concreteSizes(p);
  for (size_t d = 0; d < D; ++d) {
    if (!g.reduced[d]) {
      g.wgCells *= g.wgTile[d];
      g.accCells *= g.wiTile[d];
    } else {
      g.wiRedParts *= g.wiParts[d];
      if (N[d] <= 0 || g.wgTile[d] < N[d]) g.wgRedSplit = true;
    }
  }
  if (g.canonical) g.wgRedSplit = false;
  g.wiRedSplit = !g.canonical && g.wiRedParts > 1;
  g.directOutput = ll::outputsStorableInPlace(p) && !g.wgRedSplit;
  // Stages, with their local-memory offsets (16-byte aligned).
  int64_t off = 0;
  auto align16 = [](int64_t x) { return (x + 15) / 16 * 16; };
  if (!g.canonical) {
    for (const auto &s : c.stages) {
      const hl::Buffer *buf = nullptr;
      for (const auto &b : p.inputs)
        if (b.name == s.buffer) buf = &b;
      if (!buf || !fReadsBuffer(p, *buf)) continue;
      GpuStage st;
      st.buffer = buf;
      st.local = ll::isLocalMemoryLayer(s.layer);
      st.layout = s.layout;
      if (st.layout.empty()) {
        st.layout.resize(buf->shape.size());
        std::iota(st.layout.begin(), st.layout.end(), 0);
      }
      for (size_t k = 0; k < buf->shape.size(); ++k) {
        st.maxExt.push_back(ll::tileFootprint(*buf, k, st.local ? g.chunkTile : g.wiTile));
        st.elems *= st.maxExt.back();
      }
      st.var = fmt::format("stage_{}_{}", buf->name, st.local ? "lm" : "pm");
      if (st.local) {
        st.localOffset = off;
        off = align16(off + st.elems * int64_t(buf->elem.size()));
      }
      g.stages.push_back(std::move(st));
    }
  }
  g.redScratchOffset = off;
  if (g.wiRedSplit) off = align16(off + g.wiRedParts * g.wgCells * int64_t(p.f->result.size()));
  g.tileLocalBytes = off;
  return g;
}

} // namespace mdh::codegen
