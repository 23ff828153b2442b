// Bounded reading of input files (support/InputFile.h): the limit is exact
// for regular files, and a regular file whose reported size is wrong
// (procfs reports 0) is still read to its end.
#include "support/InputFile.h"

#include <doctest/doctest.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <unistd.h>

using namespace mdh;

namespace {

/// A temporary file holding `bytes`, removed at the end of the scope.
struct TempFile {
  std::string path;
  explicit TempFile(const std::string &bytes) {
    char name[] = "/tmp/mdh-input-file-XXXXXX";
    const int fd = ::mkstemp(name);
    REQUIRE(fd >= 0);
    REQUIRE(::write(fd, bytes.data(), bytes.size()) == ssize_t(bytes.size()));
    ::close(fd);
    path = name;
  }
  ~TempFile() { std::remove(path.c_str()); }
};

} // namespace

TEST_CASE("a regular file at the limit is complete, one byte more is too large") {
  TempFile exact(std::string(100, 'x')), over(std::string(101, 'y'));
  std::string text, error;
  CHECK(readBoundedFile(exact.path, 100, text, error) == BoundedRead::Complete);
  CHECK(text == std::string(100, 'x'));
  CHECK(readBoundedFile(over.path, 100, text, error) == BoundedRead::TooLarge);
  CHECK(text == std::string(100, 'y'));
  CHECK(readBoundedFile(over.path, 101, text, error) == BoundedRead::Complete);
  CHECK(text.size() == 101);
}

TEST_CASE("a procfs file, whose size reads 0, is read to its end") {
  std::string text, error;
  REQUIRE(readBoundedFile("/proc/self/status", 1 << 20, text, error) == BoundedRead::Complete);
  CHECK(text.find("Name:") == 0);
  CHECK(text.find("Pid:") != std::string::npos); // far past the first byte
}

TEST_CASE("a directory and a missing file fail with the reason") {
  std::string text, error;
  CHECK(readBoundedFile("/tmp", 100, text, error) == BoundedRead::Failed);
  CHECK(error == "it is a directory");
  CHECK(readBoundedFile("/nonexistent/mdh", 100, text, error) == BoundedRead::Failed);
  CHECK(error.find("No such file") != std::string::npos);
}
