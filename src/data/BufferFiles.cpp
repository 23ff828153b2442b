/** \file
 * Buffer <-> `.npy` conversion with dtype checks.
 */
#include "data/BufferFiles.h"

#include "data/DataError.h"
#include "data/NpyFile.h"

#include <fmt/format.h>

namespace mdh::data {

BufferData loadBufferFile(const std::string &path, const std::string &buffer, const Type &elem) {
  NpyArray a;
  try {
    a = readNpy(path);
  } catch (const DataError &e) {
    throw DataError(fmt::format("input buffer `{}`: {}", buffer, e.what()));
  }
  NumpyDtype want = dtypeOfType(elem);
  std::string why;
  if (!sameLayout(a.dtype, want, why))
    throw DataError(fmt::format("input buffer `{}`: `{}` has the wrong element type: expected {} ({}, dtype {}), got {} "
                                "(dtype {}): {}",
                                buffer, path, elem.str(), want.str(), want.descr(), a.dtype.str(), a.dtype.descr(), why));
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
