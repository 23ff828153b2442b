/** \file
 * Solving run-time sizes and checking input shapes.
 */
#include "interp/ProgramShapes.h"

#include "interp/AccessRange.h"
#include "interp/RuntimeError.h"
#include "sema/BufferBytes.h"

#include <fmt/format.h>

namespace mdh::interp {

namespace {

std::map<std::string, SizePoly> asPolys(const std::map<std::string, int64_t> &values) {
  std::map<std::string, SizePoly> m;
  for (const auto &[k, v] : values) m[k] = SizePoly::constant(v);
  return m;
}

/// If `p` is a*x + c for one parameter x (a != 0), fills them in.
bool linearInOne(const SizePoly &p, std::string &x, int64_t &a, int64_t &c) {
  x.clear();
  a = 0;
  c = 0;
  for (const auto &[mono, coeff] : p.terms()) {
    if (mono.empty()) { c = coeff; continue; }
    if (mono.size() != 1 || (!x.empty() && x != mono[0])) return false;
    x = mono[0];
    a = coeff;
  }
  return !x.empty() && a != 0;
}

std::string sizesHint(const hl::Program &p, const std::string &name) {
  // A placeholder that cannot be mistaken for another size of the program.
  return fmt::format("give it with `--set {}=<extent>` (a positive integer), or supply an input whose shape depends on it", name);
}

/// E0905 for a buffer whose shape, with these run-time sizes, takes more
/// bytes than any stage can address (sema checks static shapes: E0415).
void requireAddressable(const std::vector<hl::Buffer> &buffers, const std::vector<std::vector<int64_t>> &shapes,
                        const std::map<std::string, int64_t> &runtimeSizes) {
  for (size_t i = 0; i < buffers.size(); ++i) {
    // A negative extent is no size problem: every access of such a buffer is
    // below 0, which requireAccessesInBuffers reports (E0906) with the index.
    if (std::any_of(shapes[i].begin(), shapes[i].end(), [](int64_t e) { return e < 0; })) continue;
    if (bufferBytes(shapes[i], buffers[i].elem.size())) continue;
    std::vector<std::string> known;
    for (const auto &[name, value] : runtimeSizes) known.push_back(fmt::format("{} = {}", name, value));
    throw RuntimeError(codes::kRuntimeSize,
                       fmt::format("buffer `{}` of shape {} and element type `{}` ({} bytes) takes more than 2^63 - 1 "
                                   "bytes with {}",
                                   buffers[i].name, data::shapeString(shapes[i]), buffers[i].elem.str(),
                                   buffers[i].elem.size(), fmt::join(known, ", ")),
                       buffers[i].range, "give smaller run-time sizes");
  }
}

} // namespace

int64_t ProgramShapes::eval(const SizePoly &p) const {
  SizePoly v = p.substitute(asPolys(runtimeSizes));
  auto c = v.constantValue();
  if (c && !v.overflowed()) return *c;
  std::vector<std::string> known;
  for (const auto &[name, value] : runtimeSizes) known.push_back(fmt::format("{} = {}", name, value));
  if (v.overflowed())
    throw RuntimeError(codes::kRuntimeSize,
                       fmt::format("size `{}` cannot be computed in 64-bit arithmetic with {} (it, or a product in it, "
                                   "passes 2^63 - 1)", p.str(), fmt::join(known, ", ")), {},
                       "give smaller run-time sizes");
  throw RuntimeError(codes::kRuntimeSize, fmt::format("size `{}` cannot be evaluated with the known run-time sizes", p.str()));
}

ProgramShapes resolveShapes(const hl::Program &p, const std::map<std::string, std::vector<int64_t>> &inputShapes,
                            const std::map<std::string, int64_t> &given) {
  ProgramShapes s;
  auto isDynamic = [&](const std::string &n) {
    return std::find(p.dynamicSizes.begin(), p.dynamicSizes.end(), n) != p.dynamicSizes.end();
  };
  for (const auto &[name, v] : given) {
    if (!isDynamic(name))
      throw RuntimeError(codes::kRuntimeSize,
                         p.dynamicSizes.empty()
                             ? fmt::format("`{}` is not a run-time size: `{}` has none", name, p.instanceName)
                             : fmt::format("`{}` is not a run-time size of `{}` (its run-time sizes are {})", name,
                                           p.instanceName, fmt::join(p.dynamicSizes, ", ")),
                         p.range);
    if (v < 1)
      throw RuntimeError(codes::kRuntimeSize, fmt::format("run-time size `{}` = {} must be at least 1", name, v), p.range,
                         "md_hom dimensions are never empty (docs/language.md §12.8)");
    s.runtimeSizes[name] = v;
  }
  // An input of the wrong rank can determine no run-time size: say so,
  // rather than that the sizes it should have given are unknown.
  for (const auto &b : p.inputs) {
    auto it = inputShapes.find(b.name);
    if (it == inputShapes.end() || it->second.size() == b.shape.size()) continue;
    std::vector<std::string> derived;
    bool dependsOnRunTimeSizes = false;
    for (const auto &e : b.shape) {
      derived.push_back(e.str());
      dependsOnRunTimeSizes |= !e.constantValue().has_value();
    }
    if (!dependsOnRunTimeSizes) continue; // checkInputs() compares concrete shapes
    throw RuntimeError(codes::kShapeMismatch,
                       fmt::format("input buffer `{}` has the wrong shape: expected {} dimension{} ([{}]), got {} ({})",
                                   b.name, b.shape.size(), b.shape.size() == 1 ? "" : "s", fmt::join(derived, ", "),
                                   it->second.size(), data::shapeString(it->second)),
                       b.range, "buffer shapes are derived from the index functions (docs/language.md §12.4)");
  }
  // Solve the remaining ones from input extents.
  for (bool progress = true; progress;) {
    progress = false;
    for (const auto &b : p.inputs) {
      auto it = inputShapes.find(b.name);
      if (it == inputShapes.end() || it->second.size() != b.shape.size()) continue;
      for (size_t k = 0; k < b.shape.size(); ++k) {
        SizePoly e = b.shape[k].substitute(asPolys(s.runtimeSizes));
        std::string x;
        int64_t a, c;
        if (!linearInOne(e, x, a, c) || s.runtimeSizes.count(x)) continue;
        int64_t extent = it->second[k];
        if ((extent - c) % a != 0 || (extent - c) / a < 1)
          throw RuntimeError(codes::kShapeMismatch,
                             fmt::format("input buffer `{}` has extent {} in dimension {}, but its derived extent is `{}`, "
                                         "which no run-time size `{}` >= 1 gives",
                                         b.name, extent, k + 1, b.shape[k].str(), x),
                             b.range, "check the data file, or the index functions of this buffer");
        s.runtimeSizes[x] = (extent - c) / a;
        progress = true;
      }
    }
  }
  for (const auto &n : p.dynamicSizes)
    if (!s.runtimeSizes.count(n))
      throw RuntimeError(codes::kRuntimeSize, fmt::format("the run-time size `{}` of `{}` is not known", n, p.instanceName),
                         p.range, sizesHint(p, n));
  for (size_t d = 0; d < p.sizes.size(); ++d) {
    int64_t n = s.eval(p.sizes[d]);
    if (n < 1)
      throw RuntimeError(codes::kRuntimeSize, fmt::format("dimension {} of `{}` has size {}", d + 1, p.instanceName, n),
                         p.range, "md_hom dimensions are never empty (docs/language.md §12.8)");
    s.sizes.push_back(n);
  }
  for (const auto &b : p.inputs) {
    std::vector<int64_t> shape;
    for (const auto &e : b.shape) shape.push_back(s.eval(e));
    s.inputs.push_back(shape);
  }
  for (const auto &b : p.outputs) {
    std::vector<int64_t> shape;
    for (const auto &e : b.shape) shape.push_back(s.eval(e));
    s.outputs.push_back(shape);
  }
  requireAddressable(p.inputs, s.inputs, s.runtimeSizes);
  requireAddressable(p.outputs, s.outputs, s.runtimeSizes);
  requireAccessesInBuffers(p, s); // §12.5 with these run-time sizes, before any tool touches a buffer
  return s;
}

std::vector<const data::BufferData *> checkInputs(const hl::Program &p, const ProgramShapes &shapes,
                                                  const data::BufferSet &inputs) {
  std::vector<const data::BufferData *> out;
  for (size_t i = 0; i < p.inputs.size(); ++i) {
    const auto &b = p.inputs[i];
    auto it = inputs.find(b.name);
    if (it == inputs.end())
      throw RuntimeError(codes::kMissingData, fmt::format("no data for input buffer `{}`", b.name), b.range,
                         fmt::format("pass `--in {}=FILE.npy`, or leave out every --in to get random inputs", b.name));
    const data::BufferData &d = it->second;
    if (d.elem != b.elem)
      throw RuntimeError(codes::kShapeMismatch,
                         fmt::format("input buffer `{}` holds `{}`, but `{}` was supplied", b.name, b.elem.str(), d.elem.str()),
                         b.range);
    if (d.shape != shapes.inputs[i]) {
      std::vector<std::string> derived, runTime;
      for (const auto &e : b.shape) derived.push_back(e.str());
      // The run-time sizes in the derived shape, with the values this run took (from
      // --set, or from another input), which are the likelier culprit than the data.
      for (const auto &[name, value] : shapes.runtimeSizes)
        if (std::any_of(b.shape.begin(), b.shape.end(), [&](const SizePoly &e) { return e.dependsOn(name); }))
          runTime.push_back(fmt::format("{} = {}", name, value));
      throw RuntimeError(codes::kShapeMismatch,
                         fmt::format("input buffer `{}` has the wrong shape: expected {} (derived: [{}]{}), got {}", b.name,
                                     data::shapeString(shapes.inputs[i]), fmt::join(derived, ", "),
                                     runTime.empty() ? "" : fmt::format(" with {}", fmt::join(runTime, ", ")),
                                     data::shapeString(d.shape)),
                         b.range,
                         runTime.empty() ? "buffer shapes are derived from the index functions (docs/language.md §12.4)"
                                         : "buffer shapes are derived from the index functions (docs/language.md §12.4); check the "
                                           "run-time sizes given with --set against the data");
    }
    size_t want = d.elementCount() * d.elementSize();
    if (d.bytes.size() != want)
      throw RuntimeError(codes::kShapeMismatch,
                         fmt::format("input buffer `{}` has {} bytes of data, its shape needs {}", b.name, d.bytes.size(), want),
                         b.range);
    out.push_back(&d);
  }
  for (const auto &[name, d] : inputs) {
    bool known = false;
    for (const auto &b : p.inputs) known |= b.name == name;
    if (!known) {
      throw RuntimeError(codes::kMissingData,
                         fmt::format("`{}` is not an input buffer of `{}` (its inputs are {})", name, p.instanceName,
                                     hl::quotedNames(p.inputs)),
                         p.range);
    }
  }
  return out;
}

std::map<std::string, std::vector<int64_t>> shapesOf(const data::BufferSet &buffers) {
  std::map<std::string, std::vector<int64_t>> m;
  for (const auto &[name, b] : buffers) m[name] = b.shape;
  return m;
}

} // namespace mdh::interp
