/** \file
 * Configurations: JSON form (reading is in ConfigFromJson.cpp), validation,
 * the default heuristic and random configurations.
 */
#include "ll/Config.h"
#include "ll/StreamingStores.h"
#include "ll/VectorDimension.h"

#include "ll/GpuConfig.h"
#include "hl/FloatProduct.h"
#include "hl/ResultRange.h"
#include "ll/Lowering.h"

#include <algorithm>
#include <cstdlib>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <numeric>
#include <optional>
#include <utility>
#include <set>

namespace mdh::ll {

using nlohmann::json;

const LevelConfig *Config::level(const std::string &layer) const {
  for (const auto &l : levels)
    if (l.layer == layer) return &l;
  return nullptr;
}

int Config::levelIndex(const std::string &layer) const {
  for (size_t i = 0; i < levels.size(); ++i)
    if (levels[i].layer == layer) return int(i);
  return -1;
}

json toJson(const Config &c) {
  json j;
  j["model"] = c.model;
  j["threads"] = c.threads;
  j["levels"] = json::array();
  for (const auto &l : c.levels) j["levels"].push_back({{"layer", l.layer}, {"tile", l.tile}, {"order", l.order}});
  j["stages"] = json::array();
  for (const auto &s : c.stages) {
    json st = {{"buffer", s.buffer}, {"layer", s.layer}, {"layout", s.layout}};
    if (s.panel > 0) st["panel"] = s.panel; // absent when 0: older configurations keep their text
    j["stages"].push_back(std::move(st));
  }
  j["simd_dim"] = c.simdDim;
  j["strict_fp"] = c.strictFp;
  if (c.streamStores) j["stream_stores"] = true; // absent when false: older configurations keep their text
  if (!c.chunk.empty()) j["chunk"] = c.chunk;    // absent when empty, likewise
  if (c.prefetchSteps != 0) j["prefetch_steps"] = c.prefetchSteps; // absent when 0, likewise
  return j;
}

std::vector<int64_t> concreteSizes(const hl::Program &p, const std::vector<std::pair<std::string, int64_t>> &dynamic) {
  std::map<std::string, SizePoly> values;
  for (const auto &[k, v] : dynamic) values[k] = SizePoly::constant(v);
  std::vector<int64_t> out;
  for (const auto &s : p.sizes) {
    auto v = s.substitute(values).constantValue();
    out.push_back(v ? *v : 0);
  }
  return out;
}

bool isPermutation(const std::vector<int> &v, size_t n) {
  if (v.size() != n) return false;
  std::vector<int> s = v;
  std::sort(s.begin(), s.end());
  for (size_t i = 0; i < n; ++i)
    if (s[i] != int(i)) return false;
  return true;
}

int64_t tileFootprint(const hl::Buffer &b, size_t k, const std::vector<int64_t> &tile) {
  int64_t lo = 0, hi = 0;
  bool first = true;
  for (const auto &a : b.accesses) {
    int64_t mn = 0, mx = 0;
    for (size_t d = 0; d < tile.size(); ++d) {
      int64_t c = a.dims[k].coeff(d) * (tile[d] - 1);
      (c < 0 ? mn : mx) += c;
    }
    int64_t off = a.dims[k].offset.constantValue().value_or(0);
    mn += off;
    mx += off;
    if (first || mn < lo) lo = mn;
    if (first || mx > hi) hi = mx;
    first = false;
  }
  return hi - lo + 1;
}

int64_t stageElements(const hl::Buffer &b, const StageConfig &s, const std::vector<int64_t> &tile) {
  int64_t total = 1;
  for (size_t k = 0; k < b.shape.size(); ++k) {
    int64_t ext = tileFootprint(b, k, tile);
    bool paneled = s.panel > 0 && int(k) == (s.layout.empty() ? int(b.shape.size()) - 1 : s.layout.back());
    total *= paneled ? (ext + s.panel - 1) / s.panel * s.panel : ext;
  }
  return total;
}

namespace {

const hl::Buffer *inputBuffer(const hl::Program &p, const std::string &name) {
  for (const auto &b : p.inputs)
    if (b.name == name) return &b;
  return nullptr;
}


} // namespace

int contiguousDim(const hl::Program &p, const std::vector<int64_t> &N) {
  std::vector<double> score(p.dims(), 0);
  auto add = [&](const hl::Buffer &b, double weight) {
    if (b.shape.empty()) return;
    double bytes = double(b.elem.size());
    for (const auto &s : b.shape) bytes *= double(s.constantValue().value_or(1024));
    for (const auto &a : b.accesses)
      for (size_t d = 0; d < p.dims(); ++d)
        if (a.dims.back().coeff(d) == 1 && N[d] > 1) score[d] += weight * bytes;
  };
  for (const auto &b : p.inputs) add(b, 1.0);
  for (const auto &b : p.outputs) add(b, 1.5);
  int best = -1;
  for (size_t d = 0; d < score.size(); ++d)
    if (score[d] > 0 && (best < 0 || score[d] > score[best])) best = int(d);
  return best;
}

namespace {

bool isReduced(const hl::Program &p, size_t d) { return p.ops[d].kind == hl::CombineOperator::Kind::PointWise; }

/// Elements the emitters unroll for one tile of the innermost level: the
/// product of its extents up to 64 (longer ones stay loops).
constexpr int64_t kMaxUnrolledCells = 4096;
int64_t unrolledCells(const std::vector<int64_t> &tile) {
  int64_t cells = 1;
  for (auto t : tile) cells = t > 0 && t <= 64 && cells < (1 << 20) ? cells * t : cells;
  return cells;
}

} // namespace

std::vector<std::string> validate(const Config &c, const hl::Program &p, const AsmModel &m) {
  if (isGpuModel(m)) return validateGpu(c, p, m);
  std::vector<std::string> errs;
  const size_t D = p.dims();
  if (c.model != m.name) errs.push_back(fmt::format("configuration is for model `{}`, but the backend uses `{}`", c.model, m.name));
  if (c.threads < 0 || c.threads > 1024) errs.push_back(fmt::format("threads = {} is out of range [0, 1024]", c.threads));
  if (!c.chunk.empty()) errs.push_back("chunk applies to the cuda model only; remove it from the openmp configuration");
  if (c.prefetchSteps < 0 || c.prefetchSteps > Config::kMaxPrefetchSteps)
    errs.push_back(fmt::format("prefetch_steps = {} is out of range [0, {}] (0: the built-in distance)", c.prefetchSteps, Config::kMaxPrefetchSteps));
  if (c.streamStores && !streamStoresApply(p) && !streamsWholeReductions(c, p))
    errs.push_back("stream_stores with point-wise dimensions needs each reduction whole in one tile: the core tile "
                   "spanning every point-wise dimension, and each level's tile along them as large as its enclosing one, "
                   "except the innermost loops over them (a reduction split across tiles reads its output back); widen "
                   "those tiles or remove the field");
  if (c.levels.empty()) {
    errs.push_back("a configuration needs at least one level");
    return errs;
  }
  auto cores = m.coreLayers();
  if (cores.empty() || c.levels[0].layer != cores[0]->name)
    errs.push_back(fmt::format("the first level must be on the core layer `{}` (the parallel loop), not `{}`",
                               cores.empty() ? "?" : cores[0]->name, c.levels[0].layer));
  int lastMem = -1;
  std::set<std::string> seen;
  std::vector<int64_t> sizes = concreteSizes(p);
  std::vector<int64_t> prev = sizes;
  for (size_t i = 0; i < c.levels.size(); ++i) {
    const auto &l = c.levels[i];
    const AsmLayer *layer = m.layer(l.layer);
    if (!layer) {
      errs.push_back(fmt::format("level {}: unknown layer `{}` in model `{}`", i + 1, l.layer, m.name));
      continue;
    }
    if (!seen.insert(l.layer).second) errs.push_back(fmt::format("layer `{}` is used by two levels", l.layer));
    if (i > 0) {
      if (layer->kind != LayerKind::Memory) {
        errs.push_back(fmt::format("level {}: only the first level may be a core layer (`{}` is one)", i + 1, l.layer));
      } else {
        int idx = int(layer - m.layers.data());
        if (idx <= lastMem) errs.push_back(fmt::format("level {}: memory layers must nest from slow to fast, `{}` comes too late", i + 1, l.layer));
        lastMem = idx;
        if (l.layer == "MM") errs.push_back("the main-memory layer `MM` holds the whole MDA and is not a tiling level");
      }
    }
    if (l.tile.size() != D) {
      errs.push_back(fmt::format("level `{}`: `tile` has {} {}, the program has {} {}", l.layer, l.tile.size(),
                                 l.tile.size() == 1 ? "entry" : "entries", D, D == 1 ? "dimension" : "dimensions"));
      continue;
    }
    for (size_t d = 0; d < D; ++d) {
      if (l.tile[d] < 1) errs.push_back(fmt::format("level `{}`: tile extent {} of dimension {} must be at least 1", l.layer, l.tile[d], d + 1));
      else if (prev[d] > 0 && l.tile[d] > prev[d])
        errs.push_back(fmt::format("level `{}`: tile extent {} of dimension {} exceeds the enclosing extent {}", l.layer, l.tile[d], d + 1, prev[d]));
    }
    if (!isPermutation(l.order, D))
      errs.push_back(fmt::format("level `{}`: `order` must be a permutation of 0..{}", l.layer, D ? D - 1 : 0));
    prev = l.tile;
  }
  // The innermost level's tile is unrolled into registers: bound its size.
  if (!c.levels.empty() && c.levels.back().tile.size() == D) {
    const int64_t cells = unrolledCells(c.levels.back().tile);
    if (cells > kMaxUnrolledCells)
      errs.push_back(fmt::format("innermost level `{}` unrolls {} elements per tile (the product of its extents up to 64); "
                                 "at most {} are unrolled: use smaller tiles there", c.levels.back().layer, cells, kMaxUnrolledCells));
  }
  if (c.simdDim < -1 || c.simdDim >= int(D)) errs.push_back(fmt::format("simd_dim {} is not a dimension", c.simdDim));
  for (const auto &s : c.stages) {
    const hl::Buffer *b = inputBuffer(p, s.buffer);
    if (!b) { errs.push_back(fmt::format("stage: `{}` is not an input buffer", s.buffer)); continue; }
    int li = c.levelIndex(s.layer);
    if (li < 1) { errs.push_back(fmt::format("stage of `{}`: `{}` is not a memory level of this configuration", s.buffer, s.layer)); continue; }
    bool sameCoeffs = true;
    for (const auto &a : b->accesses)
      for (size_t k = 0; k < a.dims.size(); ++k)
        for (size_t d = 0; d < D; ++d)
          sameCoeffs &= a.dims[k].coeffs[d] == b->accesses[0].dims[k].coeffs[d];
    if (!sameCoeffs)
      errs.push_back(fmt::format("stage of `{}`: its accesses differ in more than constant offsets, so a tile's footprint "
                                 "is not bounded by the tile; only such buffers (e.g. stencil inputs) can be staged", s.buffer));
    if (!s.layout.empty() && !isPermutation(s.layout, b->shape.size()))
      errs.push_back(fmt::format("stage of `{}`: layout must be a permutation of its {} dimensions", s.buffer, b->shape.size()));
    if (s.panel < 0 || s.panel > 4096)
      errs.push_back(fmt::format("stage of `{}`: panel = {} is out of range [0, 4096] (0: no panels)", s.buffer, s.panel));
    else if (s.panel > 0 && b->shape.empty())
      errs.push_back(fmt::format("stage of `{}`: a scalar buffer has no dimension to cut into panels; use panel 0", s.buffer));
    const AsmLayer *layer = m.layer(s.layer);
    if (layer && layer->capacityBytes && c.levels[li].tile.size() == D && s.panel >= 0 && s.panel <= 4096) {
      uint64_t bytes = b->elem.size() * uint64_t(stageElements(*b, s, c.levels[li].tile));
      if (bytes > layer->capacityBytes)
        errs.push_back(fmt::format("stage of `{}` at `{}` needs {} bytes, more than the layer's {} bytes", s.buffer, s.layer, bytes, layer->capacityBytes));
    }
  }
  return errs;
}

bool readsLanesConsecutively(const hl::Buffer &b, const hl::Access &a, size_t s, const std::vector<StageConfig> &stages) {
  int nonzero = 0, contiguousDim = -1;
  for (size_t k = 0; k < a.dims.size(); ++k)
    if (a.dims[k].coeff(s) != 0) ++nonzero, contiguousDim = int(k);
  if (nonzero == 0) return true;
  if (nonzero > 1 || a.dims[size_t(contiguousDim)].coeff(s) != 1) return false;
  bool staged = false;
  for (const auto &st : stages) {
    if (st.buffer != b.name) continue;
    staged = true;
    if (st.panel != 0 || st.layout.empty() || st.layout.back() != contiguousDim) return false;
  }
  return staged || contiguousDim + 1 == int(a.dims.size());
}

/// Whether access `a` reads consecutive elements along dimension `simd`
/// (only its last component moves with it, with coefficient 1).
bool contiguousAlong(const hl::Access &a, int simd) {
  if (a.dims.empty() || a.dims.back().coeff(size_t(simd)) != 1) return false;
  for (size_t k = 0; k + 1 < a.dims.size(); ++k)
    if (a.dims[k].coeff(size_t(simd)) != 0) return false;
  return true;
}

namespace {

/// Cores the default plans for: the pinned thread count, else the host's
/// (the model's parallelism bound is 64 parts per core).
int coreCount(const AsmModel &m, int threads) {
  if (threads > 0) return threads;
  const AsmLayer *cor = m.layer("COR");
  return cor && cor->maxParallelism >= 64 ? int(cor->maxParallelism / 64) : 1;
}

/// The tile of the dimension cut into core parts: `preferred`, unless a tile
/// of at least half its size shares the dimension out more evenly over the
/// cores under the static schedule.  A thread's share is at most
/// ceil(parts / cores) whole tiles; 112 rows in 16-row parts are 7 parts, 4
/// of them on one of 2 cores, which waits 1/8 of the time (MCC ResNet-50
/// batch 1, interleaved: 1.15-1.19 -> 1.04-1.09 ms with 8-row parts).  Tiles
/// that are multiples of 8 or 6 keep the register tile's rows whole (the
/// default cuts 8 or 6 rows), so others count 10% worse; a tile within 3% of
/// the preferred one's balance keeps the preferred one.
int64_t balancedPartTile(int64_t n, int64_t preferred, int cores) {
  if (n <= 1 || cores <= 1 || preferred >= n) return preferred;
  auto score = [&](int64_t t) {
    const int64_t parts = (n + t - 1) / t;
    const int64_t heaviest = std::min(n, (parts + cores - 1) / cores * t);
    const double balance = double(n) / double(cores * heaviest);
    return t % 8 == 0 || t % 6 == 0 ? balance : 0.9 * balance;
  };
  // Per part count only the smallest tile giving it, and the smallest multiples
  // of 8 and 6 at or above it, can score best: those are the candidates (the
  // same result as trying every tile from preferred - 1 down to half of it,
  // which took minutes for a dimension of 2^40 elements). There are at most
  // n / lo part counts: about 64 for the default's preferred >= n / 32.
  const int64_t lo = std::max<int64_t>(1, (preferred + 1) / 2);
  std::vector<int64_t> candidates;
  auto roundUp = [](int64_t t, int64_t m) { return (t + m - 1) / m * m; };
  if (preferred >= 2)
    for (int64_t q = (n + preferred - 2) / (preferred - 1); q <= (n + lo - 1) / lo; ++q) {
      const int64_t t0 = std::max(lo, (n + q - 1) / q);
      for (int64_t t : {t0, roundUp(t0, 8), roundUp(t0, 6)})
        if (t <= preferred - 1) candidates.push_back(t);
    }
  std::sort(candidates.rbegin(), candidates.rend()); // descending: ties keep the larger tile
  int64_t best = preferred;
  for (int64_t t : candidates)
    if (score(t) > score(best)) best = t;
  return score(best) > score(preferred) + 0.03 ? best : preferred;
}


bool dependsOn(const hl::Access &a, int d) {
  for (const auto &ix : a.dims)
    if (ix.coeff(size_t(d)) != 0) return true;
  return false;
}

/// A staged input that the core parts' dimension `par` does not read, but
/// whose part spans several cache blocks along the vector dimension (B of
/// C = A^T B^T, read across the vector dimension j: 12-row parts of i each
/// transposed all of B again, 28 times): the parts are cut along the vector
/// dimension instead, one cache block each, and along `par` only as far as
/// two parts per core need; the vector dimension numbers the parts outside
/// `par`, so that a thread's consecutive parts share their staged block
/// (333 x 2000 x 77, interleaved, 3 runs: 1.03-1.20 -> 0.41 ms; numpy 0.40-0.42).
void cutAlongStagedBlocks(Config &c, const hl::Program &p, const hl::Access &staged, const std::vector<int64_t> &N, int simd, int par,
                          int rows, int cores) {
  LevelConfig &cor = c.levels[0], &l2 = c.levels[1], &rm = c.levels[2];
  if (par < 0 || simd < 0 || par == simd || isReduced(p, size_t(par)) || isReduced(p, size_t(simd))) return;
  const size_t v = size_t(simd), r = size_t(par);
  if (dependsOn(staged, par) || !dependsOn(staged, simd) || cor.tile[v] <= l2.tile[v]) return;
  cor.tile[v] = l2.tile[v];
  const int64_t vectorParts = (N[v] + cor.tile[v] - 1) / cor.tile[v];
  const int64_t rowParts = std::max<int64_t>(1, (2 * cores + vectorParts - 1) / vectorParts);
  const int64_t unit = rm.tile[r];
  cor.tile[r] = std::min(N[r], ((N[r] + rowParts - 1) / rowParts + unit - 1) / unit * unit);
  l2.tile[r] = std::min<int64_t>(cor.tile[r], 128);
  if (rows == par) rm.tile[r] = std::min<int64_t>(l2.tile[r], l2.tile[r] % 8 == 0 || l2.tile[r] % 6 != 0 ? 8 : 6);
  std::vector<int> order = {simd};
  for (int d : cor.order)
    if (d != simd) order.push_back(d);
  cor.order = order;
}

/// Whether consecutive rows of a buffer read along the vector dimension lie at least
/// 2048 elements apart (8 KiB of f32: VGG-16's B of 16 KiB rows), so that rows are pages.
static bool rowsPagesApart(const hl::Buffer &b) {
  auto rowLength = b.shape.empty() ? std::nullopt : b.shape.back().constantValue();
  return rowLength && *rowLength >= 2048;
}

/// Orders the cache-block loops rows, then reductions, then the vector dimension, so that
/// the register tiles walk down a block's rows of a streamed matrix before across them.
static void reductionsBeforeVectorDimension(LevelConfig &l2, const hl::Program &p, int simd) {
  std::vector<int> order;
  for (int d : l2.order)
    if (!isReduced(p, size_t(d)) && d != simd) order.push_back(d);
  for (int d : l2.order)
    if (isReduced(p, size_t(d))) order.push_back(d);
  order.push_back(simd);
  l2.order = order;
}

/// Cache blocks for such a buffer streamed through once: 1024 wide along the vector
/// dimension and 16 steps deep along the reductions it moves along, the reductions looped
/// before the vector dimension, so that the register tiles walk 16 rows along whole pages,
/// 16 streams the hardware prefetchers follow (blocks of 128 x 256 read 256 pages 512
/// bytes at a time). Measurements in packPanels and plannedCpuConfig.
static void blockAlongPages(LevelConfig &l2, const LevelConfig &cor, const hl::Program &p, const hl::Buffer &b, int simd) {
  l2.tile[size_t(simd)] = std::min<int64_t>(cor.tile[size_t(simd)], 1024);
  for (size_t d = 0; d < p.dims(); ++d)
    if (isReduced(p, d) && dependsOn(b.accesses[0], int(d))) l2.tile[d] = std::min<int64_t>(cor.tile[d], 16);
  reductionsBeforeVectorDimension(l2, p, simd);
}

/// Rows of an asm register tile (codegen/FmaTileAsm: two vectors of FMAs per row and
/// reduction step) for a cache block of `block` rows: of 6, 5 and 4, the one whose tiles take
/// the fewest cycles per reduction step, h rows taking max(h, 4.5): 2h FMAs at two per cycle,
/// but each accumulator waits for its previous FMA (4 cycles on Zen 3, plus a margin). Ties go
/// to more rows (fewer loads per FMA). 16 rows: 6 + 6 + 4 (16.5 cycles), not 5 + 5 + 5 + 1
/// (19.5), whose lone row ran its 2 accumulators at a quarter of the FMA rate; 8: 4 + 4; 10:
/// 5 + 5; 256: 42 x 6 + 4. Paired on Zen 3, 2 threads, against 5 rows: ResNet-50's 16 x 1000
/// x 2048 product 0.90x the time, VGG-16's 16 x 4096 x 25088 0.89x, MatMul 1024^3 0.97x.
int64_t fmaTileRows(int64_t block) {
  if (block <= 6) return std::max<int64_t>(block, 1);
  auto cycles = [&](int64_t h) {
    const double rest = double(block % h);
    return double(block / h) * std::max(double(h), 4.5) + (rest > 0 ? std::max(rest, 4.5) : 0.0);
  };
  int64_t best = 6;
  for (int64_t h : {5, 4})
    if (cycles(h) < cycles(best)) best = h;
  return best;
}

/// Rows of a register tile two vectors wide along the vector dimension, for a cache block of
/// `block` rows. With 32 vector registers (AVX-512): 8 rows, 16 accumulators, half the
/// register file; 6 where 6 divide the block and 8 do not, so that no remainder tile falls
/// back to scalar code (MatMul 1024^3: 1.4x). With 16 (AVX2), where GCC allocates the tile:
/// 5 rows, 10 accumulators; 6 or more left too few registers for the broadcasts and the
/// operands GCC keeps between the unrolled steps, and 4 (8 accumulators) too few to hide the
/// FMA latency. MatMul 1024^3 on Zen 3 (AVX2), 2 threads, interleaved medians: 8 rows 25.9 ms
/// (of 2 vectors; 35.5 of 4, the AVX-512 plan's 32 lanes), 6 29.4, 5 18.8, 4 30.0, 7 25.6;
/// 3 rows of 4 vectors 22.6. Where the tiles run as asm loops (asmRegisterTiles()), which
/// hold 12 accumulators: 4, 5 or 6 rows, whichever covers the block in the fewest cycles
/// per reduction step (fmaTileRows()).
int64_t registerTileRows(int64_t block, const AsmModel &m, bool asmTiles) {
  if (m.vectorRegisters < 32) return asmTiles ? fmaTileRows(block) : std::min<int64_t>(block, 5);
  return std::min<int64_t>(block, block % 8 == 0 || block % 6 != 0 ? 8 : 6);
}

/// Whether the register tiles of the default will run as asm loops of FMAs
/// (codegen/FmaTileAsm): a sum of float products planned for AVX2's 32-byte vectors and 16
/// registers, every size known at compile time (the asm's offsets are constants), and the
/// vector dimension a multiple of the tile's two vectors or at least 8 tiles long, so that
/// the remainder tile along it, which keeps the C++ loops and GCC's allocation, is a
/// small share: 6 rows of such a remainder spilled (1009 x 31 x 997 product, 15 of the 31
/// columns in it, paired: 1.22x the time of 5 rows; 1009 x 47 x 997 1.13x).
bool asmRegisterTiles(const hl::Program &p, const AsmModel &m, const std::vector<int64_t> &known, int simd, int lanes) {
  if (m.vectorBytes != 32 || m.vectorRegisters != 16 || simd < 0 || isReduced(p, size_t(simd)) || !hl::sumsFloatProducts(p)) return false;
  for (int64_t n : known)
    if (n <= 0) return false;
  const int64_t extent = known[size_t(simd)], tile = 2 * int64_t(lanes);
  return extent % tile == 0 || extent >= 8 * tile;
}

/// The matrix-product case of the default (documented in docs/compiler.md):
/// an input read consecutively along the vector dimension, reused across
/// the register tile's rows and along a reduction (B of C = A·B), is packed
/// per cache block into panels as wide as the register tile, and every panel
/// serves all rows of a core part before the next is packed — GotoBLAS's
/// loop structure.  Core parts: about two per core, rows first (at least 64
/// per part), then columns.  Measured on MatMul 1024^3, 2 cores: 0.45x ->
/// 0.7x oneDNN (the 32-row parts of the plain default re-read B 32 times).
void packPanels(Config &c, const hl::Program &p, const AsmModel &m, const std::vector<int64_t> &N, int simd, int par,
                int rows, int threads, bool asmTiles) {
  const size_t D = p.dims();
  if (simd < 0 || rows < 0 || rows != par || isReduced(p, size_t(simd)) || c.levels.size() != 3) return;
  const hl::Buffer *panelled = nullptr;
  for (const auto &b : p.inputs) {
    if (b.accesses.size() != 1 || b.shape.size() < 2) continue;
    const auto &a = b.accesses[0];
    bool alongReduction = false;
    for (size_t d = 0; d < D; ++d) alongReduction |= isReduced(p, d) && dependsOn(a, int(d));
    if (contiguousAlong(a, simd) && !dependsOn(a, rows) && alongReduction) panelled = &b;
  }
  if (!panelled) return;
  LevelConfig &cor = c.levels[0], &l2 = c.levels[1], &rm = c.levels[2];
  // An output-bound product, at most 32 reduction steps per output cell (an
  // outer product, K = 1): the stores dominate, so no packing, and cache
  // blocks of one register tile's rows by whole rows, which the stores walk in
  // order; blocks of columns over all rows wrote C column block by column
  // block (2048 x 4096 x K, minimum of 20 calls, 3 runs: K = 1 1.0 -> 0.63 ms,
  // K = 16 1.6 -> 1.1; at K = 256 packing wins, 29 against 54 ms).
  int64_t reductionSteps = 1;
  for (size_t d = 0; d < D; ++d)
    if (isReduced(p, d)) reductionSteps *= N[d];
  if (reductionSteps <= 32) {
    l2.tile[size_t(simd)] = cor.tile[size_t(simd)];
    l2.tile[size_t(rows)] = rm.tile[size_t(rows)];
    return;
  }
  auto identity = [&] {
    std::vector<int> layout(panelled->shape.size());
    std::iota(layout.begin(), layout.end(), 0);
    return layout;
  };
  auto blockElements = [&] {
    int64_t elems = 1;
    for (size_t k = 0; k < panelled->shape.size(); ++k) elems *= tileFootprint(*panelled, k, l2.tile);
    return elems;
  };
  // Packing costs a copy of each element; it pays once a panel serves 64 rows
  // (measured on MatMul: 16 x 1000 x 2048 packed 47 GFLOP/s against 100 for
  // the best unpacked configuration; 1024^3 packed 138 against 105 unpacked).
  if (N[size_t(rows)] < 64) {
    // Few rows, but rows of B pages apart (VGG-16's 16 KiB), B streamed through once:
    // unstaged blocks along pages (blockAlongPages). Staging 128 x 256 blocks (the
    // tuner's pick on the Intel Xeon, whose 561 candidates were all 128 wide) copied
    // them in the order that reads 256 pages 512 bytes at a time. Zen 5,
    // 2 threads, interleaved: 16 x 4096 x 25088 staged 20.8 -> 14.6 ms (oneDNN prepacked
    // 12.7), 4 x 8192 x 8192 10.8 -> 7.5, 48 x 4096 x 4096 12.1 -> 7.5, 32 x 3000 x 4000
    // 4.4 -> 3.4, 16 x 2048 x 2048 (B in L3) level.
    if (!rowsPagesApart(*panelled)) return;
    blockAlongPages(l2, cor, p, *panelled, simd);
    for (size_t d = 0; d < D; ++d) rm.tile[d] = std::min(rm.tile[d], l2.tile[d]);
    return;
  }
  int64_t target = 2 * coreCount(m, threads);
  const size_t r = size_t(rows), v = size_t(simd);
  auto roundUp = [](int64_t x, int64_t q) { return (x + q - 1) / q * q; };
  int64_t rowParts = std::clamp<int64_t>(N[r] / 64, 1, target);
  cor.tile = N;
  cor.tile[r] = std::min(N[r], roundUp((N[r] + rowParts - 1) / rowParts, 8));
  rowParts = (N[r] + cor.tile[r] - 1) / cor.tile[r];
  int64_t colParts = (target + rowParts - 1) / rowParts;
  cor.tile[v] = std::min(N[v], roundUp((N[v] + colParts - 1) / colParts, rm.tile[v]));
  l2.tile[r] = cor.tile[r];
  l2.tile[v] = std::min<int64_t>(cor.tile[v], 128);
  for (size_t d = 0; d < D; ++d) l2.tile[d] = std::min(l2.tile[d], cor.tile[d]);
  // Cache-block loops: panels (vector dim) outermost, then the reductions,
  // the rows innermost, so that one packed block serves every row.
  std::vector<int> order = {simd};
  for (int d : l2.order)
    if (isReduced(p, size_t(d))) order.push_back(d);
  for (int d : l2.order)
    if (d != simd && !isReduced(p, size_t(d))) order.push_back(d);
  l2.order = order;
  for (size_t d = 0; d < D; ++d) rm.tile[d] = std::min(rm.tile[d], l2.tile[d]);
  rm.tile[r] = registerTileRows(l2.tile[r], m, asmTiles);
  if (blockElements() <= 64 * 1024) c.stages.push_back({panelled->name, "L2", identity(), rm.tile[v]});
}

} // namespace

/// Bytes of buffer b, or 0 when a size is known only at run time.  Saturating:
/// buffers near 2^63 bytes (accepted by compile) must not wrap to a small count.
static uint64_t bufferBytes(const hl::Buffer &b) {
  uint64_t n = b.elem.size();
  for (const auto &x : b.shape) {
    auto v = x.constantValue();
    if (!v) return 0;
    if (__builtin_mul_overflow(n, uint64_t(*v), &n)) return UINT64_MAX;
  }
  return n;
}

/// Bytes of p's input and output buffers, or 0 when a size is known only at run time.
static uint64_t footprintBytes(const hl::Program &p) {
  uint64_t total = 0;
  for (const auto *list : {&p.inputs, &p.outputs})
    for (const auto &b : *list) {
      const uint64_t n = bufferBytes(b);
      if (n == 0) return 0;
      if (__builtin_add_overflow(total, n, &total)) return UINT64_MAX;
    }
  return total;
}

/// The last-level cache a kernel on `cores` cores can count on. The L3 that sysfs reports is
/// the socket's, shared with every other core (other tenants of a virtual machine included);
/// a 2-core guest of a 480 MiB-L3 Intel Xeon kept about 64 MiB: the STREAM triad ran at
/// 56 GB/s up to 64 MiB, 44 GB/s at 127 MiB and 28 GB/s (DRAM) at 512 MiB.
uint64_t usableLastLevelCache(const AsmModel &m, int threads) {
  const int cores = coreCount(m, threads);
  constexpr uint64_t kPerCoreShare = uint64_t(32) << 20;
  const AsmLayer *l3 = m.layer("L3");
  const uint64_t llc = l3 && l3->capacityBytes > 0 ? l3->capacityBytes : uint64_t(32) << 20;
  return std::min(llc, uint64_t(std::max(cores, 1)) * kPerCoreShare);
}

/// What the default plans for a size known only at run time: a large one.
constexpr int64_t kPlannedRunTimeSize = 1024;

/// The most cells a scan's single level may span with run-time sizes (its tiles size the
/// accumulators); more get element rows below it.
constexpr int64_t kMaxRunTimeScanCells = int64_t(1) << 16;

/// Undoes the rounding of a concatenated vector dimension's register tile down to whole
/// vectors (18 -> 16, leaving a remainder tile of 2) where the emitter pads the lanes
/// instead (ceil(tile / lanes) vectors per row, the last shifted back or masked): every
/// input reads the lanes consecutively in every copy (no panels), and the rows have no
/// remainder tiles, with which every padded tile, run as a remainder, was the slower.
/// The remainder tile of 2 lanes repeats the whole reduction for them: contractions
/// with 18 (and 17, 20, 25) along the output's last dimension, 6 whole rows, Zen 5, 2
/// threads: 0.48 -> 0.35 ms (NumPy einsum 0.48); CCSD(T) abcijk-ikmb-mjac with 18 along k
/// 7.2 -> 3.9 ms. With rows of 8 over 31 (a remainder of 7): 2.9 -> 4.4 ms, so not then.
static void keepPaddedVectorTile(Config &c, const hl::Program &p, const std::vector<int64_t> &N, int64_t unrounded) {
  const int simd = c.simdDim;
  if (simd < 0 || isReduced(p, size_t(simd)) || c.levels.size() < 2) return;
  LevelConfig &rm = c.levels.back();
  const int64_t padded = std::min(unrounded, c.levels[c.levels.size() - 2].tile[size_t(simd)]);
  if (padded <= rm.tile[size_t(simd)] || padded % rm.tile[size_t(simd)] == 0) return;
  for (const auto &b : p.inputs)
    for (const auto &a : b.accesses)
      if (!readsLanesConsecutively(b, a, size_t(simd), c.stages)) return;
  for (size_t d = 0; d < p.dims(); ++d) {
    if (int(d) == simd || isReduced(p, d) || rm.tile[d] <= 1) continue;
    int64_t outer = N[d];
    for (const auto &level : c.levels) {
      if (level.tile[d] <= 0 || outer % level.tile[d] != 0) return;
      outer = level.tile[d];
    }
  }
  rm.tile[size_t(simd)] = padded;
}

/// The outputs' last shape extents (1 for a scalar, 0 when left to run time), as
/// streams() takes them.
static std::vector<int64_t> outputLastExtents(const hl::Program &p) {
  std::vector<int64_t> extents;
  for (const auto &b : p.outputs) {
    auto last = b.shape.empty() ? std::optional<int64_t>(1) : b.shape.back().constantValue();
    extents.push_back(last.value_or(0));
  }
  return extents;
}

int vectorLanes(const hl::Program &p, const AsmModel &m) {
  return std::max(1, m.vectorBytes / (p.f && p.f->result.isPrimitive() && p.f->result.size() == 8 ? 8 : 4));
}

int stencilRowDimension(const hl::Program &p, int simd) {
  // Two accesses of one buffer that step along d in the same buffer dimension, by the same
  // coefficients, from different constant offsets: the cells of neighbouring rows along d.
  auto neighboursAlong = [&](const hl::Access &a, const hl::Access &b, size_t d) {
    if (a.dims.size() != b.dims.size()) return false;
    bool shifted = false;
    for (size_t k = 0; k < a.dims.size(); ++k) {
      const auto &x = a.dims[k], &y = b.dims[k];
      for (size_t e = 0; e < p.dims(); ++e)
        if (x.coeff(e) != y.coeff(e)) return false;
      const auto ox = x.offset.constantValue(), oy = y.offset.constantValue();
      if (!ox || !oy) return false;
      shifted |= x.coeff(d) != 0 && *ox != *oy;
    }
    return shifted;
  };
  for (size_t d = 0; d < p.dims(); ++d) {
    if (int(d) == simd || isReduced(p, d)) continue;
    for (const auto &b : p.inputs)
      for (size_t i = 0; i < b.accesses.size(); ++i)
        for (size_t j = i + 1; j < b.accesses.size(); ++j)
          if (neighboursAlong(b.accesses[i], b.accesses[j], d)) return int(d);
  }
  return -1;
}

/// The input of a vector-matrix product that is read consecutively along the vector
/// dimension and moves along reduction r (B of x·B), or none.
static const hl::Buffer *streamedAlong(const hl::Program &p, int simd, int r) {
  for (const auto &b : p.inputs)
    if (b.accesses.size() == 1 && b.shape.size() >= 2 && contiguousAlong(b.accesses[0], simd) && dependsOn(b.accesses[0], r)) return &b;
  return nullptr;
}

/// The reduction that the cores of a vector-matrix product (the vector dimension the only
/// one to share out) split between them, so that each streams whole rows of the matrix;
/// -1 to split the vector dimension instead. Only a single reduction known at compile time,
/// at least 256 steps per part, with a matrix streamed along it. On 2 cores of the Zen 3
/// (AVX2), interleaved, against the split along the vector dimension: 1 x 4096 x 25088
/// (411 MB from memory) 21.0 -> 14.2 ms in blocks 8 rows deep (16 rows: 18.5, no better than
/// before; NumPy 10.9), 1 x 1000 x 2048 (8 MB, warm in L3) 0.112 -> 0.084 ms in blocks 16
/// deep (8: 0.095). The parts' partial results are combined after them (a vector of the
/// output's length per part).
static int streamedReductionToSplit(const hl::Program &p, const std::vector<int64_t> &known, int simd, int cores) {
  constexpr int64_t kMinStepsPerPart = 256;
  int r = -1;
  for (size_t d = 0; d < p.dims(); ++d) {
    if (!isReduced(p, d)) continue;
    if (r >= 0) return -1;
    r = int(d);
  }
  if (r < 0 || known[size_t(r)] < 2 * cores * kMinStepsPerPart) return -1; // run-time sizes are <= 0
  return streamedAlong(p, simd, r) ? r : -1;
}

static Config plannedCpuConfig(const hl::Program &p, const AsmModel &m, int threads, int forcedSimd) {
  Config c;
  c.model = m.name;
  const size_t D = p.dims();
  std::vector<int64_t> N = concreteSizes(p);
  const std::vector<int64_t> known = N; // N plans kPlannedRunTimeSize for a run-time size
  if (threads == 0) {
    int64_t applications = 1;
    bool allKnown = true;
    for (int64_t n : N) {
      allKnown = allKnown && n > 0;
      applications = n > 0 && applications < kMinParallelApplications ? applications * n : applications;
    }
    if (allKnown && applications < kMinParallelApplications) threads = 1;
  }
  c.threads = threads;
  for (auto &n : N)
    if (n <= 0) n = kPlannedRunTimeSize;
  int simd = forcedSimd == kAutomaticSimd ? vectorDimension(p, kPlannedRunTimeSize) : forcedSimd;
  c.simdDim = simd;
  const int lanes = vectorLanes(p, m);
  const bool asmTiles = asmRegisterTiles(p, m, known, simd, lanes);

  // COR: cut the largest non-reduced dimension into enough parts for all
  // cores (64 parts balance well); if the output is tiny, cut a reduction.
  LevelConfig cor{"COR", N, {}};
  int par = -1;
  // Among them, one that more inputs read: parts along a batch dimension share no input,
  // where parts along the rows of a batched product each read (and stage) every batch's
  // other operand again (32 x 128 x 128 x 64, C = A.B^T: 8 row parts transposed each B 8
  // times, 2.5x the time of parts along the batch).
  auto readers = [&](size_t d) {
    int n = 0;
    for (const auto &b : p.inputs) {
      bool reads = false;
      for (const auto &a : b.accesses)
        for (const auto &ix : a.dims) reads = reads || ix.coeff(d) != 0;
      n += reads;
    }
    return n;
  };
  int largest = -1;
  for (size_t d = 0; d < D; ++d)
    if (!isReduced(p, d) && N[d] > 1 && int(d) != simd) {
      if (largest < 0 || N[d] > N[largest]) largest = int(d);
      if (par < 0 || readers(d) > readers(size_t(par)) || (readers(d) == readers(size_t(par)) && N[d] > N[par])) par = int(d);
    }
  // Such a batch dimension carries no register rows: it is cut thin, not in the 16 rows
  // or more that a row dimension keeps (7 x 13 x 131 x 3001: 7 parts of one batch, as the
  // rows of 13 were left whole before; in 4 parts of 4 rows, 2.2x slower).
  const bool batchParts = par >= 0 && largest >= 0 && par != largest;
  if (par < 0)
    for (size_t d = 0; d < D; ++d)
      if (!isReduced(p, d) && N[d] > 1 && (par < 0 || N[d] > N[par])) par = int(d);
  if (par < 0)
    for (size_t d = 0; d < D; ++d)
      if (N[d] > 1 && (par < 0 || N[d] > N[par])) par = int(d);
  const int cores = coreCount(m, threads);
  // A run-time reduction that is the only dimension to cut (a dot product) is
  // planned long: planned at 1024, its core tiles of 32 made a million-element
  // dot 31250 parts, each a partial result to combine (1.6x the static time).
  if (par >= 0 && isReduced(p, size_t(par)) && known[size_t(par)] <= 0) N[size_t(par)] = cor.tile[size_t(par)] = int64_t(1) << 20;
  // 16 parts per core balance well without making tiles too thin, as long as
  // the parts share out evenly over the cores (balancedPartTile).
  if (par >= 0)
    cor.tile[par] = balancedPartTile(N[par], batchParts ? (N[par] + 31) / 32 : std::max<int64_t>(std::min<int64_t>(N[par], 16), (N[par] + 31) / 32), cores);
  auto partCount = [&] {
    int64_t parts = 1;
    for (size_t d = 0; d < D; ++d) parts *= (N[d] + cor.tile[d] - 1) / cor.tile[d];
    return parts;
  };
  // Fewer than two parts per core, but more dimensions to share out (a tensor
  // contraction with 16 along each of six output dimensions: one part, so one
  // core did all the work): cut the next largest non-reduced dimensions too
  // (not the vector dimension: the skinny rule below cuts it in whole tiles).
  if (par >= 0 && !isReduced(p, size_t(par)))
    for (bool more = true; more && partCount() < 2 * cores;) {
      int next = -1;
      for (size_t d = 0; d < D; ++d)
        if (!isReduced(p, d) && int(d) != simd && int(d) != par && cor.tile[d] == N[d] && N[d] > 1 && (next < 0 || N[d] > N[next]))
          next = int(d);
      more = next >= 0;
      if (more) {
        int64_t want = (2 * cores + partCount() - 1) / partCount();
        cor.tile[size_t(next)] = (N[size_t(next)] + want - 1) / want;
      }
    }
  // Too few parts for the cores (a skinny matrix product, 16 x 1000 x 2048):
  // also cut the vector dimension, in whole register tiles.
  if (par >= 0 && simd >= 0 && par != simd && !isReduced(p, size_t(simd))) {
    int64_t parts = partCount();
    int64_t colParts = (2 * cores + parts - 1) / parts;
    const int64_t width = 2 * lanes; // the register tile along the vector dimension
    if (parts < cores && N[simd] >= 2 * width)
      cor.tile[simd] = std::min(N[simd], ((N[simd] + colParts - 1) / colParts + width - 1) / width * width);
  }
  bool prefix = false;
  for (size_t d = 0; d < D; ++d) prefix |= p.ops[d].kind == hl::CombineOperator::Kind::PrefixSum;
  bool anyReduced = false;
  for (size_t d = 0; d < D; ++d) anyReduced |= isReduced(p, d);
  // The vector dimension is the only one to share out (a vector-matrix product,
  // 1 x 1000 x 2048): about two parts per core in whole register tiles, so
  // that each core streams long pieces of the matrix rows instead of 32
  // elements of every row (measured: 13 -> 18 GFLOP/s on 1 x 1000 x 2048).
  // Unless the reduction is long and a matrix streams along it (splitReduction).
  const int splitReduction = par >= 0 && par == simd && !isReduced(p, size_t(par)) && anyReduced && !prefix
                                 ? streamedReductionToSplit(p, known, simd, cores)
                                 : -1;
  if (splitReduction >= 0) {
    cor.tile[size_t(simd)] = N[size_t(simd)];
    cor.tile[size_t(splitReduction)] = balancedPartTile(N[size_t(splitReduction)], (N[size_t(splitReduction)] + 2 * cores - 1) / (2 * cores), cores);
  } else if (par >= 0 && par == simd && !isReduced(p, size_t(par)) && anyReduced && !prefix) {
    cor.tile[par] = std::min(N[par], ((N[par] + 2 * cores - 1) / (2 * cores) + 2 * lanes - 1) / (2 * lanes) * (2 * lanes));
  }

  // Orders: non-reduced dims outside (the vector dim last among them),
  // reduced dims innermost so that accumulators live across them.
  std::vector<int> order(D);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    auto key = [&](int d) { return isReduced(p, d) ? 2 : d == simd ? 1 : 0; };
    return key(a) < key(b);
  });
  cor.order = order;
  c.levels.push_back(cor);
  // Element rows: one row of four vectors per innermost tile.
  auto vectorRows = [&] {
    LevelConfig rm{"RM", std::vector<int64_t>(D, 1), order};
    if (simd >= 0) rm.tile[simd] = std::min<int64_t>(cor.tile[simd], lanes * 4);
    return rm;
  };
  // Scans: one level; the scan pass does the rest. Unless that level is too
  // large to be the innermost one, which is unrolled (a 3-D scan of 32^3 had
  // a tile of 8 x 32 x 32): then element rows, as for maps.
  if (prefix) {
    // With sizes left to run time the single level's tiles are planned at 1024 each, and
    // they size the accumulators: a 5-D scan's (1024, 128, 32, 1024, 2) asked for 68 GB per
    // thread, so the kernel failed with status 2 at any size. Element rows then too.
    int64_t cells = 1;
    for (int64_t t : cor.tile) cells = cells > (int64_t(1) << 40) / std::max<int64_t>(t, 1) ? int64_t(1) << 40 : cells * t;
    const bool runTime = std::any_of(known.begin(), known.end(), [](int64_t n) { return n <= 0; });
    if (unrolledCells(cor.tile) > kMaxUnrolledCells || (runTime && cells > kMaxRunTimeScanCells)) c.levels.push_back(vectorRows());
    return c;
  }
  if (!anyReduced) {
    // Maps and stencils: no cache blocking, one vector row per tile (a streamed stencil's
    // has more: streamedStencilTile).
    c.levels.push_back(vectorRows());
    return c;
  }

  // L2: cache blocks; L1/RM: the register tile along the vector dimension.
  LevelConfig l2{"L2", cor.tile, order};
  for (size_t d = 0; d < D; ++d) l2.tile[d] = std::min<int64_t>(cor.tile[d], isReduced(p, d) ? 256 : 128);
  // A reduced vector dimension (MatVec, Histo) keeps one accumulator per lane,
  // summed at every flush: longer blocks flush less often.
  // Only numeric results have lane-wise accumulators (records stay scalar).
  const bool laneAccumulators = p.f && p.f->result.isNumeric();
  // Bounded integer counts summed along the vector dimension count in byte
  // or 16-bit lanes (the OpenMP emitter's narrow accumulators): a register
  // tile of one such vector, and longer blocks, since every flush also widens
  // them (Histo 2^20 x 256, interleaved, before the masked add: L2 blocks of
  // 8192, 32768 and 2^19 bytes took 2.9, 2.3 and 2.0 ms).
  const int narrowBytes = simd >= 0 && isReduced(p, size_t(simd)) ? hl::narrowCounting(p, size_t(simd), 1, 8).bytes : 0;
  if (simd >= 0 && isReduced(p, size_t(simd)) && laneAccumulators) l2.tile[simd] = std::min<int64_t>(cor.tile[simd], narrowBytes ? 65536 : 4096);
  LevelConfig rm{"RM", l2.tile, {}};
  // Reductions unrolled by 4 inside the register tile (measured: 1.3x on MatMul).
  // Only the innermost reduced dimension: several unrolled reductions (a
  // convolution's r, s, c) multiply the code size without more reuse.
  int innerRed = -1;
  for (int d : order)
    if (isReduced(p, size_t(d)) && d != simd) innerRed = d;
  for (size_t d = 0; d < D; ++d) rm.tile[d] = int(d) == innerRed ? std::min<int64_t>(l2.tile[d], 4) : 1;
  // Narrow counts: 64 bytes of lanes on every unit (two AVX2 vectors): Histo 2^20 x 256 on
  // Zen 3 (AVX2), interleaved: 64 byte lanes 3.0 ms, 32 lanes 11.2-12.6 ms.
  if (simd >= 0) rm.tile[simd] = std::min<int64_t>(l2.tile[simd], narrowBytes ? 64 / narrowBytes : lanes * 2);
  // Rows of the register tile along a dimension that the vector operands do
  // not read, so that each vector loaded serves every row: rows along a batch
  // dimension, which both operands of a batched matrix product read, load a
  // new vector per row (200 x 129 x 257 x 131, rows along the batch of 200:
  // 31 ms; along the 129 rows: 13 ms). Among those, the largest.
  // Per input: whether it reads d together with the vector dimension.
  auto vectorOperandsOf = [&](size_t d) {
    std::vector<bool> reading;
    for (const auto &b : p.inputs) {
      bool readsD = false, readsSimd = false;
      for (const auto &a : b.accesses)
        for (const auto &ix : a.dims) {
          readsD |= ix.coeff(d) != 0;
          readsSimd |= simd >= 0 && ix.coeff(size_t(simd)) != 0;
        }
      reading.push_back(readsD && readsSimd);
    }
    return reading;
  };
  auto vectorOperandsReading = [&](size_t d) {
    const auto reading = vectorOperandsOf(d);
    return int(std::count(reading.begin(), reading.end(), true));
  };
  // Elements between neighbours along d in a row-major buffer (run-time extents planned).
  auto elementStride = [&](const hl::Buffer &b, const hl::Access &a, size_t d) {
    int64_t stride = 0, inner = 1;
    for (size_t k = a.dims.size(); k-- > 0;) {
      stride += a.dims[k].coeff(d) * inner;
      inner = std::min<int64_t>(inner * b.shape[k].constantValue().value_or(kPlannedRunTimeSize), int64_t(1) << 40);
    }
    return std::abs(stride);
  };
  // Each row broadcasts its own element of every other operand that reads the row
  // dimension: cache lines those broadcasts touch per register tile (of 8 rows), so
  // that rows go along a dimension those operands store consecutively: rows along a
  // read B[m,j,a,c] 64 bytes apart, 8 lines per reduction step where rows along c
  // share one, and the lines of successive steps (16 KiB apart) evict each other
  // from L1 (CCSD(T) abcijk-ikmb-mjac at 16^6 x 24 on Zen 5: rows along a 7.1 ms,
  // along c 2.8 ms).
  auto broadcastLines = [&](size_t d) {
    constexpr int64_t kRows = 8, kLineBytes = 64;
    int64_t lines = 0;
    for (const auto &b : p.inputs) {
      bool readsSimd = false;
      for (const auto &a : b.accesses)
        for (const auto &ix : a.dims) readsSimd |= simd >= 0 && ix.coeff(size_t(simd)) != 0;
      if (readsSimd) continue;
      for (const auto &a : b.accesses) {
        // A window (a convolution's image at p + r) is different: neighbouring rows
        // read each other's elements over the reduction, so its lines are shared.
        bool window = false;
        for (const auto &ix : a.dims)
          for (size_t r = 0; r < D && ix.coeff(d) != 0; ++r) window |= isReduced(p, r) && ix.coeff(r) != 0;
        if (const int64_t stride = elementStride(b, a, d); stride != 0 && !window)
          lines += std::min<int64_t>(kRows, (kRows * stride * int64_t(b.elem.size()) + kLineBytes - 1) / kLineBytes);
      }
    }
    return lines;
  };
  auto registerRows = [&](size_t d) { return registerTileRows(l2.tile[d], m, asmTiles); };
  // Whether the cache block holds whole register tiles of rows: a remainder tile of rows
  // runs fewer accumulators (a contraction of 24 x 20 x ..: 6 rows along the 12 of a, 0.46
  // ms; 8 along the 20 of b, whose broadcasts are consecutive, 0.52 ms).
  auto wholeRowTiles = [&](size_t d) { return l2.tile[d] % registerRows(d) == 0; };
  // Between run-time sizes, the later dimension: a leading one is more often
  // a batch, 1 in a convolution's common use, where every register tile was
  // a remainder (1 x 56 x 56 x 64 with run-time sizes: 19x the static time).
  int second = -1;
  for (size_t d = 0; d < D; ++d) {
    if (int(d) == simd || isReduced(p, d) || l2.tile[d] <= 1) continue;
    if (second < 0) {
      second = int(d);
      continue;
    }
    const int shared = vectorOperandsReading(d), best = vectorOperandsReading(size_t(second));
    const bool whole = wholeRowTiles(size_t(d)), bestWhole = wholeRowTiles(size_t(second));
    const int64_t lines = broadcastLines(d), bestLines = broadcastLines(size_t(second));
    const bool bothRunTime = known[d] <= 0 && known[size_t(second)] <= 0;
    if (shared != best) {
      if (shared < best) second = int(d);
    } else if (whole != bestWhole) {
      if (whole) second = int(d);
    } else if (lines != bestLines) {
      if (lines < bestLines) second = int(d);
    } else if (N[d] > N[second] || (N[d] == N[second] && bothRunTime)) {
      second = int(d);
    }
  }
  // Rows of two vectors each (registerTileRows).
  // Rows across a reduced vector dimension pay only in vector registers: a
  // record reduction (PRL) keeps them in memory (measured 2.2x slower).
  if (second >= 0 && simd >= 0 && (!isReduced(p, size_t(simd)) || laneAccumulators)) rm.tile[second] = registerRows(size_t(second));
  // A vector dimension of one vector per row (a contraction's 16 along it) leaves 8
  // accumulators, too few to hide the FMA latency: 2 rows along another dimension too,
  // one the vector operands do not read (rows along a batch that B of a batched product
  // reads load a second vector: 200 x 129 x 13 x 131, 0.62 -> 0.66 ms), and among those
  // the one whose broadcasts and stores are closest
  // (CCSD(T) at 16^6 x 24 on Zen 5: abcijk-ijma-mkbc rows a 8 -> a 8 x j 2, 3.5 -> 2.3
  // ms; abcijk-ikmb-mjac c 8 -> c 8 x j 2, 3.5 -> 2.5 ms; 16 rows along a, c: 2.8 ms).
  if (second >= 0 && simd >= 0 && !isReduced(p, size_t(simd)) && rm.tile[simd] <= lanes &&
      rm.tile[second] >= (m.vectorRegisters >= 32 ? 6 : 5)) {
    auto outputStride = [&](size_t d) {
      int64_t stride = 0;
      for (const auto &b : p.outputs)
        for (const auto &a : b.accesses) stride = std::max(stride, elementStride(b, a, d));
      return stride;
    };
    int pair = -1;
    for (size_t d = 0; d < D; ++d) {
      if (int(d) == simd || int(d) == second || isReduced(p, d) || l2.tile[d] < 2 || l2.tile[d] % 2 != 0 ||
          vectorOperandsReading(d) > 0)
        continue;
      if (pair < 0) {
        pair = int(d);
        continue;
      }
      const auto key = [&](size_t e) { return std::make_pair(broadcastLines(e), outputStride(e)); };
      if (key(d) < key(size_t(pair))) pair = int(d);
    }
    if (pair >= 0) rm.tile[size_t(pair)] = 2;
  }
  // Rows across a reduced vector dimension that the row dimension's operand reads too
  // (C = A·Bᵀ read along k, A[i,k] and B[j,k]) load their own vector each, one load per
  // FMA; a 4 x 4 block of rows along two such dimensions loads 8 vectors per 16 FMAs.
  // One vector of lanes per row: two made 32 accumulators, all the registers.
  // A^T B^T of 16 x 3001 x 4099 on Zen 5, 2 threads: 6 rows along j of 2 vectors 5.2 ms,
  // 4 x 4 rows of 2 vectors 4.2 ms, of one 3.3 ms (NumPy 3.5); C = A·Bᵀ of 16 x 1000 x
  // 2048 0.61 -> 0.37 ms. Rows 4 along a batch that A and B both read: 20000 x 4 x 4 x 4,
  // 0.10 -> 0.12 ms; a remainder of 3 of 7 rows: 7 x 33 x 1001, 3.6 -> 6.2 us.
  // The two dimensions' operands differ (rows along a batch that both read share
  // nothing), and both cache blocks hold whole 4-row tiles.
  auto disjoint = [&](size_t d, size_t e) {
    const auto x = vectorOperandsOf(d), y = vectorOperandsOf(e);
    for (size_t i = 0; i < x.size(); ++i)
      if (x[i] && y[i]) return false;
    return true;
  };
  if (second >= 0 && simd >= 0 && isReduced(p, size_t(simd)) && laneAccumulators && !narrowBytes &&
      vectorOperandsReading(size_t(second)) > 0 && l2.tile[second] % 4 == 0) {
    int pair = -1;
    for (size_t d = 0; d < D; ++d)
      if (int(d) != simd && int(d) != second && !isReduced(p, d) && l2.tile[d] % 4 == 0 && vectorOperandsReading(d) > 0 &&
          disjoint(d, size_t(second)) && (pair < 0 || l2.tile[d] > l2.tile[size_t(pair)]))
        pair = int(d);
    if (pair >= 0) {
      // With 16 vector registers (AVX2) 4 x 2: 4 x 4 is 16 accumulators, the whole register
      // file. 16 x 3001 x 4099 on Zen 3, 2 threads, interleaved, paired over 15-20 rounds in
      // two sessions: 4 x 4 rows 7.36 ms, 4 (i) x 2 (j) 6.69 (0.91x), 3 x 3 6.63, 2 x 4 6.84. (A
      // first measurement while the test suite loaded both cores had 4 x 2 slower, 28.8
      // against 27.2 ms.)
      rm.tile[second] = m.vectorRegisters < 32 ? 2 : 4;
      rm.tile[size_t(pair)] = 4;
      rm.tile[simd] = std::min<int64_t>(l2.tile[simd], lanes);
    }
  }
  // No second dimension for rows: 8 vectors along the vector dimension keep
  // 8 independent accumulators (FMA latency x ports) instead of 2, in
  // 16-vector cache blocks (measured with the two-parts-per-core cut above).
  if (second < 0 && simd >= 0 && !isReduced(p, size_t(simd)) && splitReduction >= 0) {
    // Whole rows of the matrix in blocks along the split reduction: 16 rows deep where the
    // matrix stays in the last-level cache, 8 where it streams from memory (measured with
    // streamedReductionToSplit()).
    const hl::Buffer *matrix = streamedAlong(p, simd, splitReduction);
    const bool fromMemory = matrix && bufferBytes(*matrix) > usableLastLevelCache(m, threads);
    l2.tile[size_t(simd)] = cor.tile[size_t(simd)];
    l2.tile[size_t(splitReduction)] = std::min<int64_t>(cor.tile[size_t(splitReduction)], fromMemory ? 8 : 16);
    reductionsBeforeVectorDimension(l2, p, simd);
    rm.tile[size_t(simd)] = std::min<int64_t>(l2.tile[size_t(simd)], lanes * 8);
    for (size_t d = 0; d < D; ++d) rm.tile[d] = std::min(rm.tile[d], l2.tile[d]);
  } else if (second < 0 && simd >= 0 && !isReduced(p, size_t(simd))) {
    l2.tile[size_t(simd)] = std::min<int64_t>(cor.tile[size_t(simd)], lanes * 16);
    rm.tile[size_t(simd)] = std::min<int64_t>(l2.tile[size_t(simd)], lanes * 8);
    // A matrix whose rows are pages apart, streamed through once (1 x 4096 x 25088,
    // Zen 5, 2 threads, interleaved: 11.3 -> 9.7 ms, NumPy 9.7): blocks along pages.
    for (const auto &b : p.inputs) {
      if (b.accesses.size() != 1 || b.shape.size() < 2 || !contiguousAlong(b.accesses[0], simd) || !rowsPagesApart(b)) continue;
      bool alongReduction = false;
      for (size_t d = 0; d < D; ++d) alongReduction |= isReduced(p, d) && dependsOn(b.accesses[0], int(d));
      if (!alongReduction) continue;
      blockAlongPages(l2, cor, p, b, simd);
      for (size_t d = 0; d < D; ++d) rm.tile[d] = std::min(rm.tile[d], l2.tile[d]);
      break;
    }
  }
  // Whole vectors along a concatenated vector dimension: the emitter's vector code
  // needs a register tile that is a multiple of the lanes, and ran a tile of 31 (the
  // dimension's whole extent) in scalar loops; 16 leaves a remainder of 15 on masked
  // lanes (MatMul 1009 x 31 x 997 with 2 threads: 1.04 -> 0.19 ms).
  // So along a reduced one with lane-wise accumulators: a remainder there runs on masked
  // lanes holding the identity past it (a row reduction of 21 in one tile of 21 ran scalar).
  const bool wholeVectors = simd >= 0 && (!isReduced(p, size_t(simd)) || (laneAccumulators && !narrowBytes));
  const int64_t unroundedVectorTile = simd >= 0 ? rm.tile[simd] : 0;
  if (wholeVectors && rm.tile[simd] > lanes && rm.tile[simd] % lanes != 0) rm.tile[simd] = rm.tile[simd] / lanes * lanes;
  // RM order: reductions innermost, so that the accumulation scope spans
  // them (the emitter moves the vector dimension innermost in the element loops).
  rm.order = order;
  c.levels.push_back(l2);
  c.levels.push_back(rm);
  // An input read with a stride along the vector dimension (a convolution's
  // filter K x R x S x C vectorised along K) is staged per cache block in a
  // layout that makes that dimension innermost, so lanes load consecutive
  // elements, like a library's weight reordering; only small footprints.
  if (simd >= 0)
    for (const auto &b : p.inputs) {
      if (b.shape.size() < 2 || b.accesses.size() != 1) continue;
      const auto &a = b.accesses[0];
      int strided = -1;
      for (size_t k = 0; k < a.dims.size(); ++k)
        if (a.dims[k].coeff(size_t(simd)) != 0) strided = strided == -1 ? int(k) : -2;
      if (strided < 0 || strided + 1 == int(a.dims.size()) || a.dims[size_t(strided)].coeff(size_t(simd)) != 1) continue;
      // A block too large to stage is cut down along the other dimensions the buffer reads
      // (concatenated ones first, the largest first, in halves of whole register tiles) until
      // it fits: a gathered vector costs far more than more blocks (a 24^6 tensor
      // contraction whose second operand is read across the vector dimension: 13.4 -> 2.5 ms).
      LevelConfig &block = c.levels[c.levels.size() - 2]; // L2, as pushed above
      const std::vector<int64_t> before = block.tile;
      auto footprint = [&] {
        int64_t elems = 1;
        for (size_t k = 0; k < b.shape.size(); ++k) elems *= tileFootprint(b, k, block.tile);
        return elems;
      };
      std::vector<size_t> cuttable[2]; // concatenated dimensions, then reduced ones
      for (size_t k = 0; k < a.dims.size(); ++k) {
        if (int(k) == strided) continue;
        int single = -1;
        for (size_t d = 0; d < p.dims(); ++d)
          if (a.dims[k].coeff(d) != 0) single = single == -1 ? int(d) : -2;
        if (single >= 0 && single != simd) cuttable[isReduced(p, size_t(single)) ? 1 : 0].push_back(size_t(single));
      }
      while (footprint() > 64 * 1024) {
        int cut = -1;
        for (const auto &dims : cuttable) {
          for (size_t d : dims)
            if (block.tile[d] > rm.tile[d] && (cut < 0 || block.tile[d] > block.tile[size_t(cut)])) cut = int(d);
          if (cut >= 0) break;
        }
        if (cut < 0) break;
        const int64_t r = rm.tile[size_t(cut)], half = (block.tile[size_t(cut)] + 1) / 2;
        block.tile[size_t(cut)] = std::max(r, (half + r - 1) / r * r);
      }
      if (footprint() > 64 * 1024) {
        block.tile = before;
        continue;
      }
      std::vector<int> layout;
      for (int k = 0; k < int(b.shape.size()); ++k)
        if (k != strided) layout.push_back(k);
      layout.push_back(strided);
      // Panels as wide as the register tile where the block holds several along a
      // concatenated vector dimension: a tile's filter rows then lie one after another, not a
      // block's row apart (ResNet-50's first layer: 64 x 147 filters, 37.6 KB, walked 64 bytes
      // of each 256-byte row per tile; paired on the Zen 3 (AVX2), 2 threads: 0.86x the
      // time). Not along a reduced one, whose tile steps along it (16 x 3001 x 4099 Aᵀ·Bᵀ,
      // A in panels of 8 along k: 1.38x).
      const int64_t vectorTile = rm.tile[size_t(simd)], blockTile = block.tile[size_t(simd)];
      const bool panels = !isReduced(p, size_t(simd)) && blockTile > vectorTile && blockTile % vectorTile == 0;
      c.stages.push_back({b.name, "L2", layout, panels ? vectorTile : 0});
      cutAlongStagedBlocks(c, p, a, N, simd, par, second, cores);
    }
  packPanels(c, p, m, N, simd, par, second, threads, asmTiles);
  keepPaddedVectorTile(c, p, N, unroundedVectorTile);
  return c;
}

