// FmaTileAsm.cpp — see FmaTileAsm.h.
#include "codegen/FmaTileAsm.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>

namespace mdh::codegen {

namespace {

constexpr int kVectorRegisters = 16;
/// A longer iteration would be a straight run of code that the loop repeats anyway.
constexpr size_t kMaxUpdates = 512;
constexpr int kMaxAsmOperands = 30;

} // namespace

std::optional<std::vector<std::string>> fmaTileAsm(const FmaTile &tile) {
  if (tile.updates.empty() || tile.updates.size() > kMaxUpdates || tile.iterations.empty()) return std::nullopt;
  std::set<int64_t> accumulators;
  std::map<int64_t, int> vectorUses;
  std::map<int64_t, std::set<int64_t>> vectorsOfStep;
  // Displacements and immediates are signed 32-bit.
  auto fits = [](int64_t x) { return x >= INT32_MIN && x <= INT32_MAX; };
  if (!fits(tile.broadcastAdvance) || !fits(tile.vectorAdvance)) return std::nullopt;
  for (int64_t o : tile.vectorPrefetches)
    if (!fits(o)) return std::nullopt;
  for (const FmaTileUpdate &u : tile.updates) {
    if (u.accumulator < 0 || !fits(u.broadcastByte) || !fits(u.vectorByte)) return std::nullopt;
    accumulators.insert(u.accumulator);
    ++vectorUses[u.vectorByte];
    vectorsOfStep[u.step].insert(u.vectorByte);
  }
  // Registers: the accumulators, one broadcast, and the vectors one reduction step reuses
  // across its rows (a vector read once is an FMA's memory operand instead).
  size_t reusedPerStep = 0;
  for (const auto &[step, offsets] : vectorsOfStep) {
    size_t reused = 0;
    for (int64_t o : offsets) reused += vectorUses[o] > 1;
    reusedPerStep = std::max(reusedPerStep, reused);
  }
  const int accCount = int(accumulators.size());
  const int vectorRegs = std::min(int(reusedPerStep), kVectorRegisters - 1 - accCount);
  if (accCount + 1 > kVectorRegisters || (reusedPerStep > 0 && vectorRegs < 1)) return std::nullopt;
  // GCC takes at most 30 operands, a "+" operand counting twice: the accumulators and the
  // three pointer and count registers, then the scratch registers as operands where they
  // fit (the compiler's choice of registers), else as clobbers of the highest ones.
  const int fixedOperands = 2 * accCount + 2 * 3;
  if (fixedOperands > kMaxAsmOperands) return std::nullopt;
  const bool scratchOperands = fixedOperands + 1 + vectorRegs <= kMaxAsmOperands;
  auto broadcastReg = [&] { return scratchOperands ? std::string("%[b]") : fmt::format("%%ymm{}", kVectorRegisters - 1); };
  auto vectorReg = [&](size_t k) {
    return scratchOperands ? fmt::format("%[v{}]", k) : fmt::format("%%ymm{}", kVectorRegisters - 2 - int(k));
  };

  const char *bcast = tile.f64 ? "vbroadcastsd" : "vbroadcastss";
  const char *load = tile.f64 ? "vmovupd" : "vmovups";
  const char *fma = tile.f64 ? "vfmadd231pd" : "vfmadd231ps";
  std::vector<std::string> lines;
  auto text = [&](const std::string &insn) { lines.push_back(fmt::format("\"{}\\n\\t\"", insn)); };

  // Scratch registers are early-clobbered outputs (%[b], %[v0]..) where the operands allow
  // (above), so that the compiler picks them around the accumulators it keeps; vector
  // registers are reused least recently used first.
  struct Slot {
    int64_t offset = 0;
    bool loaded = false;
    size_t lastUse = 0;
  };
  std::vector<Slot> slots(static_cast<size_t>(vectorRegs));
  // Prefetches spread evenly over the iteration, between its FMAs.
  size_t prefetched = 0;
  std::optional<int64_t> broadcastHeld;
  for (size_t i = 0; i < tile.updates.size(); ++i) {
    const FmaTileUpdate &u = tile.updates[i];
    for (; prefetched < tile.vectorPrefetches.size() && prefetched * tile.updates.size() <= i * tile.vectorPrefetches.size(); ++prefetched)
      text(fmt::format("prefetcht0 {}(%[v])", tile.vectorPrefetches[prefetched]));
    if (broadcastHeld != u.broadcastByte) {
      text(fmt::format("{} {}(%[s]), {}", bcast, u.broadcastByte, broadcastReg()));
      broadcastHeld = u.broadcastByte;
    }
    if (vectorUses[u.vectorByte] == 1 || slots.empty()) {
      text(fmt::format("{} {}(%[v]), {}, %[a{}]", fma, u.vectorByte, broadcastReg(), u.accumulator));
      continue;
    }
    size_t slot = slots.size();
    for (size_t k = 0; k < slots.size(); ++k)
      if (slots[k].loaded && slots[k].offset == u.vectorByte) slot = k;
    if (slot == slots.size()) {
      slot = 0;
      for (size_t k = 0; k < slots.size(); ++k) {
        if (!slots[k].loaded) {
          slot = k;
          break;
        }
        if (slots[k].lastUse < slots[slot].lastUse) slot = k;
      }
      text(fmt::format("{} {}(%[v]), {}", load, u.vectorByte, vectorReg(slot)));
      slots[slot] = {u.vectorByte, true, i};
    }
    slots[slot].lastUse = i;
    text(fmt::format("{} {}, {}, %[a{}]", fma, vectorReg(slot), broadcastReg(), u.accumulator));
  }

  const std::string vecType = tile.f64 ? "mdh_vt<double, 4>" : "mdh_vt<float, 8>";
  std::vector<std::string> out, outputs, scratch, clobbers = {"\"memory\"", "\"cc\""};
  for (int64_t a : accumulators) outputs.push_back(fmt::format("[a{0}] \"+x\"({1}[{0}])", a, tile.accumulators));
  if (scratchOperands) {
    scratch.push_back("mdh_b");
    outputs.push_back("[b] \"=&x\"(mdh_b)");
    for (int k = 0; k < vectorRegs; ++k) {
      outputs.push_back(fmt::format("[v{0}] \"=&x\"(mdh_v{0})", k));
      scratch.push_back(fmt::format("mdh_v{}", k));
    }
  } else {
    for (int k = 0; k <= vectorRegs; ++k) clobbers.push_back(fmt::format("\"xmm{}\"", kVectorRegisters - 1 - k));
  }
  outputs.push_back("[s] \"+r\"(mdh_s)");
  outputs.push_back("[v] \"+r\"(mdh_v)");
  outputs.push_back("[n] \"+r\"(mdh_n)");
  out.push_back("{");
  if (!scratch.empty()) out.push_back(fmt::format("  {} {};", vecType, fmt::join(scratch, ", ")));
  out.push_back(fmt::format("  const char *mdh_s = reinterpret_cast<const char *>({});", tile.broadcastBase));
  out.push_back(fmt::format("  const char *mdh_v = reinterpret_cast<const char *>({});", tile.vectorBase));
  out.push_back(fmt::format("  int64_t mdh_n = {};", tile.iterations));
  // The loop runs its iterations once each, in order; "memory" because it reads as far
  // as the run-time count takes the pointers.
  out.push_back("  __asm__(");
  out.push_back("      \".p2align 4\\n\\t\"");
  out.push_back("      \"1:\\n\\t\"");
  for (const auto &l : lines) out.push_back("      " + l);
  out.push_back(fmt::format("      \"add ${}, %[s]\\n\\t\"", tile.broadcastAdvance));
  out.push_back(fmt::format("      \"add ${}, %[v]\\n\\t\"", tile.vectorAdvance));
  out.push_back("      \"dec %[n]\\n\\t\"");
  out.push_back("      \"jnz 1b\\n\\t\"");
  out.push_back(fmt::format("      : {}", fmt::join(outputs, ", ")));
  out.push_back("      :");
  out.push_back(fmt::format("      : {});", fmt::join(clobbers, ", ")));
  out.push_back("}");
  return out;
}

std::string fmaTileAsmPrelude() {
  return R"(// Register tiles of products (f(a, b) = a * b, summed) on x86-64 hosts with AVX2 and FMA but
// not AVX-512 run their innermost reduction loop over whole tiles as one asm loop: with 16
// vector registers GCC's own allocation of such a tile spilled an accumulator onto its chain
// of FMAs (docs/compiler.md, "Register tiles in asm"). -DMDH_NO_FMA_TILE_ASM keeps the C++.
#if (defined(__GNUC__) || defined(__clang__)) && defined(__x86_64__) && defined(__AVX2__) && defined(__FMA__) && \
    !defined(__AVX512F__) && !defined(MDH_NO_FMA_TILE_ASM)
#define MDH_FMA_TILE_ASM 1
#else
#define MDH_FMA_TILE_ASM 0
#endif
)";
}

} // namespace mdh::codegen
