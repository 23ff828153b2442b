/** \file
 * The output view (Defs. 18, 21): writes the output MDA into the output
 * buffers,
 *   b_b[idx_{b,a}(j)] := a_{b,a}[j]   for every index j of the output MDA,
 * where a_{b,a} is component (b,a) of the output element.  The output MDA's
 * index sets are ⇒d(I_d): a point-wise dimension has the single index 0.
 *
 * Cells no index function reaches stay undefined (⊥): `defined` is 0 there.
 * Non-injective index functions are allowed only when every write to a cell
 * carries the same value (identical leaves): a different value is an error
 * naming the cell, both values and both MDA indices.  writersOf() inverts the
 * affine index functions for one cell, which per-cell evaluation and the
 * conflict message use.  The constructor checks every access against its
 * buffer's extents (AccessRange.h), so no write lands outside a buffer
 * whatever the run-time sizes.  Invariant: cells are written in the canonical order
 * (j ascending lexicographically, then accesses in view order), so the value
 * kept in a cell is the first write's.
 */
#pragma once

#include "interp/AccessRange.h"
#include "interp/LeafLayout.h"
#include "interp/MDA.h"
#include "interp/PreparedProgram.h"
#include "interp/ProgramShapes.h"
#include "interp/RuntimeError.h"
#include "interp/ValueFormat.h"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

