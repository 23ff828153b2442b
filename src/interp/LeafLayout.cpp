/** \file
 * Flattening of types into leaves.
 */
#include "interp/LeafLayout.h"

#include <fmt/format.h>

namespace mdh::interp {

namespace {

struct Member {
  std::string name;
  const Type *type;
  size_t offset;
};

std::vector<Member> membersOf(const Type &t) {
  std::vector<Member> m;
  if (t.kind == Type::Kind::Record) {
    for (const auto &f : t.record->fields) m.push_back({f.name, &f.type, f.offset});
  } else if (t.kind == Type::Kind::Tuple) {
    size_t off = 0;
    for (size_t i = 0; i < t.elems.size(); ++i) {
      size_t a = std::max<size_t>(1, t.elems[i].align());
      off = (off + a - 1) / a * a;
      m.push_back({std::to_string(i), &t.elems[i], off});
      off += t.elems[i].size();
    }
  }
  return m;
}

void flatten(const Type &t, uint32_t base, const std::string &path, LeafLayout &out) {
  if (t.isPrimitive()) {
    out.kinds.push_back(t.kind);
    out.byteOffsets.push_back(base);
    out.paths.push_back(path);
    return;
  }
  for (const auto &m : membersOf(t)) flatten(*m.type, base + uint32_t(m.offset), path + "." + m.name, out);
}

} // namespace

LeafLayout leafLayout(const Type &t) {
  LeafLayout l;
  flatten(t, 0, "", l);
  return l;
}

uint32_t leafCount(const Type &t) {
  if (t.isPrimitive()) return 1;
  uint32_t n = 0;
  if (t.kind == Type::Kind::Record)
    for (const auto &f : t.record->fields) n += leafCount(f.type);
  else
    for (const auto &e : t.elems) n += leafCount(e);
  return n;
}

uint32_t componentLeafOffset(const Type &t, size_t index) {
  uint32_t n = 0;
  if (t.kind == Type::Kind::Record)
    for (size_t i = 0; i < index; ++i) n += leafCount(t.record->fields[i].type);
  else
    for (size_t i = 0; i < index; ++i) n += leafCount(t.elems[i]);
  return n;
}

} // namespace mdh::interp
