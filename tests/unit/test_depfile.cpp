// Unit tests of the dependency file of `mdhc compile --depfile` (DepFile.h).
#include "codegen/DepFile.h"

#include <doctest/doctest.h>

TEST_CASE("a depfile names the generated source and every .mdh file read, escaped for Make and Ninja") {
  CHECK(mdh::codegen::makeDepfile("/b/mdh/k/k.cpp", {"/s/pair.mdh", "/s/lib/weights.mdh"}) ==
        "/b/mdh/k/k.cpp: /s/pair.mdh /s/lib/weights.mdh\n");
  CHECK(mdh::codegen::makeDepfile("/b/my dir/k.cpp", {"/s/a b#1/$x.mdh"}) == "/b/my\\ dir/k.cpp: /s/a\\ b\\#1/$$x.mdh\n");
}
