/** \file
 * `.npy` decoding and encoding.
 *
 * Layout: the magic `\x93NUMPY`, major and minor version bytes, the header
 * length (2 bytes little-endian in 1.0, 4 bytes in 2.0/3.0), the header (a
 * Python dict literal with 'descr', 'fortran_order' and 'shape', padded with
 * spaces and ended by a newline), then the raw data.
 */
#include "data/NpyFile.h"

#include "data/BufferData.h"
#include "data/DataError.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

namespace mdh::data {

namespace {

const char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicLen = 6;

[[noreturn]] void fail(const std::string &what, const std::string &msg) {
  throw DataError(fmt::format("{}: {}", what, msg));
}

} // namespace

NpyArray decodeNpy(const std::vector<uint8_t> &bytes, const std::string &what) {
  if (bytes.size() < kMagicLen + 4 || std::memcmp(bytes.data(), kMagic, kMagicLen) != 0)
    fail(what, "not a NumPy .npy file (it does not start with the magic string \\x93NUMPY); "
               "save arrays with `numpy.save`");
  unsigned major = bytes[6], minor = bytes[7];
  size_t headerLen = 0, headerStart = 0;
  if (major == 1) {
    headerLen = size_t(bytes[8]) | size_t(bytes[9]) << 8;
    headerStart = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12) fail(what, "truncated .npy header");
    headerLen = size_t(bytes[8]) | size_t(bytes[9]) << 8 | size_t(bytes[10]) << 16 | size_t(bytes[11]) << 24;
    headerStart = 12;
  } else {
    fail(what, fmt::format(".npy format version {}.{} is not supported (1.0, 2.0 and 3.0 are)", major, minor));
  }
  if (headerStart + headerLen > bytes.size())
    fail(what, fmt::format("truncated .npy header (it announces {} bytes, the file has {})", headerLen,
                           bytes.size() - headerStart));
  std::string header(reinterpret_cast<const char *>(bytes.data() + headerStart), headerLen);
  PyValue dict;
  std::string err;
  if (!parsePyLiteral(header, dict, err) || dict.kind != PyValue::Kind::Dict)
    fail(what, fmt::format("malformed .npy header ({})", err.empty() ? "not a dictionary" : err));
  const PyValue *descr = dict.get("descr"), *fortran = dict.get("fortran_order"), *shape = dict.get("shape");
  if (!descr || !fortran || !shape) fail(what, "malformed .npy header: it needs 'descr', 'fortran_order' and 'shape'");
  NpyArray a;
  if (!dtypeFromDescr(*descr, a.dtype, err)) fail(what, err);
  if (fortran->kind != PyValue::Kind::Bool) fail(what, "malformed .npy header: 'fortran_order' is not True or False");
  if (fortran->boolean)
    fail(what, "the array is stored in Fortran (column-major) order; mdh reads C order "
               "(save `numpy.ascontiguousarray(a)` instead)");
  if (shape->kind != PyValue::Kind::Tuple) fail(what, "malformed .npy header: 'shape' is not a tuple");
  for (const auto &s : shape->items) {
    if (s.kind != PyValue::Kind::Int || s.integer < 0) fail(what, fmt::format("malformed shape {}", shape->repr()));
    a.shape.push_back(s.integer);
  }
  size_t count = 0;
  if (!checkedElementCount(a.shape, a.dtype.itemsize, count, err)) fail(what, err);
  size_t dataStart = headerStart + headerLen;
  size_t want = count * a.dtype.itemsize, have = bytes.size() - dataStart;
  if (have < want)
    fail(what, fmt::format("truncated data: shape {} of {} needs {} bytes, the file has {}", shapeString(a.shape),
                           a.dtype.str(), want, have));
  if (have > want)
    fail(what, fmt::format("{} unexpected bytes after the data of shape {} of {}", have - want, shapeString(a.shape),
                           a.dtype.str()));
  a.data.assign(bytes.begin() + long(dataStart), bytes.end());
  return a;
}

NpyArray readNpy(const std::string &path) {
  // A directory opens as a stream but fails on the first read with a library message.
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw DataError(fmt::format("cannot read `{}`: it is a directory; give a .npy file", path));
  std::ifstream in(path, std::ios::binary);
  if (!in) throw DataError(fmt::format("cannot read `{}`: {}", path, std::strerror(errno)));
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) throw DataError(fmt::format("cannot read `{}`", path));
  return decodeNpy(bytes, "`" + path + "`");
}

std::vector<uint8_t> encodeNpy(const NumpyDtype &dtype, const std::vector<int64_t> &shape, const std::vector<uint8_t> &data) {
  std::string shapeText = "(";
  for (size_t i = 0; i < shape.size(); ++i) shapeText += fmt::format("{}, ", shape[i]);
  if (shape.size() > 1) shapeText.resize(shapeText.size() - 2);
  else if (shape.size() == 1) shapeText.resize(shapeText.size() - 1);
  shapeText += ")";
  std::string header = fmt::format("{{'descr': {}, 'fortran_order': False, 'shape': {}, }}", dtype.descr(), shapeText);
  // Pad with spaces so that magic + version + length + header + '\n' is a multiple of 64.
  int major = 1;
  size_t prefix = kMagicLen + 2 + 2;
  if (prefix + header.size() + 1 > 65535 + prefix) { major = 2; prefix = kMagicLen + 2 + 4; }
  size_t total = prefix + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::vector<uint8_t> out(kMagic, kMagic + kMagicLen);
  out.push_back(uint8_t(major));
  out.push_back(0);
  size_t len = header.size();
  out.push_back(uint8_t(len & 0xff));
  out.push_back(uint8_t((len >> 8) & 0xff));
  if (major == 2) {
    out.push_back(uint8_t((len >> 16) & 0xff));
    out.push_back(uint8_t((len >> 24) & 0xff));
  }
  out.insert(out.end(), header.begin(), header.end());
  out.insert(out.end(), data.begin(), data.end());
  return out;
}

} // namespace mdh::data
