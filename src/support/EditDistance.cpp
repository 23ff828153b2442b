/** \file
 * Edit distance between words (see EditDistance.h).
 */
#include "support/EditDistance.h"

#include <algorithm>

namespace mdh {

// Only the band |i - j| < limit of the table can hold values below `limit`, so a word
// of n letters costs O(n * limit), not O(n^2).
size_t editDistance(const std::string &a, const std::string &b, size_t limit) {
  const size_t n = a.size(), m = b.size();
  if ((n > m ? n - m : m - n) >= limit) return limit;
  const size_t far = limit; // stands for every value >= limit
  std::vector<size_t> prev2(m + 1, far), prev(m + 1, far), cur(m + 1, far);
  for (size_t j = 0; j <= std::min(m, limit); ++j) prev[j] = j;
  for (size_t i = 1; i <= n; ++i) {
    const size_t lo = i >= limit ? i - limit + 1 : 1, hi = std::min(m, i + limit - 1);
    // The buffers are reused: only the band and its two neighbours are read later.
    cur[lo - 1] = lo == 1 ? std::min(i, far) : far;
    if (hi + 1 <= m) cur[hi + 1] = far;
    size_t rowMin = cur[lo - 1];
    for (size_t j = lo; j <= hi; ++j) {
      size_t v = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) v = std::min(v, prev2[j - 2] + 1);
      cur[j] = std::min(v, far);
      rowMin = std::min(rowMin, cur[j]);
    }
    if (rowMin >= limit) return limit;
    std::swap(prev2, prev);
    std::swap(prev, cur);
  }
  return std::min(prev[m], far);
}

std::string closestWord(const std::string &word, const std::vector<std::string> &candidates) {
  std::string best;
  size_t bestD = std::min<size_t>(2, std::max<size_t>(1, word.size() / 3)) + 1;
  for (const auto &c : candidates) {
    const size_t d = editDistance(word, c, bestD);
    if (d < bestD) {
      bestD = d;
      best = c;
    }
  }
  return best;
}

} // namespace mdh
