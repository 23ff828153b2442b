/** \file
 * Scalar types of the MDH language after name resolution.
 *
 * A Type is a small value: a primitive, a tuple of types, a record (shared,
 * immutable RecordInfo) or a type meta-parameter that is not instantiated yet
 * (only while a generic declaration is checked).  Record layout is the C
 * layout with natural alignment, fields in declaration order — identical to
 * NumPy's `np.dtype([...], align=True)` — and is computed once, when the
 * RecordInfo is created.
 */
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace mdh {

struct RecordInfo;

struct Type {
  enum class Kind { Error, Bool, I8, I16, I32, I64, U8, U16, U32, U64, F32, F64, Tuple, Record, Param, Unit };
  Kind kind = Kind::Error;
  std::vector<Type> elems;                  ///< Tuple
  std::shared_ptr<const RecordInfo> record; ///< Record
  std::string param;                        ///< Param: name of the type meta-parameter

  static Type prim(Kind k) { Type t; t.kind = k; return t; }
  static Type error() { return prim(Kind::Error); }
  static Type tuple(std::vector<Type> e);
  static Type paramType(std::string name) { Type t; t.kind = Kind::Param; t.param = std::move(name); return t; }
  static Type recordType(std::shared_ptr<const RecordInfo> r) { Type t; t.kind = Kind::Record; t.record = std::move(r); return t; }

  bool isError() const;  ///< this or any component is Error
  bool isInteger() const { return kind >= Kind::I8 && kind <= Kind::U64; }
  bool isSigned() const { return kind >= Kind::I8 && kind <= Kind::I64; }
  bool isFloat() const { return kind == Kind::F32 || kind == Kind::F64; }
  bool isNumeric() const { return isInteger() || isFloat(); }
  bool isPrimitive() const { return kind >= Kind::Bool && kind <= Kind::F64; }
  bool isParam() const { return kind == Kind::Param; }
  bool containsParam() const;
  int bits() const;       ///< primitive width in bits (bool: 8)
  size_t size() const;    ///< bytes in memory
  size_t align() const;

  std::string str() const;
  /// NumPy dtype descriptor, e.g. "<f4" or "[('a','<i8'),...]" for records.
  std::string numpyDescr() const;
  /// C type spelling for generated code ("float", "int32_t", record name).
  std::string cName() const;
};

bool operator==(const Type &a, const Type &b);
inline bool operator!=(const Type &a, const Type &b) { return !(a == b); }

struct RecordField {
  std::string name;
  Type type;
  size_t offset = 0;
};

struct RecordInfo {
  std::string name;
  std::vector<RecordField> fields;
  size_t size = 0, align = 1;
  /// Fills offsets, size and align from the field types.
  void layout();
  int fieldIndex(const std::string &n) const;
};

/// Mangled name fragment for a type (`f32`, `t_f32_i32_e`, record name).
std::string mangle(const Type &t);

/// Primitive type for a builtin name (`f32`, `i64`, `bool`, `idx`...), or Error.
Type primitiveByName(const std::string &name);
/// All builtin type names (for completion and docs).
const std::vector<std::string> &primitiveTypeNames();

} // namespace mdh