/// The plan above takes kPlannedRunTimeSize for a size known only at run time, which may be
/// far smaller: a batched product with 7 batches in core tiles of 32 made one
/// part, so one core did all the work. Every run-time size of a concatenated
/// dimension is therefore cut in core tiles of one cache block (the next
/// level's tile, so blocking is unchanged) or 128, whichever is larger, and,
/// when the register tile is vectorised along it in a reduction, 256; the
/// OpenMP kernel evens them out at run time (docs/compiler.md). 7 x 129 x
/// 257 x 131: one part -> four. A matrix product's packed panels keep
/// serving the 256 rows of their block (capped at 128 rows, 1024^3 with
/// run-time sizes took 8.2 ms instead of 7.9).
static void cutRunTimeSizes(Config &c, const hl::Program &p) {
  if (c.levels.empty()) return;
  const std::vector<int64_t> known = concreteSizes(p);
  bool anyReduced = false;
  for (size_t d = 0; d < p.dims(); ++d) anyReduced |= isReduced(p, d);
  LevelConfig &cor = c.levels[0];
  for (size_t d = 0; d < p.dims(); ++d) {
    if (known[d] > 0 || p.ops[d].kind != hl::CombineOperator::Kind::Concat) continue;
    const int64_t block = c.levels.size() > 1 ? c.levels[1].tile[d] : 1;
    if (int(d) != c.simdDim) cor.tile[d] = std::min(cor.tile[d], std::max<int64_t>(block, 128));
    else if (anyReduced) cor.tile[d] = std::min(cor.tile[d], std::max<int64_t>(block, 256));
  }
  for (size_t lv = 1; lv < c.levels.size(); ++lv)
    for (size_t d = 0; d < p.dims(); ++d) c.levels[lv].tile[d] = std::min(c.levels[lv].tile[d], c.levels[lv - 1].tile[d]);
  // A run-time size the plan left whole (its core tile the planned 1024) stays
  // whole for any value: a stencil's rows of 1031 were cut in two pieces
  // (1.6x the static time), and a reduction of 3001 split over the cores,
  // through a temporary, where the static plan keeps it in one part.
  // Not where the core level is the last one (its tile sizes the accumulators)
  // or stages a buffer (its tile sizes the copy).
  bool sizesStorage = c.levels.size() == 1;
  for (const auto &s : c.stages) sizesStorage |= s.layer == cor.layer;
  for (size_t d = 0; d < p.dims() && !sizesStorage; ++d)
    if (known[d] <= 0 && cor.tile[d] == kPlannedRunTimeSize) cor.tile[d] = kWholeRunTimeSize;
}

