/** \file
 * Buffer tables.
 */
#include "interp/ResultPrinter.h"

#include "interp/LeafLayout.h"
#include "interp/NativeArith.h"
#include "interp/ValueFormat.h"

#include <fmt/format.h>

#include <algorithm>

namespace mdh::interp {

namespace {

std::vector<Scalar> loadLeaves(const LeafLayout &layout, const uint8_t *bytes) {
  std::vector<Scalar> leaves;
  for (size_t l = 0; l < layout.count(); ++l) leaves.push_back(NativeArith::load(layout.kinds[l], bytes + layout.byteOffsets[l]));
  return leaves;
}

/// Renders rows of cells as columns padded to equal width (first column left-aligned).
std::string alignRows(const std::vector<std::vector<std::string>> &rows, const std::string &indent) {
  std::vector<size_t> width;
  for (const auto &r : rows)
    for (size_t c = 0; c < r.size(); ++c) {
      if (width.size() <= c) width.push_back(0);
      // count code points so that ⊥ aligns
      size_t n = 0;
      for (unsigned char ch : r[c]) n += (ch & 0xC0) != 0x80;
      width[c] = std::max(width[c], n);
    }
  std::string out;
  for (const auto &r : rows) {
    std::string line = indent;
    for (size_t c = 0; c < r.size(); ++c) {
      size_t n = 0;
      for (unsigned char ch : r[c]) n += (ch & 0xC0) != 0x80;
      std::string pad(width[c] - n, ' ');
      line += c == 0 ? r[c] + pad : "  " + pad + r[c];
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  return out;
}

std::string typeAndShape(const data::BufferData &b) {
  return fmt::format("{}{}", b.elem.str(), data::shapeString(b.shape));
}

} // namespace

std::string formatElement(const Type &t, const uint8_t *bytes) {
  LeafLayout layout = leafLayout(t);
  std::vector<Scalar> leaves = loadLeaves(layout, bytes);
  return formatValue<NativeArith>(t, leaves.data());
}

std::string formatBuffer(const std::string &name, const data::BufferData &b, const std::vector<uint8_t> *defined,
                         const PrintLimits &limits) {
  const size_t n = b.elementCount();
  auto isDefined = [&](size_t i) { return !defined || i >= defined->size() || (*defined)[i]; };
  auto cell = [&](size_t i) { return isDefined(i) ? formatElement(b.elem, b.element(i)) : std::string("⊥"); };
  if (b.shape.empty()) return fmt::format("{} = {}\n", name, cell(0));
  const LeafLayout layout = leafLayout(b.elem);
  if (n > limits.maxCells) {
    std::string s = fmt::format("{}: {} ({} cells, not printed", name, typeAndShape(b), n);
    if (b.elem.isPrimitive() && n > 0) {
      double lo = 0, hi = 0, sum = 0;
      bool first = true;
      for (size_t i = 0; i < n; ++i) {
        if (!isDefined(i)) continue;
        double v = NativeArith::toDouble(b.elem.kind, NativeArith::load(b.elem.kind, b.element(i)));
        lo = first ? v : std::min(lo, v);
        hi = first ? v : std::max(hi, v);
        sum += v;
        first = false;
      }
      if (!first) s += fmt::format("; min {}, max {}, sum {}", lo, hi, sum);
    }
    return s + (limits.savedTo.empty() ? fmt::format("; write it with `--out {}=FILE.npy`)\n", name)
                                       : fmt::format("; written to `{}`)\n", limits.savedTo));
  }
  std::string header = fmt::format("{}: {}\n", name, typeAndShape(b));
  auto indexText = [&](size_t i) {
    std::vector<int64_t> idx(b.shape.size());
    size_t rest = i;
    for (size_t s = b.shape.size(); s-- > 0;) {
      idx[s] = int64_t(rest % size_t(b.shape[s]));
      rest /= size_t(b.shape[s]);
    }
    return fmt::format("[{}]", fmt::join(idx, ", "));
  };
  if (!b.elem.isPrimitive()) {
    // One row per cell, one column per leaf (record field / tuple component).
    std::vector<std::vector<std::string>> rows;
    std::vector<std::string> head{""};
    for (const auto &p : layout.paths) head.push_back(p.empty() ? "value" : p.substr(1));
    rows.push_back(head);
    for (size_t i = 0; i < n; ++i) {
      std::vector<std::string> row{indexText(i)};
      if (!isDefined(i)) {
        row.push_back("⊥");
      } else {
        std::vector<Scalar> leaves = loadLeaves(layout, b.element(i));
        for (size_t l = 0; l < layout.count(); ++l) row.push_back(NativeArith::format(layout.kinds[l], leaves[l]));
      }
      rows.push_back(row);
    }
    return header + alignRows(rows, "  ");
  }
  if (b.shape.size() == 1) {
    if (n <= limits.maxColumns) {
      std::vector<std::string> cells;
      for (size_t i = 0; i < n; ++i) cells.push_back(cell(i));
      return fmt::format("{}: {} = [{}]\n", name, typeAndShape(b), fmt::join(cells, ", "));
    }
    std::vector<std::vector<std::string>> rows;
    for (size_t i = 0; i < n; ++i) rows.push_back({indexText(i), cell(i)});
    return header + alignRows(rows, "  ");
  }
  const size_t cols = size_t(b.shape.back()), rowsPerSlice = size_t(b.shape[b.shape.size() - 2]);
  if (cols > limits.maxColumns) {
    std::vector<std::vector<std::string>> rows;
    for (size_t i = 0; i < n; ++i) rows.push_back({indexText(i), cell(i)});
    return header + alignRows(rows, "  ");
  }
  std::string out = header;
  const size_t sliceSize = cols * rowsPerSlice;
  for (size_t start = 0; start < n; start += sliceSize) {
    if (b.shape.size() > 2) {
      std::string lead = indexText(start);
      lead = lead.substr(1, lead.size() - 2); // "a, b, 0, 0"
      std::vector<std::string> parts;
      size_t pos = 0;
      for (size_t s = 0; s + 2 < b.shape.size(); ++s) {
        size_t comma = lead.find(", ", pos);
        parts.push_back(lead.substr(pos, comma - pos));
        pos = comma + 2;
      }
      out += fmt::format("  {}[{}, :, :]\n", name, fmt::join(parts, ", "));
    }
    std::vector<std::vector<std::string>> rows;
    std::vector<std::string> head{""};
    for (size_t c = 0; c < cols; ++c) head.push_back(fmt::format("[{}]", c));
    rows.push_back(head);
    for (size_t r = 0; r < rowsPerSlice; ++r) {
      std::vector<std::string> row{fmt::format("[{}]", r)};
      for (size_t c = 0; c < cols; ++c) row.push_back(cell(start + r * cols + c));
      rows.push_back(row);
    }
    out += alignRows(rows, b.shape.size() > 2 ? "    " : "  ");
  }
  return out;
}

} // namespace mdh::interp
