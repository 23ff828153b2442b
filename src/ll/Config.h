/** \file
 * A low-level configuration: the values of the paper's tuning parameters
 * (Table 1) for one program on one abstract system model.
 *
 * With remainder tiles, tile *extents* (not part counts) describe the
 * partitioning: level l cuts each tile of level l-1 into parts of extent
 * tile[d] (the last part may be smaller), so #PRT(l,d) = ceil(ext(l-1,d) /
 * tile(l,d)).  The same form is used by the lowering and the tuner.
 * Invariants after validate(): one level per ASM layer used, the first level
 * on the model's outermost core layer, tile extents >= 1 and non-increasing
 * from level to level, orders are permutations, staged buffers and layouts
 * exist, capacities are respected.  A partial configuration (JSON with some
 * fields missing) is completed from the default heuristic.
 */
#pragma once

#include "hl/HLIR.h"
#include "ll/AsmModel.h"

#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace mdh::ll {

/// One MDH layer: the tiles of all dimensions on one ASM layer.
struct LevelConfig {
  std::string layer;          ///< ASM layer: COR, L3, L2, L1, RM
  std::vector<int64_t> tile;  ///< tile extent per MDA dimension
  std::vector<int> order;     ///< loop order of the level (dims, outer to inner): D1 = S1 = R1 (fused phases)
};

/// D3/D4 (and S3/S4): copy an input buffer's tile into a thread-private
/// region at a level, with a layout (permutation of the buffer's dimensions).
/// A panel width p > 0 (OpenMP only) further cuts the layout's innermost
/// dimension into blocks of p elements stored one after the other, each
/// holding all other dimensions: [block][other dims in layout order][p], the
/// packed panels of BLAS libraries (a register tile then reads consecutive
/// addresses as it walks the other dimensions).
struct StageConfig {
  std::string buffer;
  std::string layer;
  std::vector<int> layout;
  int64_t panel = 0;  ///< 0: no panels
};

struct Config {
  std::string model = "openmp";
  int threads = 0;                  ///< 0: the OpenMP default (OMP_NUM_THREADS / cores)
  std::vector<LevelConfig> levels;  ///< outermost first
  std::vector<StageConfig> stages;
  int simdDim = -1;                 ///< dimension vectorised at the innermost level (-1: none)
  bool strictFp = false;            ///< no FMA contraction
  /// OpenMP: write output rows with non-temporal (streaming) stores, which
  /// skip the read of each written cache line and leave the caches to the
  /// inputs.  With point-wise dimensions only where the tiles hold each
  /// reduction whole (streamsWholeReductions; else a reduction's flush reads
  /// its output back).  JSON `stream_stores`, absent when false.
  bool streamStores = false;
  /// OpenMP: how many steps of a register tile's innermost reduction loop
  /// ahead it prefetches the rows it will read from an input it walks across
  /// rows (B of a MatMul read down a column panel); 0: kDefaultPrefetchSteps.  The
  /// default sets 16 where an input exceeds the last-level cache, so that
  /// those rows come from memory: VGG-16's MatMul (411 MB of B), tuned,
  /// interleaved, two rounds: 12.1-12.5 ms with 8 steps, 11.6 with 16, 11.6-11.7
  /// with 40, 13.2 with 64; 16x1000x2048 (B in the L3) 157 us with 8, 162 with
  /// 16 or 32 (2026-11-28, AMD EPYC, 2 cores).  JSON `prefetch_steps`, absent when 0.
  int prefetchSteps = 0;
  static constexpr int kDefaultPrefetchSteps = 8;
  static constexpr int kMaxPrefetchSteps = 1024;
  /// GPU models: the work-group walks its tile in chunks of these extents
  /// along its point-wise reduced dimensions, one after the other, and its
  /// local stages hold one chunk at a time (refilled per chunk); the other
  /// extents equal the work-group tile's.  Empty: the whole tile at once.
  /// JSON `chunk`, absent when empty.
  std::vector<int64_t> chunk;

  const LevelConfig *level(const std::string &layer) const;
  int levelIndex(const std::string &layer) const;
};

nlohmann::json toJson(const Config &c);
/// Parses a (possibly partial) configuration; missing fields stay empty/default.
bool fromJson(const nlohmann::json &j, Config &c, std::string &error);

/// Whether the OpenMP kernel of p can use streaming stores with any tiling (no point-wise dimension).
bool streamStoresApply(const hl::Program &p);
/// Whether c lets a kernel of p with point-wise dimensions stream its output: the core
/// tile spans each of them (sizes known) and every tile loop over one outside the
/// accumulation scope (the innermost run of such loops, as ll::lower() finds it) runs
/// once, so each output cell is stored once, from its register tile's accumulators,
/// and never read back.
bool streamsWholeReductions(const Config &c, const hl::Program &p);

