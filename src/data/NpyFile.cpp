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
#include "support/InputFile.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

namespace mdh::data {

namespace {

const char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicLen = 6;
/// NumPy reads headers of at most 10000 bytes unless told otherwise
/// (max_header_size); records with many fields legitimately exceed that, so
/// mdh allows 1 MiB, which still bounds what a corrupt length can make it read.
constexpr size_t kMaxHeaderBytes = 1 << 20;

[[noreturn]] void fail(const std::string &what, const std::string &msg) {
  throw DataError(fmt::format("{}: {}", what, msg));
}

/// The length of the prologue (magic, version, header length) and the header
/// of the file starting with `bytes`; throws for a bad magic or version.
size_t headerEnd(const std::vector<uint8_t> &bytes, const std::string &what, size_t &headerStart) {
  if (bytes.size() < kMagicLen || std::memcmp(bytes.data(), kMagic, kMagicLen) != 0)
    fail(what, "not a NumPy .npy file (it does not start with the magic string \\x93NUMPY); "
               "save arrays with `numpy.save`");
  if (bytes.size() < kMagicLen + 4) fail(what, "truncated .npy header (the file ends before the header's length)");
  unsigned major = bytes[6], minor = bytes[7];
  size_t headerLen = 0;
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
  return headerStart + headerLen;
}

/// Decodes the header that `bytes` holds completely: dtype and shape of the
/// array, its data size in `dataBytes`.
NpyArray decodeHeader(const std::vector<uint8_t> &bytes, const std::string &what, size_t &dataStart, size_t &dataBytes) {
  size_t headerStart = 0;
  dataStart = headerEnd(bytes, what, headerStart);
  if (dataStart > bytes.size())
    fail(what, fmt::format("truncated .npy header (it announces {} bytes, the file has {})", dataStart - headerStart,
                           bytes.size() - headerStart));
  std::string header(reinterpret_cast<const char *>(bytes.data() + headerStart), dataStart - headerStart);
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
  dataBytes = count * a.dtype.itemsize;
  return a;
}

/// Refuses data of `have` bytes (`more`: and the input goes on) for an array that needs `want`.
void checkDataSize(const NpyArray &a, size_t have, size_t want, bool more, const std::string &what) {
  if (have < want)
    fail(what, fmt::format("truncated data: shape {} of {} needs {} bytes, the file has {}", shapeString(a.shape),
                           a.dtype.str(), want, have));
  if (have > want || more)
    fail(what, fmt::format("{}unexpected bytes after the data of shape {} of {}",
                           more ? "" : std::to_string(have - want) + " ", shapeString(a.shape), a.dtype.str()));
}

/// Appends up to `n` bytes of `in` to `bytes`, fewer at the end of the input.
/// Memory grows with what arrives, not with what a header announces.
void readMore(InputFile &in, size_t n, std::vector<uint8_t> &bytes, const std::string &path) {
  for (size_t left = n; left > 0;) {
    const size_t at = bytes.size(), ask = std::min(left, std::max<size_t>(at, 1 << 16));
    bytes.resize(at + ask);
    size_t count = 0;
    std::string err;
    if (!in.read(bytes.data() + at, ask, count, err)) throw DataError(fmt::format("cannot read `{}`: {}", path, err));
    bytes.resize(at + count);
    if (count < ask) return;
    left -= ask;
  }
}

} // namespace

NpyArray decodeNpy(const std::vector<uint8_t> &bytes, const std::string &what) {
  size_t dataStart = 0, want = 0;
  NpyArray a = decodeHeader(bytes, what, dataStart, want);
  checkDataSize(a, bytes.size() - dataStart, want, false, what);
  a.data.assign(bytes.begin() + long(dataStart), bytes.end());
  return a;
}

NpyArray readNpy(const std::string &path) {
  // Read piece by piece, each no larger than the header says: `/dev/zero`
  // or an endless FIFO ends with an error, not with memory exhausted.
  InputFile in;
  std::string err;
  if (!in.open(path, err)) {
    throw DataError(err == "it is a directory" ? fmt::format("cannot read `{}`: it is a directory; give a .npy file", path)
                                               : fmt::format("cannot read `{}`: {}", path, err));
  }
  const std::string what = "`" + path + "`";
  std::vector<uint8_t> bytes;
  readMore(in, 12, bytes, path);
  size_t headerStart = 0;
  const size_t end = headerEnd(bytes, what, headerStart);
  if (!(in.isRegular() && end > in.size()) && end - headerStart > kMaxHeaderBytes)
    fail(what, fmt::format("the .npy header announces {} bytes; mdh reads headers of up to {} bytes", end - headerStart,
                           kMaxHeaderBytes));
  if (end > bytes.size()) readMore(in, end - bytes.size(), bytes, path);
  size_t dataStart = 0, want = 0;
  NpyArray a = decodeHeader(bytes, what, dataStart, want);
  if (in.isRegular() && in.size() != dataStart + want) // known before reading the data
    checkDataSize(a, size_t(std::max<uint64_t>(in.size(), dataStart) - dataStart), want, false, what);
  a.data.assign(bytes.begin() + long(dataStart), bytes.end());
  if (a.data.size() < want) readMore(in, want - a.data.size(), a.data, path);
  uint8_t probe = 0;
  size_t extra = 0;
  if (!in.read(&probe, 1, extra, err)) throw DataError(fmt::format("cannot read `{}`: {}", path, err));
  checkDataSize(a, std::min(a.data.size(), want), want, a.data.size() > want || extra > 0, what);
  return a;
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
