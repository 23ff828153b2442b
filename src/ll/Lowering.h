/** \file
 * Lowering: an hl::Program plus a Config become the low-level expression
 * (the paper's §4) that the emitters print.
 *
 * The lowering decides, once, everything the emitters share: which strategy
 * keeps the program's meaning (the tiled de/re-composition for programs
 * inside Lemma 10, the canonical-order evaluation otherwise), how the output
 * MDA is stored (directly in the output buffers when their views are
 * injective, else in a temporary scattered at the end), the accumulation
 * scope of register tiles, and the reduction split across cores.
 * Invariants: every field is derived from (program, config) only; a Lowered
 * value is valid only for a configuration that passed validate().
 */
#pragma once

#include "hl/HLIR.h"
#include "ll/Config.h"

#include <string>
#include <vector>

namespace mdh::ll {

enum class Strategy {
  Tiled,     ///< de-composition / scalar / re-composition over the configured levels
  Canonical, ///< per output cell, the folds of Def. 9 in the canonical order
};

struct Lowered {
  const hl::Program *program = nullptr;
  Config config;
  Strategy strategy = Strategy::Tiled;
  std::string reason;           ///< why the strategy was chosen (printed by --emit=ll)
  bool directOutput = false;    ///< output MDA lives in the output buffers
  /// Not directOutput only because a reduced dimension's run-time size may
  /// exceed its core tile: with one reduction part at run time the output
  /// could be combined in place (an emitter whose temporary has the output
  /// buffer's layout writes there directly; see the OpenMP emitter).
  bool directUnlessSplit = false;
  std::vector<bool> reduced;    ///< per dim: point-wise (collapses to index 0)
  std::vector<bool> prefix;     ///< per dim: prefix-sum
  const hl::BinaryOperator *op = nullptr; ///< the one ⊕ of all non-concatenation dims (Tiled)
  std::vector<bool> kept;       ///< per dim: kept in the register accumulator
  int scopeStart = 0;           ///< index into the tile-loop list where the accumulation scope starts
  /// The one prefix-sum dimension of a tiled program without reduced
  /// dimensions, whose OpenMP kernel streams it (-1: none).  A cell is then
  /// one f, so the scan reads the inputs and writes the outputs once instead
  /// of storing every f and scanning the output again (5 passes over the
  /// data become 2; few long lines are split among the threads in chunks
  /// that are read twice, the second time from the cache).
  /// The tile levels do not apply to such a kernel.
  int streamedScan = -1;
};

/// Whether all non-concatenation dimensions share one associative and
/// commutative operator (Lemma 10, with prefix sums of that operator).
bool insideLemma10(const hl::Program &p, std::string *why = nullptr);

/// True when every output buffer has one access that is provably injective
/// over the output MDA (hl/Injectivity.h: a full-rank map, or a mixed radix
/// such as a flattened row-major `5*i + j`), so cells can be stored in place.
bool outputsStorableInPlace(const hl::Program &p);

/// The dimension whose OpenMP kernel is a streamed prefix sum
/// (Lowered::streamedScan) for every configuration, or -1.
int streamedScanDim(const hl::Program &p);

Lowered lower(const hl::Program &p, const Config &c);

/// The low-level expression in the paper's notation (`--emit=ll`).
std::string printLowered(const Lowered &l);

} // namespace mdh::ll
