/** \file
 * The input view (Defs. 13, 16): the MDA whose element at index i is the
 * tuple of every (buffer, access) value
 *   ( (b1[idx_{1,1}(i)], …, b1[idx_{1,A1}(i)]), …, (bB[idx_{B,1}(i)], …) ).
 * The MDA is never materialised: element(i) reads the buffers on demand, so
 * memory stays proportional to the inputs.
 *
 * Each affine index function composed with its buffer's row-major layout is
 * itself affine in i; the constructor computes that byte offset function
 * once per access.  Invariant: the constructor checks every access against
 * its buffer's extents over the whole MDA index box (AccessRange.h: a
 * run-time size can push an index outside; the check guards the reads).
 */
#pragma once

#include "data/BufferData.h"
#include "interp/AccessRange.h"
#include "interp/LeafLayout.h"
#include "interp/ProgramShapes.h"
#include "interp/RuntimeError.h"

#include <fmt/format.h>

#include <vector>

namespace mdh::interp {

template <class D> class InputView {
public:
  using Value = typename D::Value;

  /// `buffers` in view order (checkInputs), `shapes` of this run.
  InputView(const hl::Program &p, const std::vector<const data::BufferData *> &buffers, const ProgramShapes &shapes) {
    uint32_t leaf = 0;
    for (size_t b = 0; b < p.inputs.size(); ++b) {
      const hl::Buffer &buf = p.inputs[b];
      const data::BufferData &bytes = *buffers.at(b);
      const std::vector<int64_t> &shape = shapes.inputs.at(b);
      LeafLayout layout = leafLayout(buf.elem);
      // Row-major element strides in bytes.
      std::vector<int64_t> byteStride(shape.size(), int64_t(bytes.elementSize()));
      for (size_t k = shape.size(); k-- > 1;) byteStride[k - 1] = byteStride[k] * shape[k];
      for (const auto &acc : buf.accesses) {
        AccessPlan plan;
        plan.data = bytes.bytes.data();
        plan.layout = layout;
        plan.firstLeaf = leaf;
        plan.bytesPerIndex.assign(p.dims(), 0);
        requireAccessInBuffer(buf, acc, /*output=*/false, shapes.sizes, shape, shapes);
        for (size_t k = 0; k < acc.dims.size(); ++k) {
          const hl::AffineIndex &ix = acc.dims[k];
          for (size_t d = 0; d < p.dims() && d < ix.coeffs.size(); ++d) plan.bytesPerIndex[d] += ix.coeff(d) * byteStride[k];
          plan.baseByte += shapes.eval(ix.offset) * byteStride[k];
        }
        leaf += uint32_t(layout.count());
        accesses_.push_back(std::move(plan));
      }
    }
    leaves_ = leaf;
  }

  /// Leaves of one MDA element (all accesses together).
  uint32_t leaves() const { return leaves_; }

  /// Def. 16: the element at MDA index `i`, written as leaves to `dst`.
  void element(const int64_t *i, Value *dst) const {
    for (const auto &a : accesses_) {
      int64_t byte = a.baseByte;
      for (size_t d = 0; d < a.bytesPerIndex.size(); ++d) byte += a.bytesPerIndex[d] * i[d];
      const uint8_t *p = a.data + byte;
      for (size_t l = 0; l < a.layout.count(); ++l) dst[a.firstLeaf + l] = D::load(a.layout.kinds[l], p + a.layout.byteOffsets[l]);
    }
  }

private:
  struct AccessPlan {
    const uint8_t *data = nullptr;
    int64_t baseByte = 0;               ///< byte offset at i = 0
    std::vector<int64_t> bytesPerIndex; ///< byte offset per unit of i_d
    LeafLayout layout;
    uint32_t firstLeaf = 0;             ///< where this access's value starts in the element
  };
  std::vector<AccessPlan> accesses_;
  uint32_t leaves_ = 0;
};

} // namespace mdh::interp
