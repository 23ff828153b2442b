/** \file
 * The GPU lowering: one kernel plan, derived from an ll::Lowered program and
 * a configuration of the `cuda` or `opencl` model, that both GPU emitters
 * (CudaEmitter, OpenCLEmitter) print — so what runs and is differentially
 * tested on OpenCL covers CUDA.
 *
 * Mapping (docs/gpu.md): the configuration's first level (WG / BLK) tiles the
 * MDA into work-groups, one per part; its second level (WI / THR) cuts each
 * work-group tile into work-item tiles, one work-item each (inactive
 * work-items of remainder tiles still reach every barrier).  A work-item
 * folds its whole tile into register accumulators (one per output cell of
 * the tile).  Tiles are staged in local memory (LM / SM: the work-group
 * tile's footprint, copied cooperatively) and private memory (PM / RM: the
 * work-item tile's footprint) as the configuration's stages say.  With a
 * `chunk`, the work-group walks its tile along the reduced dimensions in
 * chunks: each is staged (between barriers) and folded into the same
 * accumulators, so a large tile streams through a small local memory.  Reductions
 * across work-items combine in local memory in part order; across
 * work-groups, partial results go to a global temporary that a second kernel
 * combines in part order (no atomics: results are deterministic and user
 * operators on records work).  Prefix sums: a work-group scan in local
 * memory, a pass that scans the block totals per line, a pass that adds the
 * carries (no look-back).  Programs outside Lemma 10 (Canonical) run one
 * work-item per output cell, folding in the canonical order.
 * Invariants: everything is derived from (program, configuration, model);
 * the plan is valid only for a configuration that passed ll::validate().
 */
#pragma once

#include "ll/Lowering.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mdh::codegen {

/// An input tile staged in local (work-group) or private (work-item) memory.
struct GpuStage {
  const hl::Buffer *buffer = nullptr;
  bool local = false;            ///< LM/SM (work-group tile) vs PM/RM (work-item tile)
  std::vector<int> layout;       ///< buffer dims, outer to inner
  std::vector<int64_t> maxExt;   ///< footprint extent bound per buffer dim
  int64_t elems = 1;             ///< product of maxExt
  int64_t localOffset = 0;       ///< byte offset in the tile kernel's local memory (local stages)
  std::string var;
};

struct GpuPlan {
  const ll::Lowered *lowered = nullptr;
  const hl::Program *program = nullptr;
  bool canonical = false;
  size_t dims = 0;
  std::vector<int64_t> wgTile, wiTile;  ///< level 0 and level 1 tile extents
  /// The part of the work-group tile processed at once (= wgTile unless the
  /// configuration's `chunk` walks reduced dimensions in parts); work-items
  /// partition it, local stages hold its footprint.
  std::vector<int64_t> chunkTile;
  bool chunked = false;
  std::vector<int> wgOrder, wiOrder;    ///< decode / loop orders
  std::vector<int64_t> wiParts;         ///< work-items per dim: ceil(wgTile / wiTile)
  int64_t groupSize = 1;                ///< work-items per work-group (tile and canonical kernels)
  int64_t auxGroupSize = 64;            ///< combine / scan / scatter kernels (scan block size)
  std::vector<bool> reduced, prefix;
  bool wiRedSplit = false;              ///< work-items of one group share output cells
  int64_t wiRedParts = 1;               ///< work-items per output cell
  int64_t wgCells = 1;                  ///< output cells of a work-group tile (local reduction scratch)
  bool wgRedSplit = false;              ///< work-groups share output cells: second pass
  bool directOutput = false;            ///< results stored through the output views in place
  int64_t accCells = 1;                 ///< register accumulators per work-item
  std::vector<GpuStage> stages;
  int64_t redScratchOffset = 0;         ///< byte offset of the reduction scratch in local memory
  int64_t tileLocalBytes = 0;           ///< local memory of the tile kernel
  bool hasPrefix = false;
};

/// Derives the plan; `maxGroupSize` is the device's limit for auxiliary kernels.
GpuPlan planGpu(const ll::Lowered &l, int64_t maxGroupSize = 1024);

} // namespace mdh::codegen
