/** \file
 * The tuner's search space (paper §4): the low-level configurations of one
 * program on one system model, generated lazily — the space is far too
 * large to enumerate.
 *
 * A point is an ll::Config: the levels used (the core layer COR first, then
 * a subset of the memory layers), a tile extent per level and dimension,
 * a loop order per level, staged input buffers with their layouts (memory
 * regions), the vectorised dimension and the thread count.  Tile extents
 * are drawn from the divisors of the enclosing extent and — since remainder
 * tiles make any extent legal — from powers of two, multiples of the SIMD
 * width and small register-tile extents.
 *
 * GPU models (`opencl`, `cuda`): a point has the two levels of a GPU
 * configuration (work-group tile, work-item tile) with their loop orders and
 * staged inputs on the local / private memory layers; no vector dimension,
 * thread count or optional levels.  Work-group tiles come from the same
 * candidate lists, work-item tiles of non-reduced dimensions are small
 * register tiles (1, 2, 4, 8), at most 256 work-items per group; validity
 * (device limits included) is ll::validate with the backend's model.
 *
 * Invariants: every configuration this class returns satisfies
 * ll::validate, keeps the pinned fields (`Pins`) and has a small innermost
 * (unrolled) tile; the same random generator state gives the same result.
 */
#pragma once

#include "hl/HLIR.h"
#include "ll/AsmModel.h"
#include "ll/Config.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace mdh::tune {

/// Hand-pinned parameters: a partial configuration whose present fields
/// (`threads`, `simd_dim`, `stages`, `levels` with their `tile` / `order`)
/// stay fixed during the search.
struct Pins {
  nlohmann::json fields = nlohmann::json::object();

  /// Parses a partial configuration; false (with `error`) when malformed.
  static bool parse(const nlohmann::json &j, Pins &out, std::string &error);
  /// Overwrites the pinned fields of `c`.
  void apply(ll::Config &c) const;
  bool pinsLevels() const { return fields.contains("levels"); }
  bool pinsThreads() const { return fields.contains("threads"); }
  bool pinsSimd() const { return fields.contains("simd_dim"); }
  bool pinsStages() const { return fields.contains("stages"); }
};

/// The identity of a configuration (hash of its canonical JSON).
std::string configHash(const ll::Config &c);

class SearchSpace {
public:
  /// `threads`: the thread counts to search (one value pins it).
  SearchSpace(const hl::Program &p, ll::AsmModel model, Pins pins, std::vector<int> threads);

  const ll::AsmModel &model() const { return model_; }
  const std::vector<int64_t> &sizes() const { return sizes_; }
  /// The default configuration with the pins applied: the start of every search.
  const ll::Config &start() const { return start_; }

  /// Valid, pinned, and with an innermost tile small enough to unroll.
  bool admissible(const ll::Config &c) const;
  /// Whether a configuration read back from the tuning database may be run or returned:
  /// admissible, or the pinned start itself (whose innermost tile the default may make
  /// larger than the search's bound).
  bool usable(const ll::Config &c) const { return admissible(c) || ll::toJson(c) == ll::toJson(start_); }
  /// A random point (falls back to start() if no admissible one is found).
  ll::Config random(std::mt19937_64 &rng) const;
  /// A random point near `c`: `moves` small changes (tile steps, order
  /// swaps, vector dimension, staging, levels, threads).
  ll::Config neighbour(const ll::Config &c, std::mt19937_64 &rng, int moves = 1) const;
  /// Every admissible point one pattern step (`step` positions in the tile
  /// candidate lists) from `c`, in a fixed order.
  std::vector<ll::Config> neighbours(const ll::Config &c, int step) const;
  /// Tile extents considered inside an enclosing extent `e` (ascending).
  std::vector<int64_t> tileCandidates(int64_t e) const;
  /// The register tile's rows moved to another dimension: for each
  /// concatenated dimension d other than the vector one with more than one
  /// row at the last level, and each other such dimension e, d's rows go to
  /// e (times e's, within e's enclosing tile) and d keeps one.  A
  /// convolution's cache block may hold 8 rows along p but all of q: rows
  /// moved to q can then grow to the 12 that run fastest, a shape that tile
  /// steps alone reach only through slower ones.
  std::vector<ll::Config> rowMoves(const ll::Config &from) const;
  /// Register-tile variants of start() that a search measures first (CPU,
  /// levels not pinned): the tile's rows all along one concatenated
  /// dimension (other than the vector one), as many as in start(), then 12,
  /// 6, 16 and 4 of them; at most 12, admissible, start() excluded.  The
  /// best row count depends on the machine's registers and on how the rows'
  /// inputs sit in the cache (12 rows of a ResNet-50 first-layer tile: 5%
  /// faster than 8; a 1024^3 MatMul: the same), a step that tile steps
  /// rarely take.
  std::vector<ll::Config> seeds() const;

private:
  /// The dimensions a CPU register tile of `c` may have rows along: concatenated (not
  /// point-wise), not the vector dimension, more than one element in the enclosing tile;
  /// none when levels are pinned.
  std::vector<size_t> rowDims(const ll::Config &c) const;
  /// One of kPrefetchChoices (Config::prefetchSteps).
  int randomPrefetchSteps(std::mt19937_64 &rng) const;
  /// Clamps deeper levels to their enclosing tiles, applies the pins.
  ll::Config normalise(ll::Config c) const;
  std::vector<int64_t> enclosing(const ll::Config &c, size_t level) const;
  ll::Config randomGpu(std::mt19937_64 &rng) const;

  const hl::Program &prog_;
  ll::AsmModel model_;
  Pins pins_;
  std::vector<int> threads_;
  std::vector<int64_t> sizes_;
  std::vector<std::string> memoryLayers_; ///< tiling layers below the core layer, slow to fast
  std::vector<int> defaultOrder_;
  int lanes_ = 16; ///< ll::vectorLanes of the program and model
  bool gpu_ = false; ///< a GPU model: two fixed levels, stages on memory layers
  bool streamable_ = false; ///< the kernel may use streaming stores with any tiling (Config::streamStores)
  /// A CPU kernel with a reduction: its prefetch distance matters (Config::prefetchSteps), and
  /// it may stream where its tiles hold the reduction whole (ll::streamsWholeReductions;
  /// flips only, validate() judges each).
  bool cpuReduction_ = false;
  bool chunkable_ = false;  ///< CUDA: reductions may be walked in chunks (Config::chunk)
  /// The prefetch distances random configurations and moves take (Config::prefetchSteps).
  static constexpr int kPrefetchChoices[] = {4, ll::Config::kDefaultPrefetchSteps, 16, 32};
  std::vector<size_t> reducedDims_; ///< the point-wise reduced dimensions
  bool reducedDim(size_t d) const { return prog_.ops[d].kind == hl::CombineOperator::Kind::PointWise; }
  ll::Config start_;
};

} // namespace mdh::tune
