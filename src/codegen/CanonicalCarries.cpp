/** \file
 * Running values of the canonical strategy's scans (see CanonicalCarries.h).
 */
#include "codegen/CanonicalCarries.h"

#include <fmt/format.h>

namespace mdh::codegen {

namespace {
bool isScan(const hl::Program &p, size_t d) { return p.ops[d].kind == hl::CombineOperator::Kind::PrefixSum; }
}  // namespace

std::vector<std::string> blockCoordinates(const hl::Program &p, const std::string &block, const std::string &rem) {
  std::vector<size_t> cat;
  for (size_t d = p.ops.size(); d-- > 0;)
    if (p.ops[d].kind == hl::CombineOperator::Kind::Concat) cat.push_back(d);
  std::vector<std::string> lines;
  if (!cat.empty()) lines.push_back(fmt::format("int64_t {} = {};", rem, block));
  for (size_t i = 0; i < cat.size(); ++i)
    lines.push_back(fmt::format(i + 1 < cat.size() ? "const int64_t c{0} = {1} % N{0}; {1} /= N{0};" : "const int64_t c{0} = {1} % N{0};",
                                cat[i], rem));
  return lines;
}

std::vector<size_t> scanDimensions(const hl::Program &p) {
  std::vector<size_t> scans;
  for (size_t d = 0; d < p.ops.size(); ++d)
    if (isScan(p, d)) scans.push_back(d);
  return scans;
}

std::vector<size_t> carrySelectors(const hl::Program &p, size_t scan) {
  std::vector<size_t> sel;
  for (size_t d = 0; d < p.ops.size(); ++d)
    if ((d < scan && p.ops[d].kind == hl::CombineOperator::Kind::PointWise) || (d > scan && isScan(p, d))) sel.push_back(d);
  return sel;
}

std::string carrySlotCount(const hl::Program &p, size_t scan) {
  std::string n = "INT64_C(1)";
  for (size_t d : carrySelectors(p, scan)) n += fmt::format("*N{}", d);
  return n;
}

std::string carrySlotIndex(const hl::Program &p, size_t scan) {
  std::string k;
  for (size_t d : carrySelectors(p, scan)) {
    std::string ix = fmt::format("{}{}", isScan(p, d) ? "c" : "i", d);
    k = k.empty() ? ix : fmt::format("({})*N{} + {}", k, d, ix);
  }
  return k.empty() ? "0" : k;
}

}  // namespace mdh::codegen
