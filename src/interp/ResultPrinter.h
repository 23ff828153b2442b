/** \file
 * Readable text for buffers and cells: scalars as `C = 42`, small vectors on
 * one line, small matrices as aligned tables with row and column indices,
 * higher-dimensional buffers as a sequence of 2-D slices, record buffers as
 * a table with one column per field, ⊥ cells as `⊥`.  Buffers with more
 * cells than the limit are summarised (shape, min, max, sum) instead.
 */
#pragma once

#include "data/BufferData.h"

#include <string>
#include <vector>

namespace mdh::interp {

struct PrintLimits {
  size_t maxCells = 400;   ///< larger buffers are summarised
  size_t maxColumns = 16;  ///< wider matrices are listed cell by cell
  std::string savedTo;     ///< the file the buffer is written to (a summary names it)
};

/// One element of type `t` stored at `bytes` (C layout).
std::string formatElement(const Type &t, const uint8_t *bytes);

/// A whole buffer; `defined` (may be null) marks ⊥ cells with 0.
std::string formatBuffer(const std::string &name, const data::BufferData &b, const std::vector<uint8_t> *defined,
                         const PrintLimits &limits = {});

} // namespace mdh::interp
