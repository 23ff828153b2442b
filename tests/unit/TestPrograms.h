// Instantiations of the bundled examples for unit tests (one Compilation
// per program, which must outlive it).
#pragma once

#include "driver/CliSupport.h"
#include "driver/Compilation.h"

#include <doctest/doctest.h>

#include <memory>
#include <string>

namespace mdh::testing_support {

/// examples/matmul.mdh's `matmul` with the given --set string.
inline std::unique_ptr<hl::Program> matmul(Compilation &comp, const std::string &sizes) {
  comp.addFile(std::string(MDH_TEST_SOURCE_DIR) + "/examples/matmul.mdh");
  comp.analyze();
  MetaSettings s;
  std::string err;
  REQUIRE(parseMetaSettings({sizes}, s, err));
  auto p = comp.sema().instantiate("matmul", s);
  REQUIRE(p);
  return p;
}

} // namespace mdh::testing_support
