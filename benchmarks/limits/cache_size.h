// cache_size.h — the size of the largest CPU cache (the L3 on the machines we run on), read from
// Linux's sysfs, for the benchmarks that must evict it before a cold sample (stream_triad's flush,
// bench_suite's evict buffer). Header-only: both binaries are built outside the main build.
// Invariant: returns 0 when sysfs does not say (callers keep their fixed floor then); a build
// machine's L3 ranges from 32 MiB (AMD EPYC) to 260 MiB (Intel Emerald Rapids), so a fixed
// eviction size that is 3x the one is smaller than the other.
#pragma once
#include <cstddef>
#include <fstream>
#include <string>

inline size_t largestCacheBytes() {
  size_t largest = 0;
  for (int index = 0; index < 8; ++index) {
    std::ifstream in("/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index) + "/size");
    std::string text;
    if (!(in >> text) || text.empty()) continue;
    size_t value = 0, pos = 0;
    while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9') value = value * 10 + size_t(text[pos++] - '0');
    const char unit = pos < text.size() ? text[pos] : 'B';
    value <<= unit == 'K' ? 10 : unit == 'M' ? 20 : unit == 'G' ? 30 : 0;
    if (value > largest) largest = value;
  }
  return largest;
}

/// Bytes to stream so that no byte of a kernel's footprint survives in any cache: three times the
/// largest cache, never less than `floor`.
inline size_t evictionBytes(size_t floor) {
  const size_t threeCaches = 3 * largestCacheBytes();
  return threeCaches > floor ? threeCaches : floor;
}
