/** \file
 * The default configuration for sizes left to run time, one per vector
 * dimension the sizes could favour.
 *
 * With every size known, the default plans around the vector dimension
 * VectorDimension.h chooses.  A size left to run time (`*`) is planned as a
 * large one, so that choice can be wrong for the sizes a call brings: a
 * convolution with run-time sizes, vectorised along its channels, ran the
 * ResNet-50 first layer (C = 3 of 32 lanes) 76x slower than compiled for its
 * sizes, and 1.6x with the filters' dimension.  So the default is one
 * configuration per dimension the rule can choose, and the emitted entry
 * applies the rule to the sizes it is called with (codegen::emitOpenMPDispatch).
 * Streaming stores, which depend on the footprint (StreamingStores.h), are
 * decided the same way: a map of 96 MB with run-time sizes took 2.35x the time
 * of the same sizes compiled in with the plain stores its plan had to assume,
 * 0.99x now.
 *
 * Invariants: configs[0] is defaultConfig() itself (its vector dimension is
 * the planned choice); every config is valid for the program and model, and
 * differs from the others in its vector dimension or its streaming stores;
 * one config when nothing is left to run time or the model is not a CPU's.
 */
#pragma once

#include "hl/HLIR.h"
#include "ll/AsmModel.h"
#include "ll/Config.h"
#include "ll/StreamingStores.h"
#include "ll/VectorDimension.h"

#include <vector>

namespace mdh::ll {

struct RunTimeVariants {
  VectorDimensionRule rule;
  StreamingRule streaming;
  /// Per vector dimension the plain configuration, then (where the streaming
  /// rule applies) the same one with streaming stores.
  std::vector<Config> configs;
};

/// `planned` is defaultConfig(p, m, threads) with the caller's settings
/// (strictFp) applied; the other variants get the same settings.
RunTimeVariants runTimeVariants(const hl::Program &p, const AsmModel &m, const Config &planned);

} // namespace mdh::ll
