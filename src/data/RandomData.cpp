/** \file
 * Seeded random buffer generation.
 */
#include "data/RandomData.h"

#include "data/DataError.h"

#include <cstring>

namespace mdh::data {

namespace {

struct SplitMix64 {
  uint64_t state;
  uint64_t next() {
    uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
};

uint64_t hashName(const std::string &s) {
  uint64_t h = 1469598103934665603ull; // FNV-1a
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  return h;
}

void fill(const Type &t, uint8_t *dst, SplitMix64 &rng) {
  if (t.kind == Type::Kind::Record) {
    for (const auto &f : t.record->fields) fill(f.type, dst + f.offset, rng);
    return;
  }
  if (t.kind == Type::Kind::Tuple) {
    size_t off = 0;
    for (const auto &e : t.elems) {
      size_t a = std::max<size_t>(1, e.align());
      off = (off + a - 1) / a * a;
      fill(e, dst + off, rng);
      off += e.size();
    }
    return;
  }
  uint64_t r = rng.next();
  switch (t.kind) {
  case Type::Kind::Bool: dst[0] = uint8_t(r & 1); return;
  case Type::Kind::F32: {
    float v = float(int64_t(r % 64) - 32) / 8.0f;
    std::memcpy(dst, &v, 4);
    return;
  }
  case Type::Kind::F64: {
    double v = double(int64_t(r % 64) - 32) / 8.0;
    std::memcpy(dst, &v, 8);
    return;
  }
  default: break;
  }
  int64_t v = t.isSigned() ? int64_t(r % 16) - 8 : int64_t(r % 16);
  std::memcpy(dst, &v, t.size()); // little-endian: the low bytes
}

} // namespace

BufferData randomBuffer(const std::string &name, const Type &elem, const std::vector<int64_t> &shape, uint64_t seed) {
  BufferData b;
  b.elem = elem;
  b.shape = shape;
  size_t count = 0;
  std::string err;
  if (!checkedElementCount(shape, elem.size(), count, err)) throw DataError("random input `" + name + "`: " + err);
  b.bytes.assign(count * elem.size(), 0);
  SplitMix64 rng{seed ^ hashName(name)};
  for (size_t i = 0; i < count; ++i) fill(elem, b.element(i), rng);
  return b;
}

} // namespace mdh::data