static Config defaultCpuConfig(const hl::Program &p, const AsmModel &m, int threads, int forcedSimd) {
  Config c = plannedCpuConfig(p, m, threads, forcedSimd);
  cutRunTimeSizes(c, p);
  return c;
}

bool streamStoresApply(const hl::Program &p) {
  for (size_t d = 0; d < p.dims(); ++d)
    if (isReduced(p, d)) return false;
  return true;
}

/// Products (applications of f) that one output cell combines: the product of the
/// point-wise dimensions' sizes (a size known only at run time counts as large).
static int64_t reductionCells(const hl::Program &p) {
  const std::vector<int64_t> sizes = concreteSizes(p);
  int64_t cells = 1;
  for (size_t d = 0; d < p.dims(); ++d)
    if (isReduced(p, d) && (sizes[d] <= 0 || __builtin_mul_overflow(cells, sizes[d], &cells))) return INT64_MAX;
  return cells;
}

/// The most products a cell may combine for the default to stream a reduction's output.
constexpr int64_t kMaxStreamedReduction = 64;

bool streamsWholeReductions(const Config &c, const hl::Program &p) {
  if (streamStoresApply(p) || c.levels.empty()) return false;
  const std::vector<int64_t> sizes = concreteSizes(p);
  for (const auto &l : c.levels)
    if (l.tile.size() != p.dims()) return false;
  for (size_t d = 0; d < p.dims(); ++d)
    if (isReduced(p, d) && (sizes[d] <= 0 || c.levels[0].tile[d] < sizes[d])) return false;
  std::vector<std::pair<size_t, int>> loops; // (level, dimension) of each tile loop, outermost first
  for (size_t lv = 1; lv < c.levels.size(); ++lv)
    for (int d : c.levels[lv].order) {
      if (d < 0 || size_t(d) >= p.dims()) return false; // validate() says what is wrong with the order
      loops.push_back({lv, d});
    }
  size_t scope = loops.size();
  while (scope > 0 && isReduced(p, size_t(loops[scope - 1].second))) --scope;
  for (size_t i = 0; i < scope; ++i) {
    const auto [lv, d] = loops[i];
    if (isReduced(p, size_t(d)) && c.levels[lv].tile[size_t(d)] < c.levels[lv - 1].tile[size_t(d)]) return false;
  }
  return true;
}

