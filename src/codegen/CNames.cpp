/** \file
 * The naming scheme of CNames.h: reserved words, the library prefixes that
 * LibraryNames.cpp leaves to rules, the implementation's injective codes and
 * the header's renaming.
 */
#include "codegen/CNames.h"

#include "codegen/LibraryNames.h"

#include <cctype>
#include <set>

namespace mdh::codegen {
namespace {

// C11, C++20, OpenCL C 1.2/2.0 and CUDA keywords, qualifiers and builtin
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
      "thread_local", "throw", "true", "try", "typedef", "typeid", "typename", "typeof", "union", "unsigned", "using",
      "virtual", "void", "volatile", "wchar_t", "while", "xor", "xor_eq", "NULL", "std",
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

// Functions of the OpenCL C built-in library and the helpers every backend
// expects to call by these names, besides what LibraryNames.cpp lists.
const std::set<std::string> &builtinFunctions() {
  static const std::set<std::string> names = {
      "main", "min", "max", "mad", "clamp", "select", "barrier", "mem_fence", "get_global_id", "get_local_id",
      "get_group_id", "get_global_size", "get_local_size", "get_num_groups", "assert"};
  return names;
}

bool startsWith(const std::string &name, const char *prefix) { return name.rfind(prefix, 0) == 0; }

bool startsWithUpperAfter(const std::string &name, const std::string &prefix) {
  return name.size() > prefix.size() && startsWith(name, prefix.c_str()) &&
         std::isupper(static_cast<unsigned char>(name[prefix.size()]));
}

// Whole families of names of the OpenCL, CUDA and OpenMP libraries (clFinish,
// CL_SUCCESS, cl_mem, cudaStream_t, CUresult, omp_lock_t, ...), left out of
// LibraryNames.cpp, and the generated code's own namespace (mdh_add,
// MDH_FN, MdhClState).
bool hasReservedPrefix(const std::string &name) {
  for (const char *prefix : {"cl_", "CL_", "CLK_", "cuda", "CUDA", "CU_", "omp_", "OMP_", "GOMP_", "nvrtc", "atomic_",
                             "mdh_", "MDH_", "Mdh"})
    if (startsWith(name, prefix)) return true;
  return startsWithUpperAfter(name, "cl") || startsWithUpperAfter(name, "cu") || startsWithUpperAfter(name, "CU");
}

// Names C and C++ reserve to the implementation in every scope: `__x`, `_X`.
bool implementationReserved(const std::string &name) {
  return name.size() > 1 && name[0] == '_' && (name[1] == '_' || std::isupper(static_cast<unsigned char>(name[1])));
}

// OpenCL and CUDA vector type names: char2, uint16, float4, half8, longlong1, ...
bool isVectorTypeName(const std::string &name) {
  static const char *bases[] = {"char", "uchar", "short", "ushort", "int", "uint", "long", "ulong", "longlong", "ulonglong",
                                "float", "double", "half"};
  for (const char *b : bases) {
    std::string s(b);
    if (name.size() <= s.size() || name.compare(0, s.size(), s) != 0) continue;
    std::string n = name.substr(s.size());
    if (n == "1" || n == "2" || n == "3" || n == "4" || n == "8" || n == "16") return true;
  }
  return false;
}

bool isIdentifier(const std::string &s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  for (char c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  return true;
}

std::string lengthPrefixed(const std::string &name) { return std::to_string(name.size()) + name; }

// An entry symbol is called by name from functions whose parameters are
// `sizes`, `buffers`, `sz_<size>`, `in_<buffer>` and `out_<buffer>` (the
// generic entry, the host entries, CUDA launches of `<symbol>_tile`, ...): a
// symbol shaped like those would be shadowed.
bool shadowedByParameters(const std::string &name) {
  return name == "sizes" || name == "buffers" || startsWith(name, "sz_") || startsWith(name, "in_") || startsWith(name, "out_");
}

} // namespace

bool isReservedWord(const std::string &name) { return reservedWords().count(name) || isVectorTypeName(name); }

bool isReservedMember(const std::string &name) {
  return isReservedWord(name) || implementationReserved(name) || hasReservedPrefix(name) || isLibraryMacro(name);
}

bool isReservedSymbol(const std::string &name) {
  return isReservedMember(name) || startsWith(name, "_") || builtinFunctions().count(name) || isLibraryGlobal(name) ||
         shadowedByParameters(name);
}

std::string typeCode(const Type &t) {
  switch (t.kind) {
  case Type::Kind::Record: return "r" + lengthPrefixed(t.record ? t.record->name : std::string());
  case Type::Kind::Tuple: {
    std::string s = "t" + std::to_string(t.elems.size());
    for (const auto &e : t.elems) s += "_" + typeCode(e);
    return s;
  }
  default: return t.str(); // f32, i64, bool: letters then digits, never `r` or `t` first
  }
}

std::string cType(const Type &t) {
  if (t.kind == Type::Kind::Record || t.kind == Type::Kind::Tuple) return "mdh_" + typeCode(t);
  return t.cName();
}

std::string implFieldName(const RecordInfo &r, size_t i) { return "_" + std::to_string(i) + "_" + r.fields[i].name; }

std::string functionCode(const hl::ScalarFunction &f) {
  // A user function's instance is named `<source name>` plus `_<type>` per
  // type argument; the length prefix makes the split unambiguous.
  const std::string &s = f.sourceName;
  bool user = isIdentifier(s) && startsWith(f.name, s.c_str()) && (f.name.size() == s.size() || f.name[s.size()] == '_');
  return user ? lengthPrefixed(s) + f.name.substr(s.size()) : f.name;
}

std::string headerFieldName(const std::string &name) { return isReservedMember(name) ? "mdh_field_" + name : name; }

std::string headerRecordName(const std::string &name, const std::vector<std::string> &headerSymbols) {
  bool taken = isReservedSymbol(name);
  for (const auto &s : headerSymbols) taken |= s == name;
  return taken ? "mdh_record_" + name : name;
}

std::string defaultSymbol(const hl::Program &p) {
  return isReservedSymbol(p.instanceName) ? "mdh_entry_" + p.instanceName : p.instanceName;
}

} // namespace mdh::codegen
