// Unit tests of the host-compiler workarounds: which compilers get GCC 12's
// legacy second value-range pass (src/runtime/CompilerWorkarounds.h), and that
// the compiler this build uses is asked correctly.
#include "runtime/CompilerWorkarounds.h"
#include "runtime/NativeLibrary.h"

#include <doctest/doctest.h>

using namespace mdh;

TEST_CASE("GCC 12, and only GCC 12, gets the legacy second value-range pass") {
  const std::string gcc12 = "#define __GNUC__ 12\n#define __GNUC_MINOR__ 2\n#define __x86_64__ 1\n";
  CHECK(runtime::workaroundFlagsForMacros(gcc12) == " --param=vrp2-mode=vrp");
  CHECK(runtime::workaroundFlagsForMacros("#define __GNUC__ 13\n").empty());
  CHECK(runtime::workaroundFlagsForMacros("#define __GNUC__ 11\n").empty());
  // Clang defines __GNUC__ 4 and __clang__; a Clang claiming 12 is still Clang.
  CHECK(runtime::workaroundFlagsForMacros("#define __clang__ 1\n#define __GNUC__ 12\n").empty());
  CHECK(runtime::workaroundFlagsForMacros("#define __GNUC__ 120\n").empty());
  CHECK(runtime::workaroundFlagsForMacros("").empty());
}

TEST_CASE("the host compiler is asked for its macros") {
  // No such compiler: no macros, no flags (its compile fails with its own message later).
  CHECK(runtime::hostCompilerWorkaroundFlags("/nonexistent/c++").empty());
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ == 12
  // This build's compiler, when it is GCC 12 and is the one generated code uses.
  if (runtime::hostCompiler() == "c++" || runtime::hostCompiler() == "g++")
    CHECK(runtime::hostCompilerWorkaroundFlags(runtime::hostCompiler()) == " --param=vrp2-mode=vrp");
#endif
}
