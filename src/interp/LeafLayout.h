/** \file
 * Values of aggregate types (records, tuples) flattened into their
 * primitive leaves, depth first in declaration order.  The interpreter
 * stores every value as a run of leaves, so a record field or tuple
 * component is a contiguous sub-run and no value ever needs the heap.
 *
 * Invariants: leafCount(t) == leafLayout(t).kinds.size(); byte offsets are
 * those of the C layout (Type.h), so loading and storing a buffer element is
 * one pass over its leaves.
 */
#pragma once

#include "sema/Type.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mdh::interp {

struct LeafLayout {
  std::vector<Type::Kind> kinds;      ///< primitive kind of each leaf
  std::vector<uint32_t> byteOffsets;  ///< offset of each leaf in the C layout
  std::vector<std::string> paths;     ///< `.w`, `.1.re`, or empty for a primitive
  size_t count() const { return kinds.size(); }
};

LeafLayout leafLayout(const Type &t);
uint32_t leafCount(const Type &t);
/// First leaf of component `index` (record field or tuple element) of `t`.
uint32_t componentLeafOffset(const Type &t, size_t index);

} // namespace mdh::interp