namespace mdh::interp {

template <class D> class OutputView {
public:
  using Value = typename D::Value;

  struct BufferCells {
    std::string name;
    Type elem;
    std::vector<int64_t> shape;
    uint32_t leaves = 0;         ///< per cell
    std::vector<Type::Kind> kinds; ///< of each leaf
    std::vector<Value> values;   ///< cells × leaves
    std::vector<uint8_t> defined; ///< 1 where some index function wrote
  };

  /// One write that lands on a given cell: output MDA index j through output access `access`.
  struct Writer {
    std::vector<int64_t> mdaIndex;
    size_t access = 0; ///< flattened over buffers
  };

  /// `allocateCells` = false for per-cell evaluation, which only needs writersOf().
  OutputView(const PreparedProgram &prog, const ProgramShapes &shapes, bool allocateCells = true) : prog_(prog) {
    const hl::Program &p = prog.program();
    for (size_t d = 0; d < p.dims(); ++d)
      outSets_.push_back(p.ops[d].kind == hl::CombineOperator::Kind::PointWise ? IndexRange{0, 1}
                                                                              : IndexRange{0, shapes.sizes[d]});
    size_t k = 0;
    for (size_t b = 0; b < p.outputs.size(); ++b) {
      const hl::Buffer &buf = p.outputs[b];
      BufferCells cells;
      cells.name = buf.name;
      cells.elem = buf.elem;
      cells.shape = shapes.outputs[b];
      cells.leaves = leafCount(buf.elem);
      cells.kinds = leafLayout(buf.elem).kinds;
      size_t n = 1;
      for (int64_t e : cells.shape) n *= size_t(e);
      if (allocateCells) {
        cells.values.resize(n * cells.leaves);
        cells.defined.assign(n, 0);
      }
      std::vector<int64_t> elemStride(cells.shape.size(), 1);
      for (size_t s = cells.shape.size(); s-- > 1;) elemStride[s - 1] = elemStride[s] * cells.shape[s];
      for (const auto &acc : buf.accesses) {
        requireAccessInBuffer(buf, acc, /*output=*/true, outputIndexBox(p, shapes.sizes), cells.shape, shapes);
        AccessPlan a;
        a.buffer = b;
        a.firstLeaf = prog.accessFirstLeaf(k);
        a.perIndex.assign(p.dims(), 0);
        for (size_t s = 0; s < acc.dims.size(); ++s) {
          const hl::AffineIndex &ix = acc.dims[s];
          std::vector<int64_t> row(p.dims(), 0);
          for (size_t d = 0; d < p.dims() && d < ix.coeffs.size(); ++d) row[d] = ix.coeff(d);
          int64_t off = shapes.eval(ix.offset);
          for (size_t d = 0; d < p.dims(); ++d) a.perIndex[d] += row[d] * elemStride[s];
          a.base += off * elemStride[s];
          a.coeffs.push_back(row);
          a.offsets.push_back(off);
        }
        a.range = acc.range;
        accesses_.push_back(std::move(a));
        ++k;
      }
      buffers_.push_back(std::move(cells));
    }
  }

  /// Index sets of the output MDA for the full evaluation.
  const std::vector<IndexRange> &outputIndexSets() const { return outSets_; }
  const std::vector<BufferCells> &buffers() const { return buffers_; }
  std::vector<BufferCells> &buffers() { return buffers_; }

  /// Def. 21 over the whole output MDA `out` (its sets must be outputIndexSets()).
  void write(const MDA<Value> &out) {
    const size_t dims = outSets_.size();
    std::vector<int64_t> j(dims, 0);
    for (size_t d = 0; d < dims; ++d) j[d] = outSets_[d].begin;
    const Value *elem = out.origin();
    const size_t count = out.elementCount();
    for (size_t n = 0; n < count; ++n, elem += out.leaves()) {
      for (size_t k = 0; k < accesses_.size(); ++k) {
        const AccessPlan &a = accesses_[k];
        int64_t cell = a.base;
        for (size_t d = 0; d < dims; ++d) cell += a.perIndex[d] * j[d];
        store(a, size_t(cell), elem + a.firstLeaf, j, k);
      }
      for (size_t d = dims; d-- > 0;) { // next j, row-major
        if (++j[d] < outSets_[d].end) break;
        j[d] = outSets_[d].begin;
      }
    }
  }

  /// Only marks which cells some output index function writes (no values):
  /// the ⊥ check of a run whose values come from elsewhere (`mdhc run`).
  /// Afterwards undefinedCells() answers as after write().
  void markWritten() {
    const size_t dims = outSets_.size();
    for (auto &c : buffers_) {
      size_t n = 1;
      for (int64_t e : c.shape) n *= size_t(e);
      c.defined.assign(n, 0);
    }
    size_t count = 1;
    for (const auto &r : outSets_) count *= size_t(std::max<int64_t>(0, r.end - r.begin));
    std::vector<int64_t> j(dims, 0);
    for (size_t d = 0; d < dims; ++d) j[d] = outSets_[d].begin;
    for (size_t n = 0; n < count; ++n) {
      for (const AccessPlan &a : accesses_) {
        int64_t cell = a.base;
        for (size_t d = 0; d < dims; ++d) cell += a.perIndex[d] * j[d];
        auto &defined = buffers_[a.buffer].defined;
        if (cell >= 0 && size_t(cell) < defined.size()) defined[size_t(cell)] = 1;
      }
      for (size_t d = dims; d-- > 0;) {
        if (++j[d] < outSets_[d].end) break;
        j[d] = outSets_[d].begin;
      }
    }
  }

  /// Number of ⊥ cells of buffer b, and the first few of them.
  size_t undefinedCells(size_t b, std::vector<std::vector<int64_t>> *examples = nullptr, size_t maxExamples = 3) const {
    const BufferCells &c = buffers_[b];
    size_t n = 0;
    for (size_t i = 0; i < c.defined.size(); ++i)
      if (!c.defined[i]) {
        if (examples && examples->size() < maxExamples) examples->push_back(unflatten(c.shape, i));
        ++n;
      }
    return n;
  }

  /// Every (output MDA index j, access) whose write lands on `cell` of buffer b, in canonical order.
  std::vector<Writer> writersOf(size_t b, const std::vector<int64_t> &cell) const {
    std::vector<Writer> found;
    std::vector<int64_t> j(outSets_.size(), 0);
    for (size_t k = 0; k < accesses_.size(); ++k)
      if (accesses_[k].buffer == b) solve(accesses_[k], cell, 0, j, k, found);
    std::stable_sort(found.begin(), found.end(), [](const Writer &x, const Writer &y) { return x.mdaIndex < y.mdaIndex; });
    return found;
  }

  uint32_t accessFirstLeaf(size_t k) const { return accesses_[k].firstLeaf; }
  size_t accessBuffer(size_t k) const { return accesses_[k].buffer; }

  /// `(i=3, k=0)` for an output MDA index.
  std::string indexText(const std::vector<int64_t> &j) const {
    std::vector<std::string> parts;
    for (size_t d = 0; d < j.size(); ++d) parts.push_back(fmt::format("{}={}", prog_.dimName(d), j[d]));
    return fmt::format("({})", fmt::join(parts, ", "));
  }

  static std::vector<int64_t> unflatten(const std::vector<int64_t> &shape, size_t linear) {
    std::vector<int64_t> idx(shape.size(), 0);
    for (size_t s = shape.size(); s-- > 0;) {
      idx[s] = int64_t(linear % size_t(shape[s]));
      linear /= size_t(shape[s]);
    }
    return idx;
  }

private:
  struct AccessPlan {
    size_t buffer = 0;
    uint32_t firstLeaf = 0;             ///< component (b,a) of the output element
    int64_t base = 0;                   ///< linear cell index at j = 0
    std::vector<int64_t> perIndex;      ///< linear cell index per unit of j_d
    std::vector<std::vector<int64_t>> coeffs; ///< per buffer dimension: coefficient of each j_d
    std::vector<int64_t> offsets;       ///< per buffer dimension
    SourceRange range;
  };

  const PreparedProgram &prog_;
  std::vector<IndexRange> outSets_;
  std::vector<AccessPlan> accesses_;
  std::vector<BufferCells> buffers_;

  void store(const AccessPlan &a, size_t cell, const Value *value, const std::vector<int64_t> &j, size_t access) {
    BufferCells &c = buffers_[a.buffer];
    Value *dst = c.values.data() + cell * c.leaves;
    if (!c.defined[cell]) {
      std::copy(value, value + c.leaves, dst);
      c.defined[cell] = 1;
      return;
    }
    for (uint32_t l = 0; l < c.leaves; ++l)
      if (!D::identical(c.kinds[l], dst[l], value[l])) conflict(a, cell, dst, value, j, access);
  }

  [[noreturn]] void conflict(const AccessPlan &a, size_t cell, const Value *old, const Value *now, const std::vector<int64_t> &j,
                             size_t access) const {
    const BufferCells &c = buffers_[a.buffer];
    std::vector<int64_t> idx = unflatten(c.shape, cell);
    std::vector<Writer> ws = writersOf(a.buffer, idx);
    std::string first = ws.empty() ? "an earlier write" : "MDA index " + indexText(ws.front().mdaIndex);
    throw RuntimeError(codes::kConflictingWrites,
                       fmt::format("conflicting writes to `{}`: {} from {} and {} from MDA index {}{}", cellName(c.name, idx),
                                   formatValue<D>(c.elem, old), first, formatValue<D>(c.elem, now), indexText(j),
                                   ws.size() > 1 && ws.front().access != access ? " (another access)" : ""),
                       a.range,
                       "the output index function is not injective; writes to one cell must carry equal values (Def. 18). "
                       "To combine them, make the dimension point-wise, e.g. `pw(add)`");
  }

  /// Finds every j with idx(j) == cell: dimension by dimension; a dimension that is the last
  /// one used by some buffer component is determined by that component, others are enumerated.
  void solve(const AccessPlan &a, const std::vector<int64_t> &cell, size_t d, std::vector<int64_t> &j, size_t access,
             std::vector<Writer> &found) const {
    const size_t dims = outSets_.size();
    auto residual = [&](size_t s, size_t upTo) {
      int64_t r = cell[s] - a.offsets[s];
      for (size_t e = 0; e < upTo; ++e) r -= a.coeffs[s][e] * j[e];
      return r;
    };
    auto lastUse = [&](size_t s) {
      size_t last = dims;
      for (size_t e = 0; e < dims; ++e)
        if (a.coeffs[s][e] != 0) last = e;
      return last;
    };
    if (d == dims) {
      for (size_t s = 0; s < cell.size(); ++s)
        if (residual(s, dims) != 0) return;
      found.push_back({j, access});
      return;
    }
    for (size_t s = 0; s < cell.size(); ++s)
      if (lastUse(s) == d) { // j_d is determined by component s
        int64_t r = residual(s, d), c = a.coeffs[s][d];
        if (r % c != 0 || !outSets_[d].contains(r / c)) return;
        j[d] = r / c;
        solve(a, cell, d + 1, j, access, found);
        return;
      }
    for (int64_t v = outSets_[d].begin; v < outSets_[d].end; ++v) {
      j[d] = v;
      solve(a, cell, d + 1, j, access, found);
    }
  }
};

} // namespace mdh::interp
