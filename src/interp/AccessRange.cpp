/** \file
 * The run-time range check of index functions (see AccessRange.h).
 */
#include "interp/AccessRange.h"

#include "interp/RuntimeError.h"

#include <fmt/format.h>

namespace mdh::interp {

std::vector<int64_t> outputIndexBox(const hl::Program &p, const std::vector<int64_t> &sizes) {
  std::vector<int64_t> box;
  for (size_t d = 0; d < p.dims(); ++d) box.push_back(p.ops[d].kind == hl::CombineOperator::Kind::PointWise ? 1 : sizes[d]);
  return box;
}

void requireAccessInBuffer(const hl::Buffer &buffer, const hl::Access &access, bool output, const std::vector<int64_t> &box,
                           const std::vector<int64_t> &shape, const ProgramShapes &shapes) {
  for (size_t k = 0; k < access.dims.size() && k < shape.size(); ++k) {
    const hl::AffineIndex &ix = access.dims[k];
    // Each term is below 2^126 in magnitude (64-bit coefficients and sizes);
    // sums are held within ±2^100, far outside any buffer, so that several
    // terms cannot overflow 128 bits.
    constexpr __int128 kFar = __int128(1) << 100;
    auto saturate = [&](__int128 x) { return x > kFar ? kFar : x < -kFar ? -kFar : x; };
    const __int128 offset = saturate(shapes.eval(ix.offset));
    __int128 lo = offset, hi = offset;
    for (size_t d = 0; d < ix.coeffs.size() && d < box.size(); ++d) {
      const __int128 span = __int128(ix.coeff(d)) * (box[d] - 1);
      __int128 &bound = span > 0 ? hi : lo;
      bound = saturate(bound + span);
    }
    if (lo >= 0 && hi < shape[k]) continue;
    std::vector<std::string> sizes;
    for (const auto &[name, value] : shapes.runtimeSizes) sizes.push_back(fmt::format("{} = {}", name, value));
    // Whatever does not fit in 64 bits is far outside any buffer.
    const __int128 reached = lo < 0 ? lo : hi;
    const std::string index = reached < INT64_MIN || reached > INT64_MAX ? std::string(reached < 0 ? "below -2^63" : "above 2^63")
                                                                          : std::to_string(int64_t(reached));
    throw RuntimeError(codes::kShapeMismatch,
                       fmt::format("an access of {} buffer `{}` reaches index {} in dimension {}, outside [0, {}){}",
                                   output ? "output" : "input", buffer.name, index, k + 1, shape[k],
                                   sizes.empty() ? "" : fmt::format(" with {}", fmt::join(sizes, ", "))),
                       access.range,
                       "buffer indices start at 0 and stay below the extent for every size a program runs with "
                       "(docs/language.md §12.5); choose other run-time sizes, or shift the index function");
  }
}

void requireAccessesInBuffers(const hl::Program &p, const ProgramShapes &shapes) {
  for (size_t b = 0; b < p.inputs.size(); ++b)
    for (const auto &a : p.inputs[b].accesses) requireAccessInBuffer(p.inputs[b], a, false, shapes.sizes, shapes.inputs[b], shapes);
  const std::vector<int64_t> box = outputIndexBox(p, shapes.sizes);
  for (size_t b = 0; b < p.outputs.size(); ++b)
    for (const auto &a : p.outputs[b].accesses) requireAccessInBuffer(p.outputs[b], a, true, box, shapes.outputs[b], shapes);
}

} // namespace mdh::interp
