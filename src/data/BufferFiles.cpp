/** \file
 * Buffer <-> `.npy` conversion with dtype checks (and bool values checked:
 * bytes other than 0 and 1 are refused).
 */
#include "data/BufferFiles.h"

#include "data/DataError.h"
#include "data/NpyFile.h"

#include <fmt/format.h>

namespace mdh::data {

namespace {

/// Byte offsets (and field paths, `.flag`) of the bool leaves of one element of `d`.
void boolLeaves(const NumpyDtype &d, size_t base, const std::string &path, std::vector<std::pair<size_t, std::string>> &out) {
  if (d.kind == NumpyDtype::Kind::Scalar && d.code == 'b') out.push_back({base, path});
  if (d.kind == NumpyDtype::Kind::Struct)
    for (const auto &f : d.fields) boolLeaves(f.type, base + f.offset, path + "." + f.name, out);
}

/// `[1, 2]`: the index of element `linear` of a C-order array of `shape`.
std::string elementIndex(size_t linear, const std::vector<int64_t> &shape) {
  std::vector<int64_t> index(shape.size());
  for (size_t k = shape.size(); k-- > 0;) {
    index[k] = int64_t(linear % size_t(shape[k]));
    linear /= size_t(shape[k]);
  }
  return shapeString(index);
}

/// A bool is the byte 0 or 1: the interpreter would read 2 as true, while
/// generated code reading it as a C++ bool is undefined (they disagreed).
void checkBools(const NpyArray &a, const NumpyDtype &dtype, const std::string &buffer, const std::string &path) {
  std::vector<std::pair<size_t, std::string>> leaves;
  boolLeaves(dtype, 0, "", leaves);
  if (leaves.empty() || dtype.itemsize == 0) return;
  const size_t count = a.data.size() / dtype.itemsize;
  for (size_t e = 0; e < count; ++e)
    for (const auto &[offset, field] : leaves) {
      const uint8_t byte = a.data[e * dtype.itemsize + offset];
      if (byte > 1)
        throw DataError(fmt::format("input buffer `{}`: `{}` holds the byte {} at element {}{}, which is not a bool "
                                    "(bools are stored as 0 or 1; convert with `a.astype(bool)`)",
                                    buffer, path, byte, elementIndex(e, a.shape), field));
    }
}

} // namespace

BufferData loadBufferFile(const std::string &path, const std::string &buffer, const Type &elem) {
  NpyArray a;
  try {
    a = readNpy(path);
  } catch (const DataError &e) {
    throw DataError(fmt::format("input buffer `{}`: {}", buffer, e.what()));
  }
  NumpyDtype want = dtypeOfType(elem);
  std::string why;
  if (!sameLayout(a.dtype, want, why)) {
    // `why` names the first difference; when that is the whole element type it says nothing new.
    const bool whyRepeats = why.rfind(a.dtype.str(), 0) == 0;
    throw DataError(fmt::format("input buffer `{}`: `{}` has the wrong element type: expected {} ({}, {}), got {} "
                                "(dtype {}){}",
                                buffer, path, elem.str(), want.str(), want.python(), a.dtype.str(), a.dtype.descr(),
                                whyRepeats ? "" : ": " + why));
  }
  checkBools(a, want, buffer, path);
  BufferData b;
  b.elem = elem;
  b.shape = std::move(a.shape);
  b.bytes = std::move(a.data);
  return b;
}

std::vector<uint8_t> encodeBuffer(const BufferData &b) { return encodeNpy(dtypeOfType(b.elem), b.shape, b.bytes); }

std::vector<uint8_t> encodeMask(const std::vector<int64_t> &shape, const std::vector<uint8_t> &defined) {
  return encodeNpy(dtypeOfType(Type::prim(Type::Kind::Bool)), shape, defined);
}

std::string maskPathFor(const std::string &path) {
  const std::string ext = ".npy";
  if (path.size() > ext.size() && path.compare(path.size() - ext.size(), ext.size(), ext) == 0)
    return path.substr(0, path.size() - ext.size()) + ".defined.npy";
  return path + ".defined.npy";
}

} // namespace mdh::data
