// Instantiations of the bundled examples for unit tests (one Compilation
// per program, which must outlive it).
#pragma once

#include "driver/CliSupport.h"
#include "driver/Compilation.h"

#include <doctest/doctest.h>

#include <memory>
#include <string>

namespace mdh::testing_support {

/// Entry `entry` of the repository file `path` with the given --set string.
inline std::unique_ptr<hl::Program> instantiate(Compilation &comp, const std::string &path, const std::string &entry,
                                                const std::string &sizes) {
  comp.addFile(std::string(MDH_TEST_SOURCE_DIR) + "/" + path);
  comp.analyze();
  MetaSettings s;
  std::string err;
  REQUIRE(parseMetaSettings({sizes}, s, err));
  auto p = comp.sema().instantiate(entry, s);
  REQUIRE(p);
  return p;
}

/// examples/matmul.mdh's `matmul` with the given --set string.
inline std::unique_ptr<hl::Program> matmul(Compilation &comp, const std::string &sizes) {
  return instantiate(comp, "examples/matmul.mdh", "matmul", sizes);
}

} // namespace mdh::testing_support
