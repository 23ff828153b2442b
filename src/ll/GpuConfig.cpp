/** \file
 * GPU configurations: validation, default heuristic, random ones (see GpuConfig.h).
 */
#include "ll/GpuConfig.h"

#include "ll/Lowering.h"

#include <algorithm>
#include <fmt/format.h>
#include <numeric>
#include <optional>
#include <set>

namespace mdh::ll {

bool isGpuModel(const AsmModel &m) { return m.name == "cuda" || m.name == "opencl"; }
bool isLocalMemoryLayer(const std::string &layer) { return layer == "LM" || layer == "SM"; }

namespace {


bool red(const hl::Program &p, size_t d) { return p.ops[d].kind == hl::CombineOperator::Kind::PointWise; }
bool outsideLemma10(const hl::Program &p) { return !insideLemma10(p); }

const hl::Buffer *inputNamed(const hl::Program &p, const std::string &n) {
  for (const auto &b : p.inputs)
    if (b.name == n) return &b;
  return nullptr;
}

int64_t stageBytes(const hl::Buffer &b, const std::vector<int64_t> &tile) {
  int64_t bytes = int64_t(b.elem.size());
  for (size_t k = 0; k < b.shape.size(); ++k) bytes *= tileFootprint(b, k, tile);
  return bytes;
}

int64_t groupSizeOf(const Config &c) {
  int64_t n = 1;
  if (c.levels.size() < 2) return n;
  const std::vector<int64_t> step = gpuChunkTile(c);
  for (size_t d = 0; d < step.size() && d < c.levels[1].tile.size(); ++d)
    n *= (step[d] + std::max<int64_t>(1, c.levels[1].tile[d]) - 1) / std::max<int64_t>(1, c.levels[1].tile[d]);
  return n;
}

/// The non-reduced dimension with a unit stride in the most output/input bytes (coalescing).
int coalescedDim(const hl::Program &p, const std::vector<int64_t> &N) {
  std::vector<double> score(p.dims(), 0);
  auto add = [&](const hl::Buffer &b, double w) {
    for (const auto &a : b.accesses)
      if (!a.dims.empty())
        for (size_t d = 0; d < p.dims(); ++d)
          if (a.dims.back().coeff(d) == 1 && N[d] > 1 && !red(p, d)) score[d] += w;
  };
  for (const auto &b : p.inputs) add(b, 1);
  for (const auto &b : p.outputs) add(b, 2);
  int best = -1;
  for (size_t d = 0; d < p.dims(); ++d)
    if (score[d] > 0 && (best < 0 || score[d] > score[best])) best = int(d);
  return best;
}

/// The default on a CPU device (PoCL) for a large output: a work-item runs its
/// innermost loop along the dimension that is contiguous in the most bytes
/// (64 cells of it when it is not reduced, by up to 4 along the largest other
/// output dimension; a reduced one is folded whole), and a work-group holds 16
/// work-items.  PoCL runs a group's work-items one after the other on a core,
/// so the GPU shape (one cell per work-item along the output's contiguous
/// dimension) walked B's columns: MatMul 1024^3 took 1932 ms with it and 95 ms
/// with this one (benchmarks/opencl/run.sh; the OpenMP default: 7 ms).
/// nullopt: no such shape.
std::optional<Config> cpuDeviceConfig(const hl::Program &p, const AsmModel &m, const std::vector<int64_t> &N, int64_t cells) {
  const size_t D = p.dims();
  bool scans = false;
  for (size_t d = 0; d < D; ++d) scans |= p.ops[d].kind == hl::CombineOperator::Kind::PrefixSum;
  const int inner = contiguousDim(p, N);
  if (inner < 0 || cells < 4096 || scans || !insideLemma10(p)) return std::nullopt;
  const size_t in = size_t(inner);
  auto cores = m.coreLayers();
  LevelConfig wg{cores[0]->name, std::vector<int64_t>(D, 1), {}}, wi{cores[1]->name, std::vector<int64_t>(D, 1), {}};
  for (size_t d = 0; d < D; ++d)
    if (red(p, d)) wg.tile[d] = wi.tile[d] = N[d];
  if (!red(p, in)) wg.tile[in] = wi.tile[in] = std::min<int64_t>(N[in], 64);
  int rows = -1; // the register tile's other dimension, 16 work-items along it
  for (size_t d = 0; d < D; ++d)
    if (!red(p, d) && d != in && N[d] > 1 && (rows < 0 || N[d] > N[size_t(rows)])) rows = int(d);
  if (rows >= 0) {
    const size_t r = size_t(rows);
    wi.tile[r] = std::min<int64_t>(N[r], 4);
    wg.tile[r] = std::min<int64_t>(N[r], wi.tile[r] * 16);
  }
  wg.order.resize(D);
  std::iota(wg.order.begin(), wg.order.end(), 0);
  for (size_t d = 0; d < D; ++d)
    if (!red(p, d) && d != in) wi.order.push_back(int(d));
  for (size_t d = 0; d < D; ++d)
    if (red(p, d) && d != in) wi.order.push_back(int(d));
  wi.order.push_back(inner);
  Config cfg;
  cfg.model = m.name;
  cfg.levels = {wg, wi};
  if (!validateGpu(cfg, p, m).empty()) return std::nullopt;
  return cfg;
}

} // namespace

std::vector<int64_t> gpuChunkTile(const Config &c) {
  if (c.levels.empty()) return {};
  if (c.chunk.size() != c.levels[0].tile.size()) return c.levels[0].tile;
  std::vector<int64_t> step = c.levels[0].tile;
  for (size_t d = 0; d < step.size(); ++d) step[d] = std::clamp<int64_t>(c.chunk[d], 1, std::max<int64_t>(1, step[d]));
  return step;
}

int64_t gpuLocalBytes(const hl::Program &p, const Config &c) {
  if (c.levels.size() < 2 || outsideLemma10(p)) return 0;
  int64_t bytes = 0;
  const std::vector<int64_t> step = gpuChunkTile(c);
  for (const auto &s : c.stages) {
    const hl::Buffer *b = inputNamed(p, s.buffer);
    if (!b || !isLocalMemoryLayer(s.layer) || step.size() != p.dims()) continue;
    bytes += (stageBytes(*b, step) + 15) / 16 * 16;
  }
  int64_t parts = 1, cells = 1;
  for (size_t d = 0; d < p.dims() && d < step.size() && d < c.levels[1].tile.size(); ++d) {
    int64_t wp = (step[d] + std::max<int64_t>(1, c.levels[1].tile[d]) - 1) / std::max<int64_t>(1, c.levels[1].tile[d]);
    if (red(p, d)) parts *= wp;
    else cells *= c.levels[0].tile[d];
  }
  if (parts > 1) bytes += parts * cells * int64_t(p.f->result.size());
  return bytes;
}

std::vector<std::string> validateGpu(const Config &c, const hl::Program &p, const AsmModel &m) {
  std::vector<std::string> errs;
  const size_t D = p.dims();
  if (c.model != m.name) errs.push_back(fmt::format("configuration is for model `{}`, but the backend uses `{}`", c.model, m.name));
  if (c.streamStores) errs.push_back(fmt::format("stream_stores applies to the openmp model only; remove it from the `{}` configuration", m.name));
  if (c.prefetchSteps != 0)
    errs.push_back(fmt::format("prefetch_steps applies to the openmp model only; remove it from the `{}` configuration", m.name));
  auto cores = m.coreLayers();
  auto mems = m.memoryLayers();
  const std::string outer = cores.at(0)->name, inner = cores.at(1)->name;
  if (c.levels.size() != 2 || c.levels[0].layer != outer || c.levels[1].layer != inner) {
    std::vector<std::string> got;
    for (const auto &l : c.levels) got.push_back(l.layer);
    errs.push_back(fmt::format("a `{}` configuration has two levels, `{}` (work-group tile) then `{}` (work-item tile); got [{}]",
                               m.name, outer, inner, fmt::join(got, ", ")));
    return errs;
  }
  std::vector<int64_t> prev = concreteSizes(p);
  for (const auto &l : c.levels) {
    if (l.tile.size() != D) {
      errs.push_back(fmt::format("level `{}`: `tile` has {} {}, the program has {} {}", l.layer, l.tile.size(),
                                 l.tile.size() == 1 ? "entry" : "entries", D, D == 1 ? "dimension" : "dimensions"));
      return errs;
    }
    for (size_t d = 0; d < D; ++d) {
      if (l.tile[d] < 1) errs.push_back(fmt::format("level `{}`: tile extent {} of dimension {} must be at least 1", l.layer, l.tile[d], d + 1));
      else if (prev[d] > 0 && l.tile[d] > prev[d])
        errs.push_back(fmt::format("level `{}`: tile extent {} of dimension {} exceeds the enclosing extent {}", l.layer, l.tile[d], d + 1, prev[d]));
    }
    if (!isPermutation(l.order, D)) errs.push_back(fmt::format("level `{}`: `order` must be a permutation of 0..{}", l.layer, D ? D - 1 : 0));
    prev = l.tile;
  }
  if (!errs.empty()) return errs;
  if (!c.chunk.empty()) {
    // Chunks walk the work-group tile along point-wise reduced dimensions; each
    // work-item folds the whole chunk there (no split of a chunk over work-items).
    if (c.chunk.size() != D) {
      errs.push_back(fmt::format("`chunk` has {} {}, the program has {} {}", c.chunk.size(),
                                 c.chunk.size() == 1 ? "entry" : "entries", D, D == 1 ? "dimension" : "dimensions"));
      return errs;
    }
    if (m.name != "cuda")
      errs.push_back(fmt::format("chunk applies to the cuda model only: PoCL, the OpenCL device these kernels are tested on, "
                                 "miscompiles barriers in the chunk loop (wrong sums in remainder work-groups, compiler "
                                 "aborts); remove `chunk` from the `{}` configuration",
                                 m.name));
    if (outsideLemma10(p))
      errs.push_back("chunk applies to programs whose reductions are combined in parts (inside Lemma 10); this one runs the "
                     "canonical order: remove `chunk`");
    for (size_t d = 0; d < D; ++d) {
      const int64_t wg = c.levels[0].tile[d], wi = c.levels[1].tile[d];
      if (!red(p, d) && c.chunk[d] != wg)
        errs.push_back(fmt::format("chunk extent {} of dimension {}: only point-wise reduced dimensions are walked in chunks; "
                                   "give the work-group tile's extent {}",
                                   c.chunk[d], d + 1, wg));
      else if (red(p, d) && (c.chunk[d] < 1 || c.chunk[d] > wg))
        errs.push_back(fmt::format("chunk extent {} of dimension {} must be between 1 and the work-group tile's extent {}",
                                   c.chunk[d], d + 1, wg));
      else if (red(p, d) && wi != c.chunk[d])
        errs.push_back(fmt::format("chunk extent {} of dimension {}: a work-item folds a whole chunk, so the `{}` tile's extent "
                                   "must be {} too (it is {})",
                                   c.chunk[d], d + 1, inner, c.chunk[d], wi));
    }
    if (!errs.empty()) return errs;
  }
  int64_t group = groupSizeOf(c);
  if (cores[1]->maxParallelism && uint64_t(group) > cores[1]->maxParallelism)
    errs.push_back(fmt::format("{} work-items per work-group (ceil({}/{}) per dimension) exceed the device's maximum of {}", group,
                               c.chunk.empty() ? outer : "chunk", inner, cores[1]->maxParallelism));
  int64_t acc = 1;
  for (size_t d = 0; d < D; ++d)
    if (!red(p, d)) acc *= c.levels[1].tile[d];
  if (acc > 256)
    errs.push_back(fmt::format("a work-item tile with {} output cells needs {} register accumulators; at most 256 are allowed", acc, acc));
  if (c.simdDim < -1 || c.simdDim >= int(D)) errs.push_back(fmt::format("simd_dim {} is not a dimension", c.simdDim));
  std::set<std::pair<std::string, bool>> seen;
  for (const auto &s : c.stages) {
    const hl::Buffer *b = inputNamed(p, s.buffer);
    if (!b) { errs.push_back(fmt::format("stage: `{}` is not an input buffer", s.buffer)); continue; }
    const AsmLayer *layer = m.layer(s.layer);
    if (!layer || layer->kind != LayerKind::Memory || layer == mems.at(0)) {
      errs.push_back(fmt::format("stage of `{}`: `{}` is not a local or private memory layer of `{}` ({} or {})", s.buffer, s.layer,
                                 m.name, mems.at(1)->name, mems.at(2)->name));
      continue;
    }
    bool local = isLocalMemoryLayer(s.layer);
    if (!seen.insert({s.buffer, local}).second) errs.push_back(fmt::format("stage of `{}`: staged twice in `{}`", s.buffer, s.layer));
    bool sameCoeffs = true;
    for (const auto &a : b->accesses)
      for (size_t k = 0; k < a.dims.size(); ++k)
        for (size_t d = 0; d < D; ++d) sameCoeffs &= a.dims[k].coeffs[d] == b->accesses[0].dims[k].coeffs[d];
    if (!sameCoeffs)
      errs.push_back(fmt::format("stage of `{}`: its accesses differ in more than constant offsets, so a tile's footprint is not "
                                 "bounded by the tile; only such buffers can be staged", s.buffer));
    if (!s.layout.empty() && !isPermutation(s.layout, b->shape.size()))
      errs.push_back(fmt::format("stage of `{}`: layout must be a permutation of its {} dimensions", s.buffer, b->shape.size()));
    if (s.panel != 0)
      errs.push_back(fmt::format("stage of `{}`: panel layouts are an OpenMP option; GPU stages take panel 0", s.buffer));
    if (!local && layer->capacityBytes) {
      int64_t bytes = stageBytes(*b, c.levels[1].tile);
      if (uint64_t(bytes) > layer->capacityBytes)
        errs.push_back(fmt::format("stage of `{}` in `{}` needs {} bytes per work-item, more than the layer's {} bytes", s.buffer,
                                   s.layer, bytes, layer->capacityBytes));
    }
  }
  const AsmLayer *lm = mems.at(1);
  int64_t local = gpuLocalBytes(p, c);
  if (lm->capacityBytes && uint64_t(local) > lm->capacityBytes)
    errs.push_back(fmt::format("the work-group needs {} bytes of `{}` (local stages plus the scratch of reductions across "
                               "work-items), more than the device's {} bytes",
                               local, lm->name, lm->capacityBytes));
  return errs;
}

Config defaultGpuConfig(const hl::Program &p, const AsmModel &m) {
  Config c;
  c.model = m.name;
  const size_t D = p.dims();
  std::vector<int64_t> N = concreteSizes(p);
  for (auto &n : N)
    if (n <= 0) n = 1024;
  auto cores = m.coreLayers();
  int64_t maxGroup = int64_t(std::min<uint64_t>(cores.at(1)->maxParallelism ? cores[1]->maxParallelism : 256, 256));
  LevelConfig wg{cores[0]->name, std::vector<int64_t>(D, 1), {}}, wi{cores[1]->name, std::vector<int64_t>(D, 1), {}};
  std::vector<int> order(D);
  std::iota(order.begin(), order.end(), 0);
  wg.order = order;
  // Work-items: non-reduced dims outside, reductions innermost.
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return int(red(p, size_t(a))) < int(red(p, size_t(b))); });
  wi.order = order;
  int64_t cells = 1;
  for (size_t d = 0; d < D; ++d)
    if (!red(p, d)) cells *= N[d];
  // Non-reduced dims: consecutive work-items along the coalesced dimension,
  // a register tile of up to 4 along the largest other one.
  int co = coalescedDim(p, N);
  int64_t budget = maxGroup;
  if (co >= 0) {
    wg.tile[size_t(co)] = std::min<int64_t>(N[size_t(co)], 64);
    budget /= wg.tile[size_t(co)];
  }
  int second = -1;
  for (size_t d = 0; d < D; ++d)
    if (!red(p, d) && int(d) != co && N[d] > 1 && (second < 0 || N[d] > N[size_t(second)])) second = int(d);
  if (m.cpuDevice) {
    if (auto cpu = cpuDeviceConfig(p, m, N, cells)) return *cpu;
  }
  if (second >= 0) {
    int64_t reg = std::min<int64_t>(N[size_t(second)], 4);
    int64_t parts = std::max<int64_t>(1, std::min<int64_t>(budget, (N[size_t(second)] + reg - 1) / reg));
    wi.tile[size_t(second)] = reg;
    wg.tile[size_t(second)] = std::min<int64_t>(N[size_t(second)], reg * parts);
    budget = std::max<int64_t>(1, budget / parts);
  }
  // Reductions: whole in one work-item when there are enough output cells;
  // else split over work-items (local memory) and work-groups (second pass).
  int bigRed = -1;
  for (size_t d = 0; d < D; ++d)
    if (red(p, d) && (bigRed < 0 || N[d] > N[size_t(bigRed)])) bigRed = int(d);
  for (size_t d = 0; d < D; ++d)
    if (red(p, d)) wg.tile[d] = wi.tile[d] = N[d];
  if (bigRed >= 0 && cells < 4096 && insideLemma10(p)) {
    size_t r = size_t(bigRed);
    int64_t chunk = std::min<int64_t>(N[r], 16);
    int64_t parts = std::max<int64_t>(1, std::min<int64_t>(budget, (N[r] + chunk - 1) / chunk));
    wi.tile[r] = chunk;
    wg.tile[r] = std::min<int64_t>(N[r], chunk * parts);
  }
  c.levels = {wg, wi};
  // Keep within the device's limits (small local memory): shrink reductions split over work-items.
  while (!validateGpu(c, p, m).empty()) {
    bool changed = false;
    for (size_t d = 0; d < D && !changed; ++d)
      if (c.levels[0].tile[d] > c.levels[1].tile[d]) {
        c.levels[0].tile[d] = std::max(c.levels[1].tile[d], c.levels[0].tile[d] / 2);
        changed = true;
      }
    if (!changed) break;
  }
  return c;
}

