// Unit tests of the naming scheme of generated code (CNames.h): the
// implementation's names are injective codes in the mdh_ namespace, the
// header's are the user's own unless reserved, and then prefixed.
#include "TestPrograms.h"
#include "codegen/CNames.h"

#include <doctest/doctest.h>

#include <memory>

using namespace mdh;

namespace {

Type record(const std::string &name, std::vector<std::pair<std::string, Type>> fields = {{"x", Type::prim(Type::Kind::F32)}}) {
  auto r = std::make_shared<RecordInfo>();
  r->name = name;
  for (auto &[n, t] : fields) {
    RecordField f;
    f.name = n;
    f.type = t;
    r->fields.push_back(f);
  }
  r->layout();
  return Type::recordType(r);
}

hl::ScalarFunction function(const std::string &sourceName, const std::string &instanceName) {
  hl::ScalarFunction f;
  f.sourceName = sourceName;
  f.name = instanceName;
  return f;
}

const Type f32 = Type::prim(Type::Kind::F32), i32 = Type::prim(Type::Kind::I32);

} // namespace

TEST_CASE("a generic function's instance and a function named like it get different C names") {
  // fn w<T> at f32 (instance `w_f32`) and fn w_f32: one C name each (new-user sweep #1).
  CHECK(codegen::functionCode(function("w", "w_f32")) == "1w_f32");
  CHECK(codegen::functionCode(function("w_f32", "w_f32")) == "5w_f32");
  // The synthesised function of a built-in operator is coded by its instance name, never with a digit first.
  CHECK(codegen::functionCode(function("+", "add_f32")) == "add_f32");
}

TEST_CASE("tuple and record types have injective codes: underscores in record names cannot merge components") {
  // (A_i32, f32) and (A, i32_f32) were both mdh_t_A_i32_f32_e (new-user sweep #2).
  Type a = record("A"), aI32 = record("A_i32"), i32F32 = record("i32_f32");
  Type first = Type::tuple({aI32, f32}), second = Type::tuple({a, i32F32});
  CHECK(codegen::cType(first) == "mdh_t2_r5A_i32_f32");
  CHECK(codegen::cType(second) == "mdh_t2_r1A_r7i32_f32");
  CHECK(codegen::cType(Type::tuple({f32, Type::tuple({i32, f32})})) == "mdh_t2_f32_t2_i32_f32");
  CHECK(codegen::cType(Type::tuple({Type::tuple({f32, i32}), f32})) == "mdh_t2_t2_f32_i32_f32");
  // Records never appear under their own name in the implementation.
  CHECK(codegen::cType(record("float")) == "mdh_r5float");
  CHECK(codegen::cType(record("q")) == "mdh_r1q");
  CHECK(codegen::cType(f32) == "float");
  Type r = record("R", {{"NAN", f32}, {"class", i32}});
  CHECK(codegen::implFieldName(*r.record, 0) == "_0_NAN");
  CHECK(codegen::implFieldName(*r.record, 1) == "_1_class");
}

TEST_CASE("header fields that are keywords or library macros are renamed into mdh_field_") {
  for (const char *w : {"class", "float", "int", "global", "half", "uint", "float4", "uchar16", "size_t", "int32_t", "M_PI",
                        "NAN", "INFINITY", "HUGE_VAL", "EOF", "RAND_MAX", "INT_MAX", "CHAR_BIT", "CL_SUCCESS", "MDH_FN",
                        "MDH_KERNEL", "MDH_GLOBAL", "errno", "stdin", "__x", "_Y", "mdh_x", "cl_khr_fp64"})
    CHECK(codegen::headerFieldName(w) == std::string("mdh_field_") + w);
  // Ordinary names, functions (not macros) and a leading underscore before a lower-case letter are members' own.
  for (const char *w : {"Person", "count", "sin", "main", "float5", "halfway", "classes", "min", "max", "x_", "_x", "M"})
    CHECK(codegen::headerFieldName(w) == w);
}

TEST_CASE("header records avoid library names and the header's own symbols") {
  for (const char *w : {"mdh_array", "mdh_vt", "mdh_is_int", "omp_lock_t", "cl_mem", "cl_int", "cudaStream_t", "float", "tm",
                        "div_t", "FILE", "select"})
    CHECK(codegen::headerRecordName(w, {}) == std::string("mdh_record_") + w);
  CHECK(codegen::headerRecordName("Particle", {}) == "Particle");
  CHECK(codegen::headerRecordName("scale_f32", {"scale_f32", "scale_f32_run"}) == "mdh_record_scale_f32");
  CHECK(codegen::headerRecordName("scale_f32_run", {"scale_f32", "scale_f32_run"}) == "mdh_record_scale_f32_run");
}

TEST_CASE("entry symbols avoid library names and keep ordinary instance names") {
  for (const char *s : {"main", "memcpy", "sin", "class", "clFinish", "cuLaunchKernel", "cudaMalloc", "omp_get_num_threads",
                        "mdh_add", "cl_int", "cl_mem", "select", "write", "index", "sizes", "buffers", "in_place", "sz_x"})
    CHECK(codegen::isReservedSymbol(s));
  for (const char *s : {"matmul_f32_1024_1024_1024", "close_enough", "cluster", "cube", "prl", "dot", "matvec", "histo",
                        "jacobi1d", "lap5_f32_dyn_dyn", "inputs", "output"})
    CHECK_FALSE(codegen::isReservedSymbol(s));
  Compilation comp;
  auto p = testing_support::matmul(comp, "T=f32,I=4,J=4,K=4");
  CHECK(codegen::defaultSymbol(*p) == p->instanceName);
  p->instanceName = "memcpy";
  CHECK(codegen::defaultSymbol(*p) == "mdh_entry_memcpy");
  p->instanceName = "min"; // mdh_min is a generated helper
  CHECK(codegen::defaultSymbol(*p) == "mdh_entry_min");
  p->instanceName = "cl_int";
  CHECK(codegen::defaultSymbol(*p) == "mdh_entry_cl_int");
}
