// FmaTileAsm.h — the innermost reduction loop of a product's register tile (f(a, b) = a * b,
// summed) over its whole tiles as one x86-64 asm loop of broadcasts, vector loads and FMAs,
// for hosts with AVX2 and FMA but not AVX-512 (16 vector registers).
//
// Why: with 16 registers GCC's allocation of an unrolled 5 x 16 MatMul tile (10
// accumulators) moved accumulators between registers and spilled one, whose store and
// reload then lay on its chain of FMAs (docs/compiler.md, "Register tiles in asm").
// Invariants: each iteration applies exactly the updates it is given, in their order, then
// advances both pointers (each accumulator sees the same sequence of fused multiply-adds as
// the C++ loops contracted by the compiler); the statement clobbers "memory", so the
// compiler completes every store before it; accumulators are "+x" operands, so the
// compiler picks their registers, and so are the scratch registers (early-clobbered
// outputs) where GCC's 30 operands allow, else they are clobbers of the highest ones.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mdh::codegen {

/// acc[accumulator] += broadcast(*(broadcastBase + broadcastByte)) * vector(vectorBase + vectorByte).
struct FmaTileUpdate {
  int64_t step = 0; ///< the reduction step (updates of one step may share the vector input's loads)
  int64_t accumulator = 0;
  int64_t broadcastByte = 0;
  int64_t vectorByte = 0;
};

struct FmaTile {
  bool f64 = false;             ///< lanes of double (4 per 32-byte vector), else float (8)
  std::string accumulators;     ///< the array of vector accumulators, e.g. "mdh_vacc"
  std::string broadcastBase;    ///< pointer to the broadcast input's first element
  std::string vectorBase;       ///< pointer to the vector input's first element
  std::vector<FmaTileUpdate> updates; ///< one tile's, in the order the C++ loops apply them
  std::string iterations;       ///< run-time count of tiles (an expression, at least 1)
  int64_t broadcastAdvance = 0; ///< bytes from one tile's broadcast input to the next's
  int64_t vectorAdvance = 0;    ///< bytes from one tile's vector input to the next's
  std::vector<int64_t> vectorPrefetches; ///< byte offsets from the vector input each iteration prefetches (into L1)
};

/// The lines of a block holding the asm loop (without indentation), or nothing where the
/// tile does not fit: more accumulators than leave a register for the broadcast and the
/// vectors a step reuses, an offset or advance beyond 32 bits, or so many updates that one
/// iteration would be a long straight run.
std::optional<std::vector<std::string>> fmaTileAsm(const FmaTile &tile);

/// Prelude text: MDH_FMA_TILE_ASM, 1 where the asm loops apply: GCC or Clang, x86-64, AVX2
/// and FMA, no AVX-512, and MDH_NO_FMA_TILE_ASM undefined.
std::string fmaTileAsmPrelude();

} // namespace mdh::codegen