/// Config::prefetchSteps for a reduction with an input larger than the
/// last-level cache the kernel can count on: the rows a register tile
/// prefetches then come from memory, which takes longer than the 8 steps
/// the emitter's distance covers from the L3.  0 (the emitter's 8) where
/// every input fits, or a size is known only at run time.
static int defaultPrefetchSteps(const hl::Program &p, const AsmModel &m, int threads) {
  if (streamStoresApply(p)) return 0; // no reduction, no reduction rows to prefetch
  const uint64_t cache = usableLastLevelCache(m, threads);
  for (const auto &b : p.inputs) {
    const uint64_t bytes = bufferBytes(b);
    if (bytes == 0) return 0;
    if (bytes > cache) return 16;
  }
  return 0;
}

/// The register tile of a stencil whose outputs the default streams (its data exceeds the
/// cache): several rows along its outermost stencil dimension (stencilRowDimension), each
/// at least kMinStreamedSegmentBytes long, so that the input rows its rows share stay in L1
/// between them; one row at a time, each input row came from L2 once for every output row
/// that reads it. Cold single calls on 2 cores of the AMD EPYC (Zen 5), interleaved with a
/// same-footprint STREAM triad (2026-11-28): Jacobi2D 4094^2 f32 3.50 ms in whole rows, 2.83
/// in tiles of 4 x 128 (triad 2.91); Jacobi3D 254^3 3.57 -> 3.24 in tiles of 4 x 1 x 128
/// (triad 2.92). Tiles of 4 x 64 ran 3.95: short segments each pay their own line alignment.
/// Where the data stays in the cache, the plain stores go through the register tile, and
/// 4 x 128 was slower than 1 x 64 (Jacobi2D 1022^2, warm: 70-73 against 61-65 us).
/// c: the planned levels of a map, COR and RM; scans keep theirs.
static void streamedStencilTile(Config &c, const hl::Program &p) {
  const int simd = c.simdDim;
  if (c.levels.size() != 2 || simd < 0 || !p.f || !p.f->result.isPrimitive()) return;
  for (size_t d = 0; d < p.dims(); ++d)
    if (p.ops[d].kind == hl::CombineOperator::Kind::PrefixSum) return;
  const int rows = stencilRowDimension(p, simd);
  if (rows < 0) return;
  const LevelConfig &cor = c.levels[0];
  LevelConfig &rm = c.levels[1];
  const int64_t segment = std::max<int64_t>(rm.tile[size_t(simd)], kMinStreamedSegmentBytes / int64_t(p.f->result.size()));
  rm.tile[size_t(rows)] = std::min<int64_t>(cor.tile[size_t(rows)], kStencilRegisterRows);
  rm.tile[size_t(simd)] = std::min<int64_t>(cor.tile[size_t(simd)], segment);
}

