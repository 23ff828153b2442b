/** \file
 * Stable content hashes for the tuner: configuration identities, compile
 * cache keys and tuning-database keys.
 *
 * Invariant: the hash of a text is the same on every machine and in every
 * run (FNV-1a, two independent 64-bit lanes, printed as 32 hex digits), so
 * that cache entries and database records written by one run are found by
 * the next.
 */
#pragma once

#include <cstdint>
#include <fmt/format.h>
#include <string>
#include <string_view>

namespace mdh::tune {

/// 128-bit FNV-1a (two lanes with different offsets) as 32 hex digits.
inline std::string stableHash(std::string_view text) {
  uint64_t a = 0xcbf29ce484222325ull, b = 0x84222325cbf29ce4ull;
  for (unsigned char ch : text) {
    a = (a ^ ch) * 0x100000001b3ull;
    b = (b ^ ch ^ 0x5a) * 0x100000001b3ull;
  }
  b ^= text.size();
  return fmt::format("{:016x}{:016x}", a, b);
}

} // namespace mdh::tune
