/** \file
 * The NumPy data layer: `.npy` encoding and decoding for every scalar dtype
 * and for records (C layout with padding), and clear errors for files that
 * are not .npy, truncated, of the wrong dtype, Fortran-ordered or
 * big-endian, bool bytes other than 0 and 1, and endless inputs; atomic
 * output writing through links, to FIFOs, keeping permissions and hard
 * links, never to one file twice; seeded random inputs.
 */
#include "TestSupport.h"

#include "data/AtomicFiles.h"
#include "data/BufferFiles.h"
#include "data/DataError.h"
#include "data/NpyFile.h"
#include "data/NumpyDtype.h"
#include "data/RandomData.h"

#include <fmt/format.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

using namespace mdh;
using namespace mdh::test;
using K = Type::Kind;

namespace {

std::string tempPath(const std::string &name) {
  return fmt::format("/tmp/mdh_interp_test_{}_{}", getpid(), name);
}

void writeBytes(const std::string &path, const std::vector<uint8_t> &bytes) {
  std::ofstream o(path, std::ios::binary);
  o.write(reinterpret_cast<const char *>(bytes.data()), std::streamsize(bytes.size()));
}

std::vector<uint8_t> readBytes(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<uint8_t>((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

std::string dataErrorOf(const std::function<void()> &fn) {
  try {
    fn();
  } catch (const data::DataError &e) {
    return e.what();
  }
  FAIL("expected a DataError");
  return "";
}

std::shared_ptr<RecordInfo> record(const std::string &name, std::vector<std::pair<std::string, Type>> fields) {
  auto r = std::make_shared<RecordInfo>();
  r->name = name;
  for (auto &[n, t] : fields) r->fields.push_back({n, t, 0});
  r->layout();
  return r;
}

} // namespace

TEST_CASE("dtypes of MDH types") {
  CHECK(data::dtypeOfType(prim(K::F32)).descr() == "'<f4'");
  CHECK(data::dtypeOfType(prim(K::Bool)).descr() == "'|b1'");
  CHECK(data::dtypeOfType(prim(K::U8)).descr() == "'|u1'");
  CHECK(data::dtypeOfType(prim(K::I64)).descr() == "'<i8'");
  auto match = record("Match", {{"a_id", prim(K::I64)}, {"w", prim(K::F64)}, {"link", prim(K::I8)}});
  CHECK(data::dtypeOfType(Type::recordType(match)).descr() == "[('a_id', '<i8'), ('w', '<f8'), ('link', '|i1'), ('', '|V7')]");
  auto inner = record("In", {{"x", prim(K::I8)}, {"y", prim(K::F64)}});
  auto outer = record("Out", {{"a", prim(K::I32)}, {"b", Type::recordType(inner)}});
  // exactly what np.save writes for np.dtype([('a','<i4'),('b',[('x','i1'),('y','<f8')])], align=True)
  CHECK(data::dtypeOfType(Type::recordType(outer)).descr() ==
        "[('a', '<i4'), ('', '|V4'), ('b', [('x', '|i1'), ('', '|V7'), ('y', '<f8')])]");
  CHECK(data::dtypeOfType(Type::tuple({prim(K::F32), prim(K::I64)})).descr() ==
        "[('f0', '<f4'), ('', '|V4'), ('f1', '<i8')]");
  // What users are shown builds the same dtype with NumPy: padding left to align=True (as a
  // list entry, NumPy would name it `f1` and clash with the tuple's second component).
  CHECK(data::dtypeOfType(prim(K::F32)).python() == "np.dtype('<f4')");
  CHECK(data::dtypeOfType(Type::recordType(outer)).python() ==
        "np.dtype([('a', '<i4'), ('b', [('x', '|i1'), ('y', '<f8')])], align=True)");
  auto pair = record("R", {{"p", Type::tuple({prim(K::I16), prim(K::F32)})}});
  CHECK(data::dtypeOfType(Type::recordType(pair)).python() ==
        "np.dtype([('p', [('f0', '<i2'), ('f1', '<f4')])], align=True)");
}

TEST_CASE(".npy round trip for every scalar type, 0-D and records") {
  for (K k : {K::Bool, K::I8, K::I16, K::I32, K::I64, K::U8, K::U16, K::U32, K::U64, K::F32, K::F64}) {
    data::BufferData b = data::randomBuffer("x", prim(k), {3, 5}, 7);
    auto bytes = data::encodeBuffer(b);
    CHECK((bytes.size() - b.bytes.size()) % 64 == 0); // the data starts 64-byte aligned
    auto a = data::decodeNpy(bytes, "test");
    CHECK(a.shape == b.shape);
    CHECK(a.data == b.bytes);
    std::string why;
    CHECK(data::sameLayout(a.dtype, data::dtypeOfType(prim(k)), why));
  }
  data::BufferData scalar = data::randomBuffer("s", prim(K::F64), {}, 1);
  auto a = data::decodeNpy(data::encodeBuffer(scalar), "test");
  CHECK(a.shape.empty());
  CHECK(a.data.size() == 8);
  auto match = record("Match", {{"a_id", prim(K::I64)}, {"w", prim(K::F64)}, {"link", prim(K::I8)}});
  data::BufferData rec = data::randomBuffer("m", Type::recordType(match), {4}, 3);
  CHECK(rec.bytes.size() == 4 * 24);
  std::string path = tempPath("rec.npy");
  writeBytes(path, data::encodeBuffer(rec));
  data::BufferData back = data::loadBufferFile(path, "M", Type::recordType(match));
  CHECK(back.bytes == rec.bytes);
  std::remove(path.c_str());
}

TEST_CASE("random inputs depend on the seed and the buffer name only") {
  auto a = data::randomBuffer("A", prim(K::F32), {100}, 1);
  auto b = data::randomBuffer("A", prim(K::F32), {100}, 1);
  auto c = data::randomBuffer("A", prim(K::F32), {100}, 2);
  auto d = data::randomBuffer("B", prim(K::F32), {100}, 1);
  CHECK(a.bytes == b.bytes);
  CHECK(a.bytes != c.bytes);
  CHECK(a.bytes != d.bytes);
  for (float v : values<float>(a)) CHECK((v >= -4 && v < 4 && v * 8 == std::floor(v * 8)));
}

TEST_CASE("bad data files give clear errors") {
  const Type f32 = prim(K::F32);
  SUBCASE("not a .npy file") {
    std::string p = tempPath("text.npy");
    writeBytes(p, {'h', 'e', 'l', 'l', 'o', ' ', 'w', 'o', 'r', 'l', 'd', '\n'});
    std::string msg = dataErrorOf([&] { data::loadBufferFile(p, "M", f32); });
    CHECK(msg.find("input buffer `M`") != std::string::npos);
    CHECK(msg.find("not a NumPy .npy file") != std::string::npos);
    std::remove(p.c_str());
  }
  SUBCASE("missing file") {
    std::string msg = dataErrorOf([&] { data::loadBufferFile("/nonexistent/x.npy", "v", f32); });
    CHECK(msg.find("cannot read `/nonexistent/x.npy`") != std::string::npos);
  }
  SUBCASE("truncated data and header") {
    auto bytes = data::encodeBuffer(data::randomBuffer("x", f32, {10}, 1));
    std::vector<uint8_t> cut(bytes.begin(), bytes.end() - 5);
    std::string msg = dataErrorOf([&] { data::decodeNpy(cut, "`x.npy`"); });
    CHECK(msg.find("truncated data") != std::string::npos);
    CHECK(msg.find("needs 40 bytes, the file has 35") != std::string::npos);
    std::vector<uint8_t> header(bytes.begin(), bytes.begin() + 30);
    CHECK(dataErrorOf([&] { data::decodeNpy(header, "`x.npy`"); }).find("truncated .npy header") != std::string::npos);
    std::vector<uint8_t> longer = bytes;
    longer.push_back(0);
    CHECK(dataErrorOf([&] { data::decodeNpy(longer, "`x.npy`"); }).find("unexpected bytes") != std::string::npos);
    // Magic and version only: a truncated header, not "no magic string".
    std::vector<uint8_t> magicOnly(bytes.begin(), bytes.begin() + 8);
    CHECK(dataErrorOf([&] { data::decodeNpy(magicOnly, "`x.npy`"); }).find("truncated .npy header") != std::string::npos);
  }
  SUBCASE("a header giving a key twice is refused (NumPy keeps the last one, a lookup the first)") {
    const std::string dict = "{'descr': '<f4', 'descr': '<f8', 'fortran_order': False, 'shape': (2,), }";
    std::string header = dict + std::string(128 - 10 - dict.size() - 1, ' ') + "\n";
    std::vector<uint8_t> npy = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, uint8_t(header.size()), 0};
    npy.insert(npy.end(), header.begin(), header.end());
    npy.resize(npy.size() + 8, 0);
    CHECK(dataErrorOf([&] { data::decodeNpy(npy, "`x.npy`"); }).find("the key 'descr' is given twice") != std::string::npos);
  }
  SUBCASE("wrong dtype names the buffer, the expected and the found type") {
    std::string p = tempPath("f64.npy");
    writeBytes(p, data::encodeBuffer(data::randomBuffer("x", prim(K::F64), {3}, 1)));
    std::string msg = dataErrorOf([&] { data::loadBufferFile(p, "M", f32); });
    CHECK(msg.find("input buffer `M`") != std::string::npos);
    CHECK(msg.find("expected f32") != std::string::npos);
    CHECK(msg.find("got float64") != std::string::npos);
    std::remove(p.c_str());
  }
  SUBCASE("records: field names, offsets (align=True) and item size are checked") {
    auto want = record("P", {{"id", prim(K::I64)}, {"k", prim(K::I8)}});
    auto wrongName = record("P", {{"ident", prim(K::I64)}, {"k", prim(K::I8)}});
    std::string p = tempPath("rec.npy");
    writeBytes(p, data::encodeBuffer(data::randomBuffer("x", Type::recordType(wrongName), {2}, 1)));
    CHECK(dataErrorOf([&] { data::loadBufferFile(p, "N", Type::recordType(want)); }).find("named `ident` instead of `id`") !=
          std::string::npos);
    // A packed (align=False) dtype: fields without padding.
    data::NumpyDtype packed;
    packed.kind = data::NumpyDtype::Kind::Struct;
    packed.fields = {{"k", data::dtypeOfType(prim(K::I8)), 0}, {"id", data::dtypeOfType(prim(K::I64)), 1}};
    packed.itemsize = 9;
    auto want2 = record("P", {{"k", prim(K::I8)}, {"id", prim(K::I64)}});
    writeBytes(p, data::encodeNpy(packed, {1}, std::vector<uint8_t>(9, 0)));
    std::string msg = dataErrorOf([&] { data::loadBufferFile(p, "N", Type::recordType(want2)); });
    CHECK(msg.find("align=True") != std::string::npos);
    std::remove(p.c_str());
  }
  SUBCASE("Fortran order, big-endian, unsupported dtypes") {
    auto make = [](const std::string &header, size_t dataBytes) {
      std::string h = header;
      while ((10 + h.size() + 1) % 64) h += ' ';
      h += '\n';
      std::vector<uint8_t> b = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, uint8_t(h.size() & 0xff), uint8_t(h.size() >> 8)};
      b.insert(b.end(), h.begin(), h.end());
      b.resize(b.size() + dataBytes, 0);
      return b;
    };
    CHECK(dataErrorOf([&] { data::decodeNpy(make("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2), }", 16), "f"); })
              .find("Fortran") != std::string::npos);
    auto big = data::decodeNpy(make("{'descr': '>f4', 'fortran_order': False, 'shape': (2,), }", 8), "f");
    std::string why;
    CHECK_FALSE(data::sameLayout(big.dtype, data::dtypeOfType(f32), why));
    CHECK(why.find("big-endian") != std::string::npos);
    CHECK(dataErrorOf([&] { data::decodeNpy(make("{'descr': '<U3', 'fortran_order': False, 'shape': (2,), }", 24), "f"); })
              .find("strings") != std::string::npos);
    CHECK(dataErrorOf([&] { data::decodeNpy(make("{'descr': '<c8', 'fortran_order': False, 'shape': (2,), }", 16), "f"); })
              .find("complex") != std::string::npos);
    CHECK(dataErrorOf([&] { data::decodeNpy(make("{'descr': '<f4', 'fortran_order': False, 'shape': (2,", 8), "f"); })
              .find("malformed .npy header") != std::string::npos);
    // format 2.0: a 4-byte header length
    std::string h = "{'descr': '<i2', 'fortran_order': False, 'shape': (3,), }";
    while ((12 + h.size() + 1) % 64) h += ' ';
    h += '\n';
    std::vector<uint8_t> v2 = {0x93, 'N', 'U', 'M', 'P', 'Y', 2, 0, uint8_t(h.size()), 0, 0, 0};
    v2.insert(v2.end(), h.begin(), h.end());
    v2.insert(v2.end(), {1, 0, 2, 0, 3, 0});
    auto a = data::decodeNpy(v2, "v2");
    CHECK(a.shape == std::vector<int64_t>{3});
    CHECK(a.data == std::vector<uint8_t>{1, 0, 2, 0, 3, 0});
  }
}

TEST_CASE("outputs are written all or nothing") {
  std::string target = tempPath("out.npy"), other = tempPath("other.npy");
  writeBytes(target, {'o', 'l', 'd'});
  {
    data::AtomicFileSet files;
    files.stage(target, {'n', 'e', 'w'});
    // not committed: the destructor cleans up and the target keeps its content
  }
  CHECK(readBytes(target) == std::vector<uint8_t>{'o', 'l', 'd'});
  {
    data::AtomicFileSet files;
    files.stage(target, {'n', 'e', 'w'});
    CHECK_THROWS_AS(files.stage("/nonexistent-dir/x.npy", {'x'}), data::DataError);
  }
  CHECK(readBytes(target) == std::vector<uint8_t>{'o', 'l', 'd'});
  {
    data::AtomicFileSet files;
    files.stage(target, {'n', 'e', 'w'});
    files.stage(other, {'2'});
    files.commit();
  }
  CHECK(readBytes(target) == std::vector<uint8_t>{'n', 'e', 'w'});
  CHECK(readBytes(other) == std::vector<uint8_t>{'2'});
  std::remove(target.c_str());
  std::remove(other.c_str());
}

TEST_CASE("bool data holds only the bytes 0 and 1, in records too") {
  std::string path = tempPath("bools.npy");
  data::BufferData b = data::randomBuffer("b", prim(K::Bool), {2, 3}, 1);
  b.bytes[4] = 2; // element [1, 1]
  writeBytes(path, data::encodeBuffer(b));
  std::string msg = dataErrorOf([&] { data::loadBufferFile(path, "B", prim(K::Bool)); });
  CHECK(msg.find("input buffer `B`: `" + path + "` holds the byte 2 at element [1, 1], which is not a bool") != std::string::npos);
  auto flagged = record("Flagged", {{"w", prim(K::F64)}, {"ok", prim(K::Bool)}});
  data::BufferData r = data::randomBuffer("r", Type::recordType(flagged), {3}, 1);
  r.bytes[2 * 16 + 8] = 255; // field `ok` of element [2]
  writeBytes(path, data::encodeBuffer(r));
  msg = dataErrorOf([&] { data::loadBufferFile(path, "R", Type::recordType(flagged)); });
  CHECK(msg.find("holds the byte 255 at element [2].ok, which is not a bool") != std::string::npos);
  r.bytes[2 * 16 + 8] = 1;
  writeBytes(path, data::encodeBuffer(r));
  CHECK(data::loadBufferFile(path, "R", Type::recordType(flagged)).bytes == r.bytes);
  std::remove(path.c_str());
}

TEST_CASE("reading a .npy file takes no more than its header announces") {
  // /dev/zero never ends: the magic check stops it at once.
  CHECK(dataErrorOf([] { data::readNpy("/dev/zero"); }).find("not a NumPy .npy file") != std::string::npos);
  // A file that goes on after its data (a stream, where the size is not known ahead).
  std::string path = tempPath("longer.npy");
  auto bytes = data::encodeBuffer(data::randomBuffer("x", prim(K::I32), {4}, 1));
  bytes.insert(bytes.end(), {1, 2, 3});
  writeBytes(path, bytes);
  CHECK(dataErrorOf([&] { data::readNpy(path); }).find("3 unexpected bytes after the data of shape [4]") != std::string::npos);
  std::remove(path.c_str());
}

TEST_CASE("outputs go where their paths lead, and never twice to one file") {
  const std::string dir = tempPath("outs");
  REQUIRE(std::system(fmt::format("rm -rf {0} && mkdir -p {0}/sub", dir).c_str()) == 0);
  auto bytesOf = [](const std::string &s) { return std::vector<uint8_t>(s.begin(), s.end()); };
  SUBCASE("a symbolic link is kept and its target replaced") {
    writeBytes(dir + "/sub/t.npy", bytesOf("old"));
    REQUIRE(symlink("sub/t.npy", (dir + "/l.npy").c_str()) == 0);
    data::AtomicFileSet files;
    files.stage(dir + "/l.npy", bytesOf("new"));
    files.commit();
    CHECK(readBytes(dir + "/sub/t.npy") == bytesOf("new"));
    char target[64] = {};
    CHECK(readlink((dir + "/l.npy").c_str(), target, sizeof target - 1) > 0);
    CHECK(std::string(target) == "sub/t.npy");
  }
  SUBCASE("a replaced file keeps its permissions") {
    writeBytes(dir + "/p.npy", bytesOf("old"));
    REQUIRE(chmod((dir + "/p.npy").c_str(), 0604) == 0);
    data::AtomicFileSet files;
    files.stage(dir + "/p.npy", bytesOf("new"));
    files.commit();
    struct stat st {};
    REQUIRE(stat((dir + "/p.npy").c_str(), &st) == 0);
    CHECK((st.st_mode & 07777) == 0604);
  }
  SUBCASE("hard links all see the new contents") {
    writeBytes(dir + "/h.npy", bytesOf("old"));
    REQUIRE(link((dir + "/h.npy").c_str(), (dir + "/h2.npy").c_str()) == 0);
    data::AtomicFileSet files;
    files.stage(dir + "/h.npy", bytesOf("new"));
    files.commit();
    CHECK(readBytes(dir + "/h2.npy") == bytesOf("new"));
  }
  SUBCASE("one file under two spellings, or a protected one, is refused before anything is written") {
    data::AtomicFileSet files;
    files.stage(dir + "/x.npy", bytesOf("1"));
    CHECK(dataErrorOf([&] { files.stage(dir + "/sub/../x.npy", bytesOf("2")); }).find("are the same file") != std::string::npos);
    writeBytes(dir + "/prog.mdh", bytesOf("program"));
    files.protect({dir + "/prog.mdh"}, "a source file of the program");
    CHECK(dataErrorOf([&] { files.stage(dir + "/./prog.mdh", bytesOf("2")); }).find("it is a source file of the program") !=
          std::string::npos);
    CHECK(dataErrorOf([&] { files.checkOutput(dir + "/sub"); }).find("it is a directory") != std::string::npos);
  }
  SUBCASE("a FIFO is written through, not replaced") {
    REQUIRE(mkfifo((dir + "/f").c_str(), 0600) == 0);
    data::AtomicFileSet files;
    files.stage(dir + "/f", bytesOf("through"));
    std::vector<uint8_t> got;
    std::thread reader([&] { got = readBytes(dir + "/f"); });
    files.commit();
    reader.join();
    CHECK(got == bytesOf("through"));
    struct stat st {};
    REQUIRE(lstat((dir + "/f").c_str(), &st) == 0);
    CHECK(S_ISFIFO(st.st_mode));
  }
  std::system(fmt::format("rm -rf {}", dir).c_str());
}
