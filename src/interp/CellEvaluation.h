/** \file
 * Per-cell evaluation: the value of one output buffer cell, computed from
 * only the part of the MDA it depends on.
 *
 * The output view says which output-MDA indices j write the cell
 * (OutputView::writersOf).  Because MDAs keep their global indices and
 * md_hom is a homomorphism, the element at j of md_hom over the restricted
 * index sets
 *   I'_d = {j_d}          for a concatenation dimension,
 *   I'_d = [0, j_d]       for a prefix-sum dimension (the value at j_d folds
 *                         every index up to it, B.9),
 *   I'_d = I_d            for a point-wise dimension,
 * equals the element at j of the full result — with the same canonical
 * fold order, so floats agree bit for bit.  A cell written by several
 * (j, access) pairs must get one value from all of them (Def. 18); a cell
 * written by none is ⊥.
 */
#pragma once

#include "interp/Interpreter.h"
#include "interp/MdHom.h"
#include "interp/OutputView.h"

#include <fmt/format.h>

namespace mdh::interp {

template <class D> class CellEvaluator {
public:
  using Value = typename D::Value;

  struct Result {
    bool defined = false;
    Type elem;
    std::vector<Value> leaves;  ///< the cell's value
    Value terms{};              ///< precise mode: the element's terms leaf
    uint64_t applications = 0;
  };

  CellEvaluator(const PreparedProgram &prog, const InputView<D> &input, const ProgramShapes &shapes, bool trapOverflow,
                InterruptCheck interrupted = nullptr)
      : prog_(prog), shapes_(shapes), hom_(prog, input, trapOverflow, interrupted), out_(prog, shapes, false) {}

  Result evaluate(const CellRef &cell) {
    const hl::Program &p = prog_.program();
    size_t b = p.outputs.size();
    for (size_t i = 0; i < p.outputs.size(); ++i)
      if (p.outputs[i].name == cell.buffer) b = i;
    if (b == p.outputs.size()) {
      std::vector<std::string> names;
      for (const auto &o : p.outputs) names.push_back("`" + o.name + "`");
      throw RuntimeError(codes::kBadCell,
                         fmt::format("`{}` is not an output buffer of `{}` (its outputs are {})", cell.buffer, p.instanceName,
                                     fmt::join(names, ", ")));
    }
    const std::vector<int64_t> &shape = shapes_.outputs[b];
    bool inRange = cell.index.size() == shape.size();
    for (size_t s = 0; inRange && s < shape.size(); ++s) inRange = cell.index[s] >= 0 && cell.index[s] < shape[s];
    if (!inRange)
      throw RuntimeError(codes::kBadCell,
                         fmt::format("`{}` is not a cell of `{}`, whose shape is {}", cellName(cell.buffer, cell.index),
                                     cell.buffer, data::shapeString(shape)),
                         p.outputs[b].range);

    Result r;
    r.elem = p.outputs[b].elem;
    const uint32_t leaves = leafCount(r.elem);
    const uint64_t before = hom_.applications();
    std::vector<int64_t> evaluatedAt;
    MDA<Value> part;
    std::vector<int64_t> firstWriter;
    for (const auto &w : out_.writersOf(b, cell.index)) {
      if (evaluatedAt != w.mdaIndex || part.dims() != w.mdaIndex.size() || part.elementCount() == 0) {
        part = hom_.evaluate(restrictedSets(w.mdaIndex));
        evaluatedAt = w.mdaIndex;
      }
      const Value *elem = part.element(w.mdaIndex);
      const Value *value = elem + out_.accessFirstLeaf(w.access);
      if (!r.defined) {
        r.defined = true;
        r.leaves.assign(value, value + leaves);
        if constexpr (D::kCountsTerms) r.terms = elem[hom_.termsLeaf()];
        firstWriter = w.mdaIndex;
        continue;
      }
      LeafLayout layout = leafLayout(r.elem);
      for (uint32_t l = 0; l < leaves; ++l)
        if (!D::identical(layout.kinds[l], r.leaves[l], value[l]))
          throw RuntimeError(codes::kConflictingWrites,
                             fmt::format("conflicting writes to `{}`: {} from MDA index {} and {} from MDA index {}",
                                         cellName(cell.buffer, cell.index), formatValue<D>(r.elem, r.leaves.data()),
                                         out_.indexText(firstWriter), formatValue<D>(r.elem, value), out_.indexText(w.mdaIndex)),
                             p.outputs[b].range,
                             "the output index function is not injective; writes to one cell must carry equal values (Def. 18)");
    }
    r.applications = hom_.applications() - before;
    return r;
  }

private:
  const PreparedProgram &prog_;
  const ProgramShapes &shapes_;
  MdHomEvaluator<D> hom_;
  OutputView<D> out_;

  std::vector<IndexRange> restrictedSets(const std::vector<int64_t> &j) const {
    std::vector<IndexRange> sets;
    for (size_t d = 0; d < j.size(); ++d) {
      switch (prog_.combineOperator(d).kind) {
      case hl::CombineOperator::Kind::Concat: sets.push_back({j[d], j[d] + 1}); break;
      case hl::CombineOperator::Kind::PrefixSum: sets.push_back({0, j[d] + 1}); break;
      case hl::CombineOperator::Kind::PointWise: sets.push_back({0, shapes_.sizes[d]}); break;
      }
    }
    return sets;
  }
};

} // namespace mdh::interp
