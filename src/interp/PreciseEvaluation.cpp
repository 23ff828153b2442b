/** \file
 * The high-precision evaluation entry point (the only translation unit
 * that instantiates the evaluators over PreciseArith).
 */
#include "interp/PreciseEvaluation.h"

#include "interp/CellEvaluation.h"
#include "interp/MdHom.h"
#include "interp/OutputView.h"
#include "interp/PreciseArith.h"

#include <fmt/format.h>

namespace mdh::interp {

namespace {

using Precise = PreciseArith;

PreciseLeaf makeLeaf(Type::Kind k, const std::string &path, const PreciseValue &v) {
  PreciseLeaf l;
  l.path = path;
  l.kind = k;
  l.isFloat = Precise::isFloat(k);
  if (!l.isFloat) {
    l.intBits = v.bits;
    l.value = intarith::isSigned(k) ? (long double)(int64_t(v.bits)) : (long double)v.bits;
    l.text = intarith::toString(k, v.bits);
    return l;
  }
  l.value = v.value.convert_to<long double>();
  l.text = v.value.str(30);
  l.absSum = v.mag;
  const double u = Precise::unitRoundoff(k);
  l.roundings = v.budget / u;
  const double gamma = v.budget < 1 ? v.budget / (1 - v.budget) : std::numeric_limits<double>::infinity();
  const double subnormal = k == Type::Kind::F32 ? double(std::numeric_limits<float>::denorm_min())
                                                : std::numeric_limits<double>::denorm_min();
  // An exact value has no error, whatever its Σ|terms| (an infinity's is infinite).
  l.errorBound = (v.budget == 0 ? 0.0 : gamma * v.mag) + v.abs + std::ceil(l.roundings) * subnormal;
  if (std::isnan(l.errorBound)) l.errorBound = std::numeric_limits<double>::infinity();
  return l;
}

PreciseCell makeCell(const CellRef &ref, const Type &elem, const PreciseValue *leaves, const PreciseValue &terms) {
  PreciseCell c;
  c.cell = ref;
  c.defined = true;
  c.terms = terms.bits;
  LeafLayout layout = leafLayout(elem);
  for (size_t l = 0; l < layout.count(); ++l) c.leaves.push_back(makeLeaf(layout.kinds[l], layout.paths[l], leaves[l]));
  return c;
}

} // namespace

bool PreciseLeaf::accepts(double computed) const {
  if (!isFloat) return (long double)computed == value;
  if (std::isnan(computed) || std::isnan((double)value)) return std::isnan(computed) && std::isnan((double)value);
  if (std::isinf(computed)) {
    // The reference, rounded to the declared type, overflows to the same infinity.
    double rounded = kind == Type::Kind::F32 ? double(float(value)) : double(value);
    return rounded == computed || std::isinf(errorBound);
  }
  return std::fabs((long double)computed - value) <= (long double)errorBound;
}

std::vector<PreciseCell> evaluatePrecise(const hl::Program &prog, const data::BufferSet &inputs,
                                         const std::vector<CellRef> &cells, const EvalOptions &opts) {
  ProgramShapes shapes = resolveShapes(prog, shapesOf(inputs), opts.runtimeSizes);
  std::vector<const data::BufferData *> buffers = checkInputs(prog, shapes, inputs);
  PreparedProgram prepared(prog);
  InputView<Precise> input(prog, buffers, shapes);
  std::vector<PreciseCell> out;

  if (!cells.empty()) {
    CellEvaluator<Precise> evaluator(prepared, input, shapes, opts.trapOverflow, opts.interrupted);
    for (const auto &ref : cells) {
      auto r = evaluator.evaluate(ref);
      PreciseCell c;
      if (r.defined) c = makeCell(ref, r.elem, r.leaves.data(), r.terms);
      c.cell = ref;
      c.applications = r.applications;
      out.push_back(std::move(c));
    }
    return out;
  }

  // Every cell: evaluate once, then read each cell through the output view.
  MdHomEvaluator<Precise> hom(prepared, input, opts.trapOverflow, opts.interrupted);
  std::vector<IndexRange> sets;
  for (int64_t n : shapes.sizes) sets.push_back({0, n});
  MDA<PreciseValue> result = hom.evaluate(sets);
  OutputView<Precise> view(prepared, shapes);
  view.write(result); // detects conflicting writes
  for (size_t b = 0; b < prog.outputs.size(); ++b) {
    const auto &buf = view.buffers()[b];
    if (!opts.allowUndefined && view.undefinedCells(b) > 0)
      throw RuntimeError(codes::kUndefinedOutput,
                         fmt::format("output buffer `{}` has undefined (⊥) cells", buf.name), prog.outputs[b].range,
                         "pass --allow-undefined to evaluate the other cells anyway");
    for (size_t c = 0; c < buf.defined.size(); ++c) {
      CellRef ref{buf.name, OutputView<Precise>::unflatten(buf.shape, c)};
      if (!buf.defined[c]) {
        PreciseCell undefinedCell;
        undefinedCell.cell = ref;
        out.push_back(std::move(undefinedCell));
        continue;
      }
      auto writers = view.writersOf(b, ref.index);
      const PreciseValue *elem = result.element(writers.front().mdaIndex);
      out.push_back(makeCell(ref, buf.elem, buf.values.data() + c * buf.leaves, elem[hom.termsLeaf()]));
    }
  }
  return out;
}

} // namespace mdh::interp
