/** \file
 * User names in generated code: the reserved words and library names of the
 * target languages, and the renaming rules of CNames.h.
 */
#include "codegen/CNames.h"

#include <cctype>
#include <set>

namespace mdh::codegen {
namespace {

// C11, C++17, OpenCL C 1.2/2.0 and CUDA keywords, qualifiers and builtin
// type names (the scalar ones; vector types are matched by shape below).
const std::set<std::string> &reservedWords() {
  static const std::set<std::string> words = {
      // C and C++
      "alignas", "alignof", "and", "and_eq", "asm", "auto", "bitand", "bitor", "bool", "break", "case", "catch", "char",
      "char16_t", "char32_t", "char8_t", "class", "compl", "concept", "const", "const_cast", "consteval", "constexpr",
      "constinit", "continue", "co_await", "co_return", "co_yield", "decltype", "default", "delete", "do", "double",
      "dynamic_cast", "else", "enum", "explicit", "export", "extern", "false", "float", "for", "friend", "goto", "if",
      "inline", "int", "long", "mutable", "namespace", "new", "noexcept", "not", "not_eq", "nullptr", "operator", "or",
      "or_eq", "private", "protected", "public", "register", "reinterpret_cast", "requires", "restrict", "return",
      "short", "signed", "sizeof", "static", "static_assert", "static_cast", "struct", "switch", "template", "this",
      "thread_local", "throw", "true", "try", "typedef", "typeid", "typename", "union", "unsigned", "using", "virtual",
      "void", "volatile", "wchar_t", "while", "xor", "xor_eq", "_Bool", "_Complex", "_Imaginary", "_Alignas",
      "_Alignof", "_Atomic", "_Generic", "_Noreturn", "_Static_assert", "_Thread_local", "NULL", "std",
      // fixed-width and library type names the generated code uses
      "int8_t", "int16_t", "int32_t", "int64_t", "uint8_t", "uint16_t", "uint32_t", "uint64_t", "size_t", "ptrdiff_t",
      "intptr_t", "uintptr_t", "ssize_t", "FILE", "INT64_C", "UINT64_C", "INT64_MIN", "INT64_MAX",
      // OpenCL C
      "global", "local", "constant", "kernel", "read_only", "write_only", "read_write", "uniform", "pipe", "half",
      "uchar", "ushort", "uint", "ulong", "quad", "image1d_t", "image2d_t", "image3d_t", "image1d_array_t",
      "image2d_array_t", "image1d_buffer_t", "sampler_t", "event_t", "queue_t", "ndrange_t", "clk_event_t",
      "reserve_id_t", "cl_mem_fence_flags", "complex", "imaginary",
      // CUDA
      "dim3", "threadIdx", "blockIdx", "blockDim", "gridDim", "warpSize"};
  return words;
}

// Functions of the headers and libraries the generated code includes or
// links that a user name could shadow or redefine (C library, math, OpenMP).
const std::set<std::string> &libraryNames() {
  static const std::set<std::string> names = {
      "main", "abort", "abs", "acos", "acosh", "asin", "asinh", "atan", "atan2", "atanh", "atexit", "atof", "atoi",
      "atol", "calloc", "cbrt", "ceil", "copysign", "cos", "cosh", "div", "erf", "erfc", "exit", "exp", "exp2", "expm1",
      "fabs", "fdim", "floor", "fma", "fmax", "fmin", "fmod", "free", "frexp", "getenv", "hypot", "ilogb", "labs",
      "ldexp", "lgamma", "llabs", "llrint", "llround", "log", "log10", "log1p", "log2", "logb", "lrint", "lround",
      "malloc", "memchr", "memcmp", "memcpy", "memmove", "memset", "modf", "nan", "nearbyint", "nextafter", "pow",
      "printf", "fprintf", "puts", "qsort", "rand", "realloc", "remainder", "rint", "round", "scalbn", "signbit", "sin",
      "sinh", "sqrt", "srand", "strcmp", "strcpy", "strlen", "strncpy", "system", "tan", "tanh", "tgamma", "trunc",
      "isnan", "isinf", "isfinite", "min", "max", "mad", "clamp", "select", "barrier", "mem_fence", "get_global_id",
      "get_local_id", "get_group_id", "get_global_size", "get_local_size", "get_num_groups", "printf", "assert"};
  return names;
}

bool startsWithUpperAfter(const std::string &name, const std::string &prefix) {
  return name.size() > prefix.size() && name.compare(0, prefix.size(), prefix) == 0 &&
         std::isupper(static_cast<unsigned char>(name[prefix.size()]));
}

// OpenCL vector type names: char2, uint16, float4, half8, ...
bool isVectorTypeName(const std::string &name) {
  static const char *bases[] = {"char", "uchar", "short", "ushort", "int", "uint", "long", "ulong", "float", "double", "half"};
  for (const char *b : bases) {
    std::string s(b);
    if (name.size() <= s.size() || name.compare(0, s.size(), s) != 0) continue;
    std::string n = name.substr(s.size());
    if (n == "2" || n == "3" || n == "4" || n == "8" || n == "16") return true;
  }
  return false;
}

} // namespace

bool isReservedWord(const std::string &name) {
  return reservedWords().count(name) || isVectorTypeName(name) || name.rfind("__", 0) == 0;
}

bool isReservedSymbol(const std::string &name) {
  if (isReservedWord(name) || libraryNames().count(name)) return true;
  for (const char *prefix : {"mdh_", "omp_", "cuda", "nvrtc", "atomic_", "_"})
    if (name.rfind(prefix, 0) == 0) return true;
  // OpenCL (clFinish, clCreateBuffer) and CUDA driver (cuLaunchKernel) APIs.
  return startsWithUpperAfter(name, "cl") || startsWithUpperAfter(name, "cu");
}

std::string cMember(const std::string &name) { return isReservedWord(name) ? name + "_" : name; }

std::string defaultSymbol(const hl::Program &p) {
  return isReservedSymbol(p.instanceName) ? "mdh_entry_" + p.instanceName : p.instanceName;
}

} // namespace mdh::codegen
