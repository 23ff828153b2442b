/** \file
 * Multi-dimensional arrays (Def. 1) whose index sets keep their global
 * indices: a part of an MDA (a tile, one slice of a concatenation, the
 * prefix of a prefix-sum dimension) is addressed with the same indices as
 * the whole, exactly as in the paper.  Index sets here are contiguous
 * ranges [begin, end) — every set md_hom evaluation creates is one (a
 * point-wise dimension's set is {0} = [0, 1)).
 *
 * Elements are runs of `leaves` values (LeafLayout.h), stored row-major.
 * An MdaBlock is a view of the part of an MDA where the leading dimensions
 * are fixed: md_hom writes each partial result in place through one.
 * Invariant: data().size() == leaves * product of the set sizes.
 */
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace mdh::interp {

struct IndexRange {
  int64_t begin = 0, end = 0; ///< [begin, end)
  int64_t size() const { return end - begin; }
  bool contains(int64_t i) const { return i >= begin && i < end; }
};

template <class V> class MDA {
public:
  MDA() = default;
  MDA(std::vector<IndexRange> sets, uint32_t leaves) : sets_(std::move(sets)), leaves_(leaves) {
    strides_.assign(sets_.size(), 0);
    size_t n = leaves_;
    for (size_t d = sets_.size(); d-- > 0;) {
      strides_[d] = n;
      n *= size_t(std::max<int64_t>(0, sets_[d].size()));
    }
    data_.resize(n);
  }

  size_t dims() const { return sets_.size(); }
  const std::vector<IndexRange> &indexSets() const { return sets_; }
  uint32_t leaves() const { return leaves_; }
  size_t stride(size_t d) const { return strides_[d]; }
  size_t elementCount() const { return leaves_ ? data_.size() / leaves_ : 0; }
  V *origin() { return data_.data(); }
  const V *origin() const { return data_.data(); }

  /// The element at a global index (one entry per dimension).
  V *element(const std::vector<int64_t> &index) {
    size_t off = 0;
    for (size_t d = 0; d < sets_.size(); ++d) {
      if (!sets_[d].contains(index[d]))
        throw std::out_of_range("MDA index " + std::to_string(index[d]) + " outside its index set in dimension " +
                                std::to_string(d + 1));
      off += size_t(index[d] - sets_[d].begin) * strides_[d];
    }
    return data_.data() + off;
  }

private:
  std::vector<IndexRange> sets_;
  uint32_t leaves_ = 0;
  std::vector<size_t> strides_;
  std::vector<V> data_;
};

/// The part of an MDA with some leading dimensions fixed: `origin` is the element
/// whose remaining indices are the beginnings of their index sets.
template <class V> struct MdaBlock {
  V *origin = nullptr;
  const MDA<V> *mda = nullptr;

  /// Fixes dimension d to global index i.
  MdaBlock at(size_t d, int64_t i) const {
    return {origin + size_t(i - mda->indexSets()[d].begin) * mda->stride(d), mda};
  }
};

} // namespace mdh::interp
