// Unit tests of the renaming of user names in generated code (CNames.h):
// reserved words and library names are renamed, everything else is kept.
#include "TestPrograms.h"
#include "codegen/CNames.h"

#include <doctest/doctest.h>

using namespace mdh;

TEST_CASE("record and field names that C, C++, OpenCL C or CUDA reserve get an underscore") {
  for (const char *w : {"class", "float", "int", "global", "half", "uint", "float4", "uchar16", "size_t", "int32_t", "__x"})
    CHECK(codegen::cMember(w) == std::string(w) + "_");
  for (const char *w : {"Person", "count", "sin", "main", "float5", "halfway", "classes"}) CHECK(codegen::cMember(w) == w);
}

TEST_CASE("entry symbols avoid library names and keep ordinary instance names") {
  for (const char *s : {"main", "memcpy", "sin", "class", "clFinish", "cuLaunchKernel", "cudaMalloc", "omp_get_num_threads", "mdh_add"})
    CHECK(codegen::isReservedSymbol(s));
  for (const char *s : {"matmul_f32_1024_1024_1024", "close_enough", "cluster", "cube", "prl"}) CHECK_FALSE(codegen::isReservedSymbol(s));
  Compilation comp;
  auto p = testing_support::matmul(comp, "T=f32,I=4,J=4,K=4");
  CHECK(codegen::defaultSymbol(*p) == p->instanceName);
  p->instanceName = "memcpy";
  CHECK(codegen::defaultSymbol(*p) == "mdh_entry_memcpy");
  p->instanceName = "min"; // mdh_min is a generated helper
  CHECK(codegen::defaultSymbol(*p) == "mdh_entry_min");
}
