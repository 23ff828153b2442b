/** \file
 * The shared parts of the generated headers (see EntryHeader.h).
 */
#include "codegen/EntryHeader.h"

#include "codegen/CNames.h"
#include "codegen/ScalarC.h"

#include <fmt/format.h>

namespace mdh::codegen {
namespace {

uint64_t fnv1a(const std::string &s) {
  uint64_t h = 14695981039346656037ull;
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  return h;
}

const char *kWhy = "taken in C, C++, a library of the generated code or this header";

// Declared once for all headers: C11 spells static_assert differently.
const char *kStaticAssert = R"(#ifndef MDH_HEADER_STATIC_ASSERT
#ifdef __cplusplus
#define MDH_HEADER_STATIC_ASSERT(c, m) static_assert(c, m)
#else
#define MDH_HEADER_STATIC_ASSERT(c, m) _Static_assert(c, m)
#endif
#endif
)";

} // namespace

HeaderTypes::HeaderTypes(const hl::Program &p, std::vector<std::string> syms) : P(p), symbols(std::move(syms)) {
  for (const auto &b : p.inputs) collectAggregateTypes(b.elem, types);
  for (const auto &b : p.outputs) collectAggregateTypes(b.elem, types);
}

std::string HeaderTypes::type(const Type &t) const {
  if (t.kind == Type::Kind::Record) return headerRecordName(t.record->name, symbols);
  return cType(t); // primitives; tuples keep their mdh_t... name
}

std::string HeaderTypes::declarations() const {
  std::string out = "#include <stdint.h>\n#ifndef __cplusplus\n#include <stdbool.h>\n#endif\n";
  bool records = false;
  for (const auto &t : types) records |= t.kind == Type::Kind::Record;
  if (records) out += kStaticAssert;
  for (const auto &t : types) {
    std::string name = type(t);
    std::string body, renamed, layout = name;
    if (t.kind == Type::Kind::Record) {
      if (name != t.record->name)
        renamed += fmt::format("// record `{}` is `{}` here (renamed: {})\n", t.record->name, name, kWhy);
      for (const auto &f : t.record->fields) {
        std::string field = headerFieldName(f.name);
        if (field != f.name)
          renamed += fmt::format("// field `{}.{}` is `{}` here (renamed: {})\n", t.record->name, f.name, field, kWhy);
        // `struct Inner Inner;`: an aggregate field's type is spelled with its
        // tag, since in C++ a field named like a type changes what the name means.
        const bool aggregate = f.type.kind == Type::Kind::Record || f.type.kind == Type::Kind::Tuple;
        body += fmt::format("  {}{} {};\n", aggregate ? "struct " : "", type(f.type), field);
        layout += " " + type(f.type) + " " + field;
      }
    } else {
      for (size_t i = 0; i < t.elems.size(); ++i) {
        body += fmt::format("  {} _{};\n", type(t.elems[i]), i);
        layout += " " + type(t.elems[i]);
      }
    }
    // The guard names the type and a hash of its layout: the same type from a
    // second header is skipped, a type of the same name and another layout is
    // a redefinition, not silently the first one.
    std::string guard = fmt::format("MDH_HEADER_TYPE_{}_{:016x}", name, fnv1a(layout));
    out += fmt::format("{}#ifndef {}\n#define {}\ntypedef struct {} {{\n{}}} {};\n", renamed, guard, guard, name, body, name);
    if (t.kind == Type::Kind::Record)
      out += fmt::format("MDH_HEADER_STATIC_ASSERT(sizeof({}) == {}, \"record layout\");\n", name, t.record->size);
    out += "#endif\n";
  }
  return out;
}

std::string shapesComment(const hl::Program &p) {
  auto shapes = [&](const std::vector<hl::Buffer> &bs, const char *what) {
    std::string s;
    for (const auto &b : bs) {
      std::vector<std::string> dims;
      for (const auto &x : b.shape) dims.push_back(x.str());
      s += fmt::format("//  {} {}: {}[{}]\n", what, b.name, b.elem.str(), fmt::join(dims, ", "));
    }
    return s;
  };
  std::string h = "// Shapes:\n" + shapes(p.inputs, "input ") + shapes(p.outputs, "output");
  if (!p.dynamicSizes.empty()) h += fmt::format("// Run-time sizes (arguments first): {}\n", fmt::join(p.dynamicSizes, ", "));
  return h;
}

} // namespace mdh::codegen
