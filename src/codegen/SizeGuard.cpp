/** \file
 * The run-time size check of generated host entries (see SizeGuard.h).
 */
#include "codegen/SizeGuard.h"

#include <fmt/format.h>

namespace mdh::codegen {
namespace {

/// `p` as a C expression over `sz_<name>` whose every step goes through the
/// checked `mdh_add` / `mdh_mul` of the check function.
std::string checkedPoly(const SizePoly &p) {
  if (auto v = p.constantValue()) return fmt::format("INT64_C({})", *v);
  std::string sum;
  for (const auto &[mono, coeff] : p.terms()) {
    std::string term;
    for (const auto &x : mono) term = term.empty() ? "sz_" + x : fmt::format("mdh_mul({}, sz_{})", term, x);
    term = term.empty() ? fmt::format("INT64_C({})", coeff) : coeff == 1 ? term : fmt::format("mdh_mul(INT64_C({}), {})", coeff, term);
    sum = sum.empty() ? term : fmt::format("mdh_add({}, {})", sum, term);
  }
  return sum;
}

/// The smallest (`largest` = false) or largest value of index component `ix`
/// over the index sets [0, box[d]).
SizePoly extreme(const hl::AffineIndex &ix, const std::vector<SizePoly> &box, bool largest) {
  SizePoly v = ix.offset;
  for (size_t d = 0; d < ix.coeffs.size() && d < box.size(); ++d) {
    const int64_t c = ix.coeff(d);
    if ((c > 0) == largest && c != 0) v = v + SizePoly::constant(c) * (box[d] - SizePoly::constant(1));
  }
  return v;
}

/// `extreme()` as a checked C expression (the box extents are evaluated checked too).
std::string checkedExtreme(const hl::AffineIndex &ix, const std::vector<SizePoly> &box, bool largest) {
  std::string v = checkedPoly(ix.offset);
  for (size_t d = 0; d < ix.coeffs.size() && d < box.size(); ++d) {
    const int64_t c = ix.coeff(d);
    if ((c > 0) != largest || c == 0 || box[d] == SizePoly::constant(1)) continue;
    v = fmt::format("mdh_add({}, mdh_mul(INT64_C({}), mdh_add({}, INT64_C(-1))))", v, c, checkedPoly(box[d]));
  }
  return v;
}

} // namespace

std::string runTimeSizeCheck(const hl::Program &p, const std::string &backend, const std::string &entry) {
  if (p.dynamicSizes.empty()) return "";
  std::vector<std::string> params, named, values;
  for (const auto &s : p.dynamicSizes) {
    params.push_back("int64_t sz_" + s);
    named.push_back(s + " = %lld");
    values.push_back("(long long)sz_" + s);
  }
  // printf pieces: "mdh (B): E: with run-time sizes N = %lld, K = %lld, " and its arguments.
  const std::string prefix = fmt::format("mdh ({}): {}: ", backend, entry);
  const std::string withSizes = fmt::format("with run-time size{} {}", p.dynamicSizes.size() == 1 ? "" : "s", fmt::join(named, ", "));
  const std::string sizeArgs = fmt::format("{}", fmt::join(values, ", "));

  std::string o = fmt::format("// The run-time sizes of {}: each at least 1, every buffer within 2^63 - 1 bytes and\n"
                              "// every access inside its buffer (docs/language.md §12.5), else nothing is computed.\n"
                              "static bool mdh_sizes_ok_{}({}) {{\n",
                              entry, entry, fmt::join(params, ", "));
  for (const auto &s : p.dynamicSizes)
    o += fmt::format("  if (sz_{0} < 1) {{ std::fprintf(stderr, \"{1}run-time size {0} = %lld is below 1 (MDH sizes are at least 1); "
                     "nothing computed\\n\", (long long)sz_{0}); return false; }}\n",
                     s, prefix);
  // Checked arithmetic: a step that would overflow clears mdh_fits.
  o += "  bool mdh_fits = true;\n"
       "  [[maybe_unused]] auto mdh_add = [&mdh_fits](int64_t a, int64_t b) -> int64_t { // unused where sizes have no sums\n"
       "    if ((b > 0 && a > INT64_MAX - b) || (b < 0 && a < INT64_MIN - b)) { mdh_fits = false; return 0; }\n"
       "    return a + b;\n"
       "  };\n"
       "  auto mdh_mul = [&mdh_fits](int64_t a, int64_t b) -> int64_t {\n"
       "    const bool fits = a == 0 || b == 0 ||\n"
       "                      (a > 0 ? (b > 0 ? a <= INT64_MAX / b : b >= INT64_MIN / a) : (b > 0 ? a >= INT64_MIN / b : a >= INT64_MAX / b));\n"
       "    if (!fits) { mdh_fits = false; return 0; }\n"
       "    return a * b;\n"
       "  };\n";
  const std::vector<SizePoly> inBox = p.sizes, outBox = p.outputSizes();
  std::vector<std::pair<const hl::Buffer *, bool>> buffers; // (buffer, output)
  for (const auto &b : p.inputs) buffers.push_back({&b, false});
  for (const auto &b : p.outputs) buffers.push_back({&b, true});
  // First every buffer's size (`mdh_extent<buffer>_<dimension>`), then the accesses.
  for (size_t bi = 0; bi < buffers.size(); ++bi) {
    const hl::Buffer &b = *buffers[bi].first;
    std::string bytes = fmt::format("INT64_C({})", b.elem.size());
    for (size_t k = 0; k < b.shape.size(); ++k) {
      o += fmt::format("  const int64_t mdh_extent{}_{} = {};\n", bi, k, checkedPoly(b.shape[k]));
      bytes = fmt::format("mdh_mul({}, mdh_extent{}_{})", bytes, bi, k);
    }
    o += fmt::format("  (void){};\n", bytes);
    o += fmt::format("  if (!mdh_fits) {{ std::fprintf(stderr, \"{}{}, {} buffer `{}` takes more than 2^63 - 1 bytes; nothing computed\\n\", "
                     "{}); return false; }}\n",
                     prefix, withSizes, buffers[bi].second ? "output" : "input", b.name, sizeArgs);
  }
  for (size_t bi = 0; bi < buffers.size(); ++bi) {
    const auto &[buffer, output] = buffers[bi];
    const hl::Buffer &b = *buffer;
    const std::vector<SizePoly> &box = output ? outBox : inBox;
    const std::string role = output ? "output" : "input";
    for (const auto &a : b.accesses)
      for (size_t k = 0; k < a.dims.size() && k < b.shape.size(); ++k) {
        const hl::AffineIndex &ix = a.dims[k];
        // Sema proved it for every size: nothing to check at run time.
        if (extreme(ix, box, false).provablyNonNegative() &&
            (b.shape[k] - SizePoly::constant(1) - extreme(ix, box, true)).provablyNonNegative())
          continue;
        o += fmt::format("  {{\n    const int64_t mdh_lo = {}, mdh_hi = {};\n", checkedExtreme(ix, box, false), checkedExtreme(ix, box, true));
        o += fmt::format("    if (!mdh_fits) {{ std::fprintf(stderr, \"{}{}, an index of {} buffer `{}` does not fit in 64 bits; nothing "
                         "computed\\n\", {}); return false; }}\n",
                         prefix, withSizes, role, b.name, sizeArgs);
        o += fmt::format("    if (mdh_lo < 0 || mdh_hi >= mdh_extent{0}_{1}) {{ std::fprintf(stderr, \"{2}{3}, an access of {4} buffer `{5}` "
                         "reaches index %lld in dimension {6}, outside [0, %lld) (docs/language.md §12.5); nothing computed\\n\", {7}, "
                         "(long long)(mdh_lo < 0 ? mdh_lo : mdh_hi), (long long)mdh_extent{0}_{1}); return false; }}\n  }}\n",
                         bi, k, prefix, withSizes, role, b.name, k + 1, sizeArgs);
      }
  }
  o += "  (void)mdh_add;\n  (void)mdh_mul;\n  return true;\n}\n\n";
  return o;
}

std::string runTimeSizeCheckCall(const std::string &entry, const std::vector<std::string> &sizeArgs) {
  return fmt::format("mdh_sizes_ok_{}({})", entry, fmt::join(sizeArgs, ", "));
}

std::string runTimeSizeGuard(const hl::Program &p, const std::string &entry, const std::string &onFailure) {
  if (p.dynamicSizes.empty()) return "";
  std::vector<std::string> args;
  for (const auto &s : p.dynamicSizes) args.push_back("sz_" + s);
  return fmt::format("  if (!{}) {{ {} }}\n", runTimeSizeCheckCall(entry, args), onFailure);
}

} // namespace mdh::codegen