Config defaultConfig(const hl::Program &p, const AsmModel &m, int threads, int simdDim) {
  if (isGpuModel(m)) return defaultGpuConfig(p, m);
  Config c = defaultCpuConfig(p, m, threads, simdDim);
  // Streaming stores pay when the outputs cannot stay in the last-level
  // cache anyway (then each store would first read its line from memory).
  // Rows of the output must start on cache lines, or be written straight
  // from f a row at a time (the OpenMP emitter's streamed rows: one buffer,
  // numbers, contiguous along the vector dimension), which peel each row to
  // a vector boundary.  Rows that start mid-line through the accumulator
  // tiles mix streamed lines with plainly stored partial ones, slower than
  // plain stores alone (Jacobi2D 4094², default tiles: 7.1 -> 9.9 ms);
  // written straight from f in whole rows, Jacobi2D went 7.3 -> 5.6 ms
  // (interleaved in the benchmark driver).  Scans that store
  // f and scan the output again keep plain stores; a streamed prefix sum
  // (streamedScanDim) writes each output once, and streaming pays there
  // (2^24 i32, interleaved: 12.0 -> 7.8 ms).
  // What must fit is the whole footprint, inputs too: Jacobi3D 254^3 f32 (65 MiB out, 133 in
  // all) on the 2-core Xeon guest above ran at 25.6 GB/s with plain stores, 37.8 streamed
  // (rows straight from f); at 190^3 (55 MiB in all) plain stores were faster, 45.1 to 39.7.
  // The rule itself: StreamingStores.h (also evaluated when a kernel with run-time sizes starts).
  const StreamingRule rule = streamingRule(p, m, threads);
  const bool aligned = rowsStartOnLines(rule, outputLastExtents(p));
  c.streamStores = streams(rule, double(footprintBytes(p)), outputLastExtents(p), concreteSizes(p), c.simdDim);
  if (c.streamStores) streamedStencilTile(c, p);
  if (c.streamStores && c.simdDim >= 0 && p.f && p.f->result.isPrimitive() && 64 % p.f->result.size() == 0) {
    const int64_t line = 64 / int64_t(p.f->result.size());
    const int64_t n = concreteSizes(p)[size_t(c.simdDim)];
    for (size_t lv = 0; lv < c.levels.size(); ++lv) {
      int64_t &t = c.levels[lv].tile[size_t(c.simdDim)];
      if (n <= 0 || t >= n) continue;
      // Segments written straight from f that are long enough move onto lines themselves
      // (the OpenMP emitter's streamed rows); shorter ones get one peel per row, not per tile.
      const bool movesOntoLines = rule.rowsFromF[size_t(c.simdDim)] && t * int64_t(p.f->result.size()) >= kMinStreamedSegmentBytes;
      if (aligned && t % line != 0) t = std::min(n, (t + line - 1) / line * line); // every tile starts on a line
      else if (!aligned && lv > 0 && !movesOntoLines) t = c.levels[lv - 1].tile[size_t(c.simdDim)];
    }
  }
  // A reduction that its tiles hold whole stores each output cell once, from its register
  // tile's vector accumulators: streamed where the outputs cannot stay cached anyway, the
  // rows start on lines, and a cell sums few products, so that writing the output is a
  // large part of the memory traffic.  Default configurations, interleaved single calls,
  // plain against streamed (2026-11-28, AMD EPYC, 2 cores): the batch-16 first layers of
  // MobileNet (27 products a cell, 26 MB of output) 1.035 -> 0.713 ms and VGG-16 (27,
  // 205 MB) 7.78 -> 7.16 ms, CCSD(T) abcijk-ijma-mkbc (24, 67 MB) 2.61 -> 2.52 ms; but
  // ResNet-50's (147 products, 51 MB) 7.53-7.60 -> 7.90-7.94 ms, and MatVec 4096^2 (4096,
  // 16 KB) the same either way. Only with 64-byte vectors (AVX-512: one streaming store
  // writes a whole line): on the Zen 3 guest (AVX2, two 32-byte stores a line), paired,
  // plain against streamed (2026-12-08): VGG-16 batch 16 0.68x the time, MobileNet batch 16
  // 0.78x, CCSD(T) abcijk-ijma-mkbc 0.81x, abcijk-ikmb-mjac 0.84x.
  if (!streamStoresApply(p) && m.vectorBytes >= 64 && c.simdDim >= 0 && aligned && streamsWholeReductions(c, p) &&
      double(footprintBytes(p)) >= double(usableLastLevelCache(m, threads)) && reductionCells(p) <= kMaxStreamedReduction)
    c.streamStores = true;
  c.prefetchSteps = defaultPrefetchSteps(p, m, threads);
  return c;
}

