/** \file
 * Readable text for values stored as leaves: `1.5`, `-3`, `true`,
 * `(1, 2.5)`, `Match { a_id: 1, w: 0.5, ... }` — for error messages, the
 * REPL and result tables.
 */
#pragma once

#include "interp/LeafLayout.h"

#include <fmt/format.h>

#include <string>
#include <vector>

namespace mdh::interp {

template <class D> std::string formatValue(const Type &t, const typename D::Value *leaves) {
  if (t.isPrimitive()) return D::format(t.kind, leaves[0]);
  std::vector<std::string> parts;
  if (t.kind == Type::Kind::Record) {
    uint32_t at = 0;
    for (const auto &f : t.record->fields) {
      parts.push_back(f.name + ": " + formatValue<D>(f.type, leaves + at));
      at += leafCount(f.type);
    }
    return fmt::format("{} {{ {} }}", t.record->name, fmt::join(parts, ", "));
  }
  uint32_t at = 0;
  for (const auto &e : t.elems) {
    parts.push_back(formatValue<D>(e, leaves + at));
    at += leafCount(e);
  }
  return fmt::format("({})", fmt::join(parts, ", "));
}

/// `O[3, 4]`, or `O` for a 0-D buffer.
inline std::string cellName(const std::string &buffer, const std::vector<int64_t> &index) {
  if (index.empty()) return buffer;
  return fmt::format("{}[{}]", buffer, fmt::join(index, ", "));
}

} // namespace mdh::interp