Config randomGpuConfig(const hl::Program &p, const AsmModel &m, std::mt19937_64 &rng, const std::vector<int64_t> &sizes) {
  const size_t D = p.dims();
  auto pick = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
  auto cores = m.coreLayers();
  auto mems = m.memoryLayers();
  for (int attempt = 0; attempt < 20; ++attempt) {
    Config c;
    c.model = m.name;
    LevelConfig wg{cores[0]->name, {}, {}}, wi{cores[1]->name, {}, {}};
    for (size_t d = 0; d < D; ++d) {
      int64_t e = std::max<int64_t>(1, sizes[d]);
      int64_t t;
      switch (pick(0, 4)) {
      case 0: t = e; break;
      case 1: t = 1; break;
      case 2: t = std::max<int64_t>(1, e / pick(1, 4)); break;
      default: t = pick(1, e); break;
      }
      wg.tile.push_back(t);
      int64_t u;
      switch (pick(0, 3)) {
      case 0: u = t; break;
      case 1: u = 1; break;
      default: u = pick(1, t); break;
      }
      wi.tile.push_back(u);
    }
    for (auto *l : {&wg, &wi}) {
      l->order.resize(D);
      std::iota(l->order.begin(), l->order.end(), 0);
      std::shuffle(l->order.begin(), l->order.end(), rng);
    }
    c.levels = {wg, wi};
    // Bound work-items per group (64: quick on PoCL) and register accumulators.
    while (groupSizeOf(c) > 64) {
      size_t d = size_t(pick(0, int64_t(D) - 1));
      if (c.levels[1].tile[d] < c.levels[0].tile[d]) c.levels[1].tile[d] = std::min(c.levels[0].tile[d], c.levels[1].tile[d] * 2);
    }
    for (size_t d = 0; d < D; ++d)
      if (!red(p, d)) c.levels[1].tile[d] = std::min<int64_t>(c.levels[1].tile[d], 4);
    while (groupSizeOf(c) > 64) {
      size_t d = size_t(pick(0, int64_t(D) - 1));
      if (c.levels[0].tile[d] > c.levels[1].tile[d]) c.levels[0].tile[d] = std::max(c.levels[1].tile[d], c.levels[0].tile[d] / 2);
    }
    c.simdDim = -1;
    // CUDA: half of the configurations walk their reduced dimensions in chunks.
    if (m.name == "cuda" && insideLemma10(p) && pick(0, 1) == 0) {
      c.chunk = c.levels[0].tile;
      bool any = false;
      for (size_t d = 0; d < D; ++d)
        if (red(p, d)) {
          c.chunk[d] = c.levels[1].tile[d] = pick(1, c.levels[0].tile[d]);
          any = true;
        }
      if (!any || !validateGpu(c, p, m).empty()) c.chunk.clear();
    }
    for (const auto &b : p.inputs) {
      if (pick(0, 2) != 0) continue;
      StageConfig s;
      s.buffer = b.name;
      s.layer = mems.at(size_t(pick(1, 2)))->name;
      s.layout.resize(b.shape.size());
      std::iota(s.layout.begin(), s.layout.end(), 0);
      std::shuffle(s.layout.begin(), s.layout.end(), rng);
      c.stages.push_back(std::move(s));
    }
    if (!validateGpu(c, p, m).empty()) c.stages.clear();
    if (validateGpu(c, p, m).empty() || attempt == 19) return c;
  }
  return defaultGpuConfig(p, m);
}

} // namespace mdh::ll
