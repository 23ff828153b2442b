/** \file
 * Type helpers: equality, printing, sizes and record layout.
 */
#include "sema/Type.h"

#include <fmt/format.h>

namespace mdh {

Type Type::tuple(std::vector<Type> e) {
  Type t;
  t.kind = Kind::Tuple;
  t.elems = std::move(e);
  return t;
}

bool Type::isError() const {
  if (kind == Kind::Error) return true;
  for (const auto &e : elems)
    if (e.isError()) return true;
  return false;
}

bool Type::containsParam() const {
  if (kind == Kind::Param) return true;
  for (const auto &e : elems)
    if (e.containsParam()) return true;
  return false;
}

int Type::bits() const {
  switch (kind) {
  case Kind::Bool: case Kind::I8: case Kind::U8: return 8;
  case Kind::I16: case Kind::U16: return 16;
  case Kind::I32: case Kind::U32: case Kind::F32: return 32;
  case Kind::I64: case Kind::U64: case Kind::F64: return 64;
  default: return 0;
  }
}

size_t Type::size() const {
  if (isPrimitive()) return size_t(bits() / 8);
  if (kind == Kind::Record) return record->size;
  if (kind == Kind::Tuple) {
    size_t off = 0, al = 1;
    for (const auto &e : elems) {
      size_t a = e.align();
      off = (off + a - 1) / a * a + e.size();
      al = std::max(al, a);
    }
    return (off + al - 1) / al * al;
  }
  return 0;
}

size_t Type::align() const {
  if (isPrimitive()) return size_t(bits() / 8);
  if (kind == Kind::Record) return record->align;
  if (kind == Kind::Tuple) {
    size_t al = 1;
    for (const auto &e : elems) al = std::max(al, e.align());
    return al;
  }
  return 1;
}

bool operator==(const Type &a, const Type &b) {
  if (a.kind != b.kind) return false;
  switch (a.kind) {
  case Type::Kind::Tuple:
    if (a.elems.size() != b.elems.size()) return false;
    for (size_t i = 0; i < a.elems.size(); ++i)
      if (a.elems[i] != b.elems[i]) return false;
    return true;
  case Type::Kind::Record: return a.record == b.record || (a.record && b.record && a.record->name == b.record->name);
  case Type::Kind::Param: return a.param == b.param;
  default: return true;
  }
}

std::string Type::str() const {
  switch (kind) {
  case Kind::Error: return "<error>";
  case Kind::Bool: return "bool";
  case Kind::I8: return "i8";
  case Kind::I16: return "i16";
  case Kind::I32: return "i32";
  case Kind::I64: return "i64";
  case Kind::U8: return "u8";
  case Kind::U16: return "u16";
  case Kind::U32: return "u32";
  case Kind::U64: return "u64";
  case Kind::F32: return "f32";
  case Kind::F64: return "f64";
  case Kind::Unit: return "()";
  case Kind::Param: return param;
  case Kind::Record: return record ? record->name : "<record>";
  case Kind::Tuple: {
    std::string s = "(";
    for (size_t i = 0; i < elems.size(); ++i) s += (i ? ", " : "") + elems[i].str();
    return s + ")";
  }
  }
  return "?";
}

std::string Type::numpyDescr() const {
  switch (kind) {
  case Kind::Bool: return "|b1";
  case Kind::I8: return "|i1";
  case Kind::U8: return "|u1";
  case Kind::I16: return "<i2";
  case Kind::U16: return "<u2";
  case Kind::I32: return "<i4";
  case Kind::U32: return "<u4";
  case Kind::I64: return "<i8";
  case Kind::U64: return "<u8";
  case Kind::F32: return "<f4";
  case Kind::F64: return "<f8";
  default: break;
  }
  return "";
}

std::string Type::cName() const {
  switch (kind) {
  case Kind::Bool: return "bool";
  case Kind::I8: return "int8_t";
  case Kind::I16: return "int16_t";
  case Kind::I32: return "int32_t";
  case Kind::I64: return "int64_t";
  case Kind::U8: return "uint8_t";
  case Kind::U16: return "uint16_t";
  case Kind::U32: return "uint32_t";
  case Kind::U64: return "uint64_t";
  case Kind::F32: return "float";
  case Kind::F64: return "double";
  case Kind::Record: return record ? record->name : "void";
  default: return "void";
  }
}

void RecordInfo::layout() {
  size_t off = 0;
  align = 1;
  for (auto &f : fields) {
    size_t a = std::max<size_t>(1, f.type.align());
    off = (off + a - 1) / a * a;
    f.offset = off;
    off += f.type.size();
    align = std::max(align, a);
  }
  size = std::max<size_t>(1, (off + align - 1) / align * align);
}

int RecordInfo::fieldIndex(const std::string &n) const {
  for (size_t i = 0; i < fields.size(); ++i)
    if (fields[i].name == n) return int(i);
  return -1;
}

Type primitiveByName(const std::string &n) {
  using K = Type::Kind;
  static const std::pair<const char *, K> table[] = {
      {"bool", K::Bool}, {"i8", K::I8}, {"i16", K::I16}, {"i32", K::I32}, {"i64", K::I64}, {"u8", K::U8},
      {"u16", K::U16}, {"u32", K::U32}, {"u64", K::U64}, {"f32", K::F32}, {"f64", K::F64}, {"idx", K::I64}};
  for (const auto &[k, v] : table)
    if (n == k) return Type::prim(v);
  return Type::error();
}

const std::vector<std::string> &primitiveTypeNames() {
  static const std::vector<std::string> names = {"bool", "i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64", "f32", "f64", "idx"};
  return names;
}

} // namespace mdh
