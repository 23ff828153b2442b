/** \file
 * Configurations of the GPU models (`cuda`, `opencl`): their shape, model
 * and capacity constraints, the default heuristic and random ones.
 *
 * A GPU configuration has exactly two levels: the first on the outer core
 * layer (WG / BLK: the work-group tile), the second on the inner one (WI /
 * THR: the tile of one work-item).  Stages on LM / SM copy the work-group
 * tile's footprint into local memory; on PM / RM the work-item tile's into
 * private memory.  An optional `chunk` walks the work-group tile along its
 * point-wise reduced dimensions in parts, local stages holding one part at a
 * time; work-items then partition a chunk, not the whole tile.  Capacity constraints: work-items per group <= the
 * device's maximum work-group size; local memory (stages plus the scratch of
 * reductions across work-items) <= the device's local memory; private
 * stages and accumulators <= the private-memory layer.  ll::validate,
 * defaultConfig and randomConfig dispatch here for GPU models.
 */
#pragma once

#include "ll/Config.h"

namespace mdh::ll {

bool isGpuModel(const AsmModel &m);
/// LM (OpenCL) or SM (CUDA): work-group shared memory.
bool isLocalMemoryLayer(const std::string &layer);
/// The part of the work-group tile processed at once: `chunk` (clamped to
/// the tile) when given, else the work-group tile.
std::vector<int64_t> gpuChunkTile(const Config &c);
/// Bytes of local memory the tile kernel of a configuration needs.
int64_t gpuLocalBytes(const hl::Program &p, const Config &c);

std::vector<std::string> validateGpu(const Config &c, const hl::Program &p, const AsmModel &m);
Config defaultGpuConfig(const hl::Program &p, const AsmModel &m);
Config randomGpuConfig(const hl::Program &p, const AsmModel &m, std::mt19937_64 &rng, const std::vector<int64_t> &sizes);

} // namespace mdh::ll