Config completeConfig(const Config &partial, const hl::Program &p, const AsmModel &m) {
  // A vector dimension alone (no levels, no stages) gets the default planned
  // around it: its tiles, register rows and stages, not those of another one.
  if (partial.levels.empty() && partial.stages.empty() && partial.simdDim >= 0 && size_t(partial.simdDim) < p.dims() &&
      !isGpuModel(m)) {
    Config c = defaultConfig(p, m, partial.threads, partial.simdDim);
    c.strictFp = c.strictFp || partial.strictFp;
    c.streamStores = c.streamStores || partial.streamStores;
    return c;
  }
  Config def = defaultConfig(p, m, partial.threads);
  Config c = partial;
  if (c.levels.empty()) c.levels = def.levels;
  for (auto &l : c.levels) {
    const LevelConfig *d = def.level(l.layer);
    if (l.tile.empty()) l.tile = d ? d->tile : concreteSizes(p);
    if (l.order.empty()) l.order = d ? d->order : def.levels[0].order;
  }
  if (partial.simdDim == -1 && def.simdDim >= 0) c.simdDim = def.simdDim;
  return c;
}

Config randomConfig(const hl::Program &p, const AsmModel &m, std::mt19937_64 &rng, const std::vector<int64_t> &sizes) {
  if (isGpuModel(m)) return randomGpuConfig(p, m, rng, sizes);
  Config c;
  c.model = m.name;
  const size_t D = p.dims();
  auto pick = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
  c.threads = int(pick(1, 4));
  std::vector<std::string> mem;
  for (const auto *l : m.memoryLayers())
    if (l->name != "MM" && l->name != "GM" && l->name != "DM") mem.push_back(l->name);
  std::vector<std::string> layers = {m.coreLayers().at(0)->name};
  for (const auto &l : mem)
    if (pick(0, 2) > 0) layers.push_back(l);
  std::vector<int64_t> prev = sizes;
  for (const auto &name : layers) {
    LevelConfig l;
    l.layer = name;
    for (size_t d = 0; d < D; ++d) {
      int64_t e = prev[d];
      int64_t t;
      switch (pick(0, 4)) {
      case 0: t = e; break;             // whole
      case 1: t = 1; break;             // single elements
      case 2: t = std::max<int64_t>(1, e / pick(1, 4)); break;
      default: t = pick(1, e); break;   // anything, remainders included
      }
      if (&name == &layers.back()) t = std::min<int64_t>(t, 8); // keep unrolled tiles small
      l.tile.push_back(t);
    }
    l.order.resize(D);
    std::iota(l.order.begin(), l.order.end(), 0);
    std::shuffle(l.order.begin(), l.order.end(), rng);
    prev = l.tile;
    c.levels.push_back(std::move(l));
  }
  // Bound the unrolled innermost tile.
  auto &last = c.levels.back().tile;
  while (std::accumulate(last.begin(), last.end(), int64_t(1), std::multiplies<>()) > 64)
    for (auto &t : last) t = std::max<int64_t>(1, t / 2);
  c.simdDim = D ? int(pick(-1, int64_t(D) - 1)) : -1;
  for (const auto &b : p.inputs) {
    if (c.levels.size() < 2 || pick(0, 2) != 0) continue;
    StageConfig s;
    s.buffer = b.name;
    s.layer = c.levels[size_t(pick(1, int64_t(c.levels.size()) - 1))].layer;
    s.layout.resize(b.shape.size());
    std::iota(s.layout.begin(), s.layout.end(), 0);
    std::shuffle(s.layout.begin(), s.layout.end(), rng);
    // Panels: widths that line up with vector lanes, and odd ones.
    static const int64_t panels[] = {0, 0, 1, 3, 8, 16, 32};
    if (!b.shape.empty()) s.panel = panels[pick(0, 6)];
    c.stages.push_back(std::move(s));
  }
  if (streamStoresApply(p)) c.streamStores = pick(0, 1) == 1;
  // Respect capacities: drop stages that do not fit.
  auto errs = validate(c, p, m);
  if (!errs.empty()) c.stages.clear();
  return c;
}

} // namespace mdh::ll