/// The shortest row segment (bytes) written straight from f with streaming
/// stores when it does not start on a cache line: below, its peel and
/// partial lines cost more than streaming saves.  Jacobi3D's rows of 1016
/// bytes streamed: 8.4 -> 7.9 ms against its plain default (interleaved, with
/// AVX-512; narrower vectors stream longer rows only: StreamingRule::minRowBytes).
constexpr int64_t kMinStreamedSegmentBytes = 512;

/// Rows of a stencil's default register tile (stencilRowDimension): the output
/// rows that share the input rows between them, while those rows are in L1.
constexpr int64_t kStencilRegisterRows = 4;

/// Lanes of one vector of the model's unit (AsmModel::vectorBytes) for f's result, as the
/// default and the tuner count them: 16 f32 or 8 f64 on AVX-512, 8 and 4 on AVX2; results
/// narrower than 4 bytes are counted as 4.
int vectorLanes(const hl::Program &p, const AsmModel &m);

/// The dimension along which the default gives a map's register tile several
/// rows: the outermost point-wise dimension, other than the vector dimension
/// `simd`, along which an input is read at two offsets by accesses that
/// otherwise agree (a stencil's rows or planes above and below); -1: none.
int stencilRowDimension(const hl::Program &p, int simd);

/// The dimension that is contiguous (unit coefficient in the last index) in the
/// most bytes of buffers, outputs weighing 1.5 (-1: none): the GPU defaults'
/// innermost dimension, and an OpenCL CPU device's work-item loop. A CPU kernel's
/// vector dimension refines it (VectorDimension.h).
int contiguousDim(const hl::Program &p, const std::vector<int64_t> &N);

/// Whether access `a` reads consecutive elements along dimension `dim` (only
/// its last component moves with it, with coefficient 1).
bool contiguousAlong(const hl::Access &a, int dim);

/// Whether access `a` of input `b` reads one element, or consecutive ones, across
/// dimension `s` in every copy the element loops may read: the buffer itself or each of
/// its `stages` (a stage must keep that component last and hold no panels).
bool readsLanesConsecutively(const hl::Buffer &b, const hl::Access &a, size_t s, const std::vector<StageConfig> &stages);

/// The last-level cache a kernel on `threads` threads (0: the host's cores)
/// can count on: the model's L3, at most 32 MiB per core.
uint64_t usableLastLevelCache(const AsmModel &m, int threads);

/// Whether v is a permutation of 0..n-1 (loop orders, layouts).
bool isPermutation(const std::vector<int> &v, size_t n);
/// Footprint extent of buffer dimension k for a tile of extents `tile` (the
/// span of all accesses' indices over the tile).
int64_t tileFootprint(const hl::Buffer &b, size_t k, const std::vector<int64_t> &tile);
/// Elements of a stage's region for a tile (footprints; the innermost layout
/// dimension rounded up to whole panels).
int64_t stageElements(const hl::Buffer &b, const StageConfig &s, const std::vector<int64_t> &tile);

/// Checks a configuration against a program and a model; returns the list of
/// violated constraints (empty when valid), each a sentence a user can act on.
std::vector<std::string> validate(const Config &c, const hl::Program &p, const AsmModel &m);

/// Below this many applications of f an instance runs on one thread by default
/// (threads 0; with run-time sizes the OpenMP kernel decides when it starts):
/// the fork and join cost more than the work, and on a busy machine a
/// descheduled worker made a 37x53 scan take 0.01 to 43 ms from call to call.
constexpr int64_t kMinParallelApplications = int64_t(1) << 16;

/// The default's core tile for a run-time size it keeps whole: none exceeds it
/// in practice (--set takes at most 2^40; a larger one through the C entry is
/// still correct, in several parts).
constexpr int64_t kWholeRunTimeSize = int64_t(1) << 40;

/// defaultConfig's choice of the vector dimension: contiguousDim at the planned sizes.
constexpr int kAutomaticSimd = -2;

/// The default heuristic (no tuning): documented in docs/compiler.md.
/// `simdDim` other than kAutomaticSimd plans around that vector dimension
/// (-1: none) instead (CPU models; the run-time dispatch of RunTimeVariants.h).
Config defaultConfig(const hl::Program &p, const AsmModel &m, int threads = 0, int simdDim = kAutomaticSimd);

/// Fills what a partial configuration leaves out from the default.
Config completeConfig(const Config &partial, const hl::Program &p, const AsmModel &m);

/// A random valid configuration (for differential testing and the tuner's
/// random search).  Sizes of dynamic dimensions are taken from `sizes`.
Config randomConfig(const hl::Program &p, const AsmModel &m, std::mt19937_64 &rng,
                    const std::vector<int64_t> &sizes);

/// Concrete sizes of the program (dynamic ones from `dynamic`, name -> value).
std::vector<int64_t> concreteSizes(const hl::Program &p, const std::vector<std::pair<std::string, int64_t>> &dynamic = {});

} // namespace mdh::ll
