/** \file
 * The search space: lazy generation of random, neighbouring and
 * pattern-step configurations.
 */
#include "tune/SearchSpace.h"

#include "ll/GpuConfig.h"
#include "ll/Lowering.h"
#include "tune/Hash.h"

#include <algorithm>
#include <numeric>
#include <set>

namespace mdh::tune {
namespace {

/// Largest innermost tile (elements) the search proposes: larger register
/// tiles make compile times explode for little gain.  12 rows of two AVX-512
/// vectors with 3 reduction steps unrolled (1152) are in.
constexpr int64_t kMaxUnrolled = 1536;
/// Most register-tile variants of the start measured first (SearchSpace::seeds).
constexpr size_t kMaxSeeds = 12;
/// Most work-items per work-group the GPU search proposes (the default uses up to 256).
constexpr int64_t kMaxGroup = 256;

int64_t product(const std::vector<int64_t> &v) {
  int64_t p = 1;
  for (auto x : v) p *= std::max<int64_t>(x, 1);
  return p;
}

template <class T> const T &pickOne(const std::vector<T> &v, std::mt19937_64 &rng) {
  return v[std::uniform_int_distribution<size_t>(0, v.size() - 1)(rng)];
}

bool chance(std::mt19937_64 &rng, double p) { return std::uniform_real_distribution<double>(0, 1)(rng) < p; }

/// Index of the candidate closest to `t`.
size_t nearest(const std::vector<int64_t> &cands, int64_t t) {
  size_t best = 0;
  for (size_t i = 0; i < cands.size(); ++i)
    if (std::llabs(cands[i] - t) < std::llabs(cands[best] - t)) best = i;
  return best;
}

/// A panel width for a CPU stage (0: none): the innermost level's tile
/// along the vector dimension (what the register tile reads per step), or a
/// lane-sized width.
int64_t randomPanel(const ll::Config &c, std::mt19937_64 &rng) {
  if (!chance(rng, 0.5)) return 0;
  int64_t rmWidth = c.simdDim >= 0 && !c.levels.empty() ? c.levels.back().tile[size_t(c.simdDim)] : 16;
  return pickOne(std::vector<int64_t>{rmWidth, 16, 32, 64}, rng);
}

} // namespace

bool Pins::parse(const nlohmann::json &j, Pins &out, std::string &error) {
  ll::Config probe;
  if (!ll::fromJson(j, probe, error)) return false;
  if (j.contains("levels"))
    for (const auto &l : j.at("levels"))
      if (!l.is_object() || !l.contains("layer")) {
        error = "every pinned level needs a `layer`";
        return false;
      }
  out.fields = j;
  return true;
}

void Pins::apply(ll::Config &c) const {
  ll::Config p;
  std::string err;
  if (!ll::fromJson(fields, p, err)) return; // parse() already checked
  if (fields.contains("threads")) c.threads = p.threads;
  if (fields.contains("simd_dim")) c.simdDim = p.simdDim;
  if (fields.contains("strict_fp")) c.strictFp = p.strictFp;
  if (fields.contains("stream_stores")) c.streamStores = p.streamStores;
  if (fields.contains("chunk")) c.chunk = p.chunk;
  if (fields.contains("prefetch_steps")) c.prefetchSteps = p.prefetchSteps;
  if (fields.contains("stages")) c.stages = p.stages;
  if (!fields.contains("levels")) return;
  // Pinned levels fix the layer structure; their present fields fix values.
  std::vector<ll::LevelConfig> levels;
  for (const auto &pl : p.levels) {
    ll::LevelConfig l;
    if (const ll::LevelConfig *have = c.level(pl.layer)) l = *have;
    l.layer = pl.layer;
    if (!pl.tile.empty()) l.tile = pl.tile;
    if (!pl.order.empty()) l.order = pl.order;
    levels.push_back(std::move(l));
  }
  c.levels = std::move(levels);
}

std::string configHash(const ll::Config &c) { return stableHash(ll::toJson(c).dump()); }

SearchSpace::SearchSpace(const hl::Program &p, ll::AsmModel model, Pins pins, std::vector<int> threads)
    : prog_(p), model_(std::move(model)), pins_(std::move(pins)), threads_(std::move(threads)) {
  if (threads_.empty()) threads_ = {0};
  sizes_ = ll::concreteSizes(p);
  for (const auto *l : model_.memoryLayers())
    if (l->capacityBytes != 0) memoryLayers_.push_back(l->name); // MM/GM/DM (unbounded) hold the whole MDA
  lanes_ = ll::vectorLanes(p, model_);
  gpu_ = ll::isGpuModel(model_);
  for (size_t d = 0; d < p.dims(); ++d)
    if (reducedDim(d)) reducedDims_.push_back(d);
  // Chunks (ll::Config::chunk) are a CUDA option for programs inside Lemma 10 with a reduction.
  chunkable_ = model_.name == "cuda" && ll::insideLemma10(p) && !reducedDims_.empty() && !pins_.pinsLevels();
  streamable_ = !gpu_ && ll::streamStoresApply(p);
  cpuReduction_ = !gpu_ && !reducedDims_.empty();
  if (gpu_) threads_ = {threads_.front()}; // GPU configurations have no thread count
  ll::Config def = ll::defaultConfig(p, model_, threads_.front());
  defaultOrder_ = def.levels.empty() ? std::vector<int>{} : def.levels[0].order;
  // Pinned levels without tiles take the default's (or the whole extent).
  ll::Config pinned = def;
  pins_.apply(pinned);
  start_ = ll::completeConfig(pinned, p, model_);
  pins_.apply(start_);
  start_ = normalise(start_);
}

std::vector<int64_t> SearchSpace::tileCandidates(int64_t e) const {
  std::set<int64_t> s;
  if (e <= 0) e = 1;
  for (int64_t d = 1; d * d <= e; ++d)
    if (e % d == 0) {
      s.insert(d);
      s.insert(e / d);
    }
  for (int64_t t = 1; t < e; t *= 2) s.insert(t);
  for (int64_t m = 1; m <= 16 && lanes_ * m <= e; ++m) s.insert(lanes_ * m);
  // Every register-tile extent up to 16 rows: a remainder tile of known
  // extent has vector code of its own, so 12 rows of 112 cost nothing extra.
  for (int64_t t = 1; t <= std::min<int64_t>(e, 16); ++t) s.insert(t);
  s.insert(e);
  return {s.begin(), s.end()};
}

std::vector<int64_t> SearchSpace::enclosing(const ll::Config &c, size_t level) const {
  return level == 0 ? sizes_ : c.levels[level - 1].tile;
}

int SearchSpace::randomPrefetchSteps(std::mt19937_64 &rng) const {
  return pickOne(std::vector<int>(std::begin(kPrefetchChoices), std::end(kPrefetchChoices)), rng);
}

ll::Config SearchSpace::normalise(ll::Config c) const {
  pins_.apply(c);
  const size_t D = sizes_.size();
  for (size_t l = 1; l < c.levels.size(); ++l)
    for (size_t d = 0; d < c.levels[l].tile.size() && d < c.levels[l - 1].tile.size(); ++d)
      c.levels[l].tile[d] = std::min(c.levels[l].tile[d], c.levels[l - 1].tile[d]);
  if (gpu_) { // GPU stages name memory layers (LM / PM), not levels
    if (c.chunk.size() == D && c.levels.size() == 2) {
      // A chunk walks reduced dimensions only, and a work-item folds a whole chunk.
      for (size_t d = 0; d < D; ++d) {
        if (!reducedDim(d)) c.chunk[d] = c.levels[0].tile[d];
        c.chunk[d] = std::clamp<int64_t>(c.chunk[d], 1, c.levels[0].tile[d]);
        if (reducedDim(d)) c.levels[1].tile[d] = c.chunk[d];
      }
      if (c.chunk == c.levels[0].tile) c.chunk.clear(); // one chunk: the unchunked configuration
    } else {
      c.chunk.clear();
    }
    return c;
  }
  // One spelling per distance: 0 is the built-in one, and nothing to prefetch without a reduction.
  if (!cpuReduction_ || c.prefetchSteps == ll::Config::kDefaultPrefetchSteps) c.prefetchSteps = 0;
  // A tile move that splits a streamed reduction ends its streaming, rather than the move.
  if (cpuReduction_ && c.streamStores && !ll::streamsWholeReductions(c, prog_)) c.streamStores = false;
  // Stages must refer to levels that exist.
  c.stages.erase(std::remove_if(c.stages.begin(), c.stages.end(), [&](const ll::StageConfig &s) { return c.levelIndex(s.layer) < 1; }),
                 c.stages.end());
  return c;
}

bool SearchSpace::admissible(const ll::Config &c) const {
  // GPU work-item tiles are bounded by validate (register accumulators), not unrolled whole.
  if (c.levels.empty() || (!gpu_ && product(c.levels.back().tile) > kMaxUnrolled)) return false;
  ll::Config p = c;
  pins_.apply(p);
  if (ll::toJson(p) != ll::toJson(c)) return false;
  return ll::validate(c, prog_, model_).empty();
}

ll::Config SearchSpace::randomGpu(std::mt19937_64 &rng) const {
  const size_t D = sizes_.size();
  const std::vector<int64_t> regTiles = {1, 1, 2, 4, 8};
  auto groupSize = [&](const ll::Config &c) {
    int64_t n = 1;
    for (size_t d = 0; d < D; ++d) n *= (c.levels[0].tile[d] + c.levels[1].tile[d] - 1) / c.levels[1].tile[d];
    return n;
  };
  for (int attempt = 0; attempt < 200; ++attempt) {
    ll::Config c = start_;
    c.stages.clear();
    if (!pins_.pinsLevels()) {
      auto &wg = c.levels[0], &wi = c.levels[1];
      for (size_t d = 0; d < D; ++d) {
        wg.tile[d] = pickOne(tileCandidates(sizes_[d]), rng);
        if (reducedDim(d)) wi.tile[d] = chance(rng, 0.5) ? wg.tile[d] : pickOne(tileCandidates(wg.tile[d]), rng);
        else wi.tile[d] = std::min(wg.tile[d], pickOne(regTiles, rng));
      }
      for (size_t li = 0; li < 2; ++li)
        if (chance(rng, 0.5)) std::shuffle(c.levels[li].order.begin(), c.levels[li].order.end(), rng);
      if (chunkable_ && chance(rng, 0.5)) { // walk the reductions in chunks (normalise() fixes the rest)
        c.chunk = wg.tile;
        for (size_t d = 0; d < D; ++d)
          if (reducedDim(d)) c.chunk[d] = pickOne(tileCandidates(wg.tile[d]), rng);
      }
      // At most kMaxGroup work-items: shrink work-group tiles (they stay >= the work-item tiles).
      for (int guard = 0; groupSize(c) > kMaxGroup && guard < 1000; ++guard) {
        size_t d = std::uniform_int_distribution<size_t>(0, D - 1)(rng);
        if (wg.tile[d] > wi.tile[d]) wg.tile[d] = std::max(wi.tile[d], wg.tile[d] / 2);
      }
    }
    if (!pins_.pinsStages())
      for (const auto &b : prog_.inputs) {
        if (!chance(rng, c.chunk.empty() ? 0.3 : 0.6) || memoryLayers_.empty()) continue;
        ll::StageConfig st{b.name, chance(rng, 0.7) ? memoryLayers_.front() : memoryLayers_.back(), {}};
        st.layout.resize(b.shape.size());
        std::iota(st.layout.begin(), st.layout.end(), 0);
        if (chance(rng, 0.3)) std::shuffle(st.layout.begin(), st.layout.end(), rng);
        c.stages.push_back(std::move(st));
      }
    c = normalise(c);
    if (!admissible(c)) {
      c.stages.clear(); // most often a stage over the local or private capacity
      c = normalise(c);
    }
    if (admissible(c)) return c;
  }
  return start_;
}

ll::Config SearchSpace::random(std::mt19937_64 &rng) const {
  if (gpu_) return randomGpu(rng);
  const size_t D = sizes_.size();
  for (int attempt = 0; attempt < 200; ++attempt) {
    ll::Config c;
    c.model = model_.name;
    c.threads = pickOne(threads_, rng);
    c.strictFp = start_.strictFp;
    c.streamStores = streamable_ && chance(rng, 0.5);
    if (cpuReduction_) c.prefetchSteps = randomPrefetchSteps(rng);
    std::vector<std::string> layers;
    if (pins_.pinsLevels()) {
      for (const auto &l : start_.levels) layers.push_back(l.layer);
    } else {
      layers.push_back(start_.levels[0].layer);
      for (const auto &m : memoryLayers_)
        if (chance(rng, m == "RM" ? 0.7 : 0.4)) layers.push_back(m);
    }
    std::vector<int64_t> prev = sizes_;
    for (size_t li = 0; li < layers.size(); ++li) {
      ll::LevelConfig l;
      l.layer = layers[li];
      bool innermost = li + 1 == layers.size() && li > 0;
      for (size_t d = 0; d < D; ++d) {
        auto cands = tileCandidates(prev[d]);
        if (innermost) cands.erase(std::remove_if(cands.begin(), cands.end(), [](int64_t t) { return t > 32; }), cands.end());
        l.tile.push_back(cands.empty() ? 1 : pickOne(cands, rng));
      }
      while (innermost && product(l.tile) > kMaxUnrolled / 4) *std::max_element(l.tile.begin(), l.tile.end()) /= 2;
      if (chance(rng, 0.5) && defaultOrder_.size() == D) {
        l.order = defaultOrder_;
      } else {
        l.order.resize(D);
        std::iota(l.order.begin(), l.order.end(), 0);
        std::shuffle(l.order.begin(), l.order.end(), rng);
      }
      prev = l.tile;
      c.levels.push_back(std::move(l));
    }
    c.simdDim = chance(rng, 0.5) ? start_.simdDim : int(std::uniform_int_distribution<int>(-1, int(D) - 1)(rng));
    for (const auto &b : prog_.inputs) {
      if (c.levels.size() < 2 || !chance(rng, 0.25)) continue;
      ll::StageConfig s{b.name, c.levels[std::uniform_int_distribution<size_t>(1, c.levels.size() - 1)(rng)].layer, {}};
      s.layout.resize(b.shape.size());
      std::iota(s.layout.begin(), s.layout.end(), 0);
      if (chance(rng, 0.5)) std::shuffle(s.layout.begin(), s.layout.end(), rng);
      if (!b.shape.empty()) s.panel = randomPanel(c, rng);
      c.stages.push_back(std::move(s));
    }
    c = normalise(c);
    if (!admissible(c)) {
      c.stages.clear(); // most often a stage over capacity or of a non-stageable buffer
      c = normalise(c);
    }
    if (admissible(c)) return c;
  }
  return start_;
}

std::vector<size_t> SearchSpace::rowDims(const ll::Config &c) const {
  std::vector<size_t> dims;
  if (gpu_ || c.levels.size() < 2 || c.simdDim < 0 || pins_.pinsLevels()) return dims;
  const auto outer = enclosing(c, c.levels.size() - 1);
  for (size_t d = 0; d < sizes_.size(); ++d)
    if (int(d) != c.simdDim && prog_.ops[d].kind != hl::CombineOperator::Kind::PointWise && outer[d] > 1) dims.push_back(d);
  return dims;
}

std::vector<ll::Config> SearchSpace::rowMoves(const ll::Config &from) const {
  std::vector<ll::Config> out;
  const std::vector<size_t> dims = rowDims(from);
  if (dims.empty()) return out;
  const size_t last = from.levels.size() - 1;
  const auto &rm = from.levels[last].tile;
  const auto outer = enclosing(from, last);
  for (size_t d : dims) {
    if (rm[d] <= 1) continue;
    for (size_t e : dims) {
      if (e == d) continue;
      ll::Config c = from;
      c.levels[last].tile[e] = std::min(outer[e], rm[d] * rm[e]);
      c.levels[last].tile[d] = 1;
      out.push_back(std::move(c));
    }
  }
  return out;
}

std::vector<ll::Config> SearchSpace::seeds() const {
  std::vector<ll::Config> out;
  const std::vector<size_t> dims = rowDims(start_);
  if (dims.empty()) return out;
  const size_t last = start_.levels.size() - 1;
  const auto outer = enclosing(start_, last);
  int64_t rows = 1;
  for (size_t d : dims) rows *= start_.levels[last].tile[d];
  std::set<std::string> seen{configHash(start_)};
  for (int64_t r : {rows, INT64_C(12), INT64_C(6), INT64_C(16), INT64_C(4)})
    for (size_t d : dims) {
      ll::Config c = start_;
      for (size_t e : dims) c.levels[last].tile[e] = 1;
      c.levels[last].tile[d] = std::min(r, outer[d]);
      c = normalise(c);
      if (out.size() < kMaxSeeds && admissible(c) && seen.insert(configHash(c)).second) out.push_back(std::move(c));
    }
  return out;
}

ll::Config SearchSpace::neighbour(const ll::Config &from, std::mt19937_64 &rng, int moves) const {
  const size_t D = sizes_.size();
  for (int attempt = 0; attempt < 100; ++attempt) {
    ll::Config c = from;
    for (int m = 0; m < moves; ++m) {
      // GPU: tile steps (work-group or work-item tile), order swaps and staging only.
      std::discrete_distribution<int> kind({8, 3, gpu_ ? 0.0 : 1.0, 1, pins_.pinsLevels() || gpu_ ? 0.0 : 1.0,
                                            threads_.size() > 1 ? 0.5 : 0.0, streamable_ || cpuReduction_ ? 0.5 : 0.0, 1,
                                            chunkable_ ? 1.5 : 0.0, cpuReduction_ ? 0.5 : 0.0});
      switch (kind(rng)) {
      case 8: { // a reduced dimension's chunk steps through its candidates (the whole tile: no chunks)
        const size_t d = pickOne(reducedDims_, rng);
        if (c.chunk.size() != D) c.chunk = c.levels[0].tile;
        auto cands = tileCandidates(c.levels[0].tile[d]);
        long i = long(nearest(cands, c.chunk[d]));
        long step = std::uniform_int_distribution<long>(1, 2)(rng) * (chance(rng, 0.5) ? 1 : -1);
        c.chunk[d] = cands[size_t(std::clamp(i + step, 0L, long(cands.size()) - 1))];
        break;
      }
      case 0: { // a tile extent steps through its candidate list
        size_t l = std::uniform_int_distribution<size_t>(0, c.levels.size() - 1)(rng);
        size_t d = std::uniform_int_distribution<size_t>(0, D - 1)(rng);
        auto cands = tileCandidates(enclosing(c, l)[d]);
        long i = long(nearest(cands, c.levels[l].tile[d]));
        long step = std::uniform_int_distribution<long>(1, 2)(rng) * (chance(rng, 0.5) ? 1 : -1);
        c.levels[l].tile[d] = cands[size_t(std::clamp(i + step, 0L, long(cands.size()) - 1))];
        break;
      }
      case 1: { // two loops of one level swap
        if (D < 2) break;
        auto &o = c.levels[std::uniform_int_distribution<size_t>(0, c.levels.size() - 1)(rng)].order;
        size_t a = std::uniform_int_distribution<size_t>(0, D - 1)(rng), b = std::uniform_int_distribution<size_t>(0, D - 1)(rng);
        std::swap(o[a], o[b]);
        break;
      }
      case 2: c.simdDim = std::uniform_int_distribution<int>(-1, int(D) - 1)(rng); break;
      case 3: { // stage, unstage or re-lay-out one input
        if (prog_.inputs.empty() || c.levels.size() < 2) break;
        const auto &b = pickOne(prog_.inputs, rng);
        auto it = std::find_if(c.stages.begin(), c.stages.end(), [&](const ll::StageConfig &s) { return s.buffer == b.name; });
        if (it != c.stages.end() && chance(rng, 0.5)) {
          c.stages.erase(it);
        } else {
          ll::StageConfig s{b.name, gpu_ ? pickOne(memoryLayers_, rng)
                                         : c.levels[std::uniform_int_distribution<size_t>(1, c.levels.size() - 1)(rng)].layer, {}};
          s.layout.resize(b.shape.size());
          std::iota(s.layout.begin(), s.layout.end(), 0);
          if (chance(rng, 0.3)) std::shuffle(s.layout.begin(), s.layout.end(), rng);
          if (!gpu_ && !b.shape.empty()) s.panel = randomPanel(c, rng);
          if (it != c.stages.end()) *it = s;
          else c.stages.push_back(s);
        }
        break;
      }
      case 4: { // add or remove a memory level
        std::vector<std::string> missing;
        for (const auto &m : memoryLayers_)
          if (!c.level(m)) missing.push_back(m);
        if (!missing.empty() && (c.levels.size() < 2 || chance(rng, 0.5))) {
          std::string name = pickOne(missing, rng);
          size_t pos = 1;
          auto rank = [&](const std::string &n) { return std::find(memoryLayers_.begin(), memoryLayers_.end(), n) - memoryLayers_.begin(); };
          while (pos < c.levels.size() && rank(c.levels[pos].layer) < rank(name)) ++pos;
          ll::LevelConfig l = c.levels[pos - 1];
          l.layer = name;
          c.levels.insert(c.levels.begin() + long(pos), l);
        } else if (c.levels.size() > 1) {
          c.levels.erase(c.levels.begin() + long(std::uniform_int_distribution<size_t>(1, c.levels.size() - 1)(rng)));
        }
        break;
      }
      case 5: c.threads = pickOne(threads_, rng); break;
      case 6: c.streamStores = !c.streamStores; break;
      case 9: c.prefetchSteps = randomPrefetchSteps(rng); break;
      default: { // the register tile's rows move to another dimension
        auto moved = rowMoves(c);
        if (!moved.empty()) c = pickOne(moved, rng);
        break;
      }
      }
    }
    c = normalise(c);
    if (admissible(c) && ll::toJson(c) != ll::toJson(from)) return c;
  }
  return random(rng);
}

std::vector<ll::Config> SearchSpace::neighbours(const ll::Config &from, int step) const {
  const size_t D = sizes_.size();
  std::vector<ll::Config> out;
  std::set<std::string> seen{configHash(from)};
  auto add = [&](ll::Config c) {
    c = normalise(std::move(c));
    if (admissible(c) && seen.insert(configHash(c)).second) out.push_back(std::move(c));
  };
  for (size_t l = 0; l < from.levels.size(); ++l)
    for (size_t d = 0; d < D; ++d) {
      auto cands = tileCandidates(enclosing(from, l)[d]);
      long i = long(nearest(cands, from.levels[l].tile[d]));
      for (long s : {-long(step), long(step)}) {
        if (i + s < 0 || i + s >= long(cands.size())) continue;
        ll::Config c = from;
        c.levels[l].tile[d] = cands[size_t(i + s)];
        add(c);
      }
    }
  for (size_t l = 0; l < from.levels.size(); ++l)
    for (size_t a = 0; a + 1 < D; ++a) {
      ll::Config c = from;
      std::swap(c.levels[l].order[a], c.levels[l].order[a + 1]);
      add(c);
    }
  for (int s = -1; s < int(D) && !gpu_; ++s) {
    ll::Config c = from;
    c.simdDim = s;
    add(c);
  }
  for (const auto &b : prog_.inputs) {
    auto it = std::find_if(from.stages.begin(), from.stages.end(), [&](const ll::StageConfig &s) { return s.buffer == b.name; });
    if (it != from.stages.end()) {
      ll::Config c = from;
      c.stages.erase(c.stages.begin() + (it - from.stages.begin()));
      add(c);
      if (!gpu_ && from.simdDim >= 0 && !b.shape.empty()) { // panels on or off
        ll::Config p = from;
        auto &st = p.stages[size_t(it - from.stages.begin())];
        st.panel = st.panel > 0 ? 0 : from.levels.back().tile[size_t(from.simdDim)];
        add(p);
      }
      continue;
    }
    std::vector<std::string> targets;
    if (gpu_) targets = memoryLayers_;
    else
      for (size_t l = 1; l < from.levels.size(); ++l) targets.push_back(from.levels[l].layer);
    for (const auto &t : targets) {
      ll::Config c = from;
      std::vector<int> layout(b.shape.size());
      std::iota(layout.begin(), layout.end(), 0);
      c.stages.push_back({b.name, t, layout});
      add(c);
    }
  }
  for (int t : threads_) {
    ll::Config c = from;
    c.threads = t;
    add(c);
  }
  for (ll::Config &c : rowMoves(from)) add(std::move(c));
  if (streamable_ || cpuReduction_) {
    ll::Config c = from;
    c.streamStores = !c.streamStores;
    add(c);
  }
  if (cpuReduction_) { // half and twice the distance
    const int steps = from.prefetchSteps > 0 ? from.prefetchSteps : ll::Config::kDefaultPrefetchSteps;
    for (int s : {steps / 2, steps * 2}) {
      if (s < 1 || s > ll::Config::kMaxPrefetchSteps) continue;
      ll::Config c = from;
      c.prefetchSteps = s;
      add(c);
    }
  }
  return out;
}

} // namespace mdh::tune
