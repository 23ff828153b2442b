/** \file
 * Parsing, printing and comparing NumPy dtypes; the MDH type -> dtype map.
 */
#include "data/NumpyDtype.h"

#include <fmt/format.h>

namespace mdh::data {

namespace {

std::string scalarName(const NumpyDtype &d) {
  switch (d.code) {
  case 'b': return "bool";
  case 'i': return fmt::format("int{}", d.itemsize * 8);
  case 'u': return fmt::format("uint{}", d.itemsize * 8);
  case 'f': return fmt::format("float{}", d.itemsize * 8);
  case 'V': return fmt::format("void{}", d.itemsize * 8);
  }
  return "?";
}

bool parseScalarDescr(const std::string &s, NumpyDtype &out, std::string &error) {
  if (s.size() < 2) {
    error = fmt::format("unsupported dtype `{}`", s);
    return false;
  }
  size_t p = 0;
  char order = '|';
  if (s[0] == '<' || s[0] == '>' || s[0] == '|' || s[0] == '=') order = s[p++];
  char code = s[p++];
  std::string digits = s.substr(p);
  if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos || digits.size() > 6) {
    error = fmt::format("unsupported dtype `{}`", s);
    return false;
  }
  size_t size = std::stoul(digits);
  out = NumpyDtype();
  out.byteOrder = order;
  out.itemsize = size;
  if (code == '?') code = 'b';
  bool ok = false;
  switch (code) {
  case 'b': ok = size == 1; out.kind = NumpyDtype::Kind::Scalar; break;
  case 'i':
  case 'u': ok = size == 1 || size == 2 || size == 4 || size == 8; out.kind = NumpyDtype::Kind::Scalar; break;
  case 'f': ok = size == 4 || size == 8; out.kind = NumpyDtype::Kind::Scalar; break;
  case 'V': ok = size > 0; out.kind = NumpyDtype::Kind::Padding; break;
  default: ok = false;
  }
  out.code = code;
  if (!ok) {
    const char *what = code == 'f'   ? "this float width"
                       : code == 'c' ? "complex numbers"
                       : code == 'U' || code == 'S' ? "strings"
                       : code == 'O' ? "Python objects"
                       : code == 'M' || code == 'm' ? "dates and times"
                                                    : "this dtype";
    error = fmt::format("dtype `{}` is not supported: mdh buffers cannot hold {}", s, what);
    return false;
  }
  if (size == 1) out.byteOrder = '|';
  if (out.byteOrder == '=') out.byteOrder = '<'; // every supported host is little-endian
  return true;
}

std::string quote(const std::string &s) { return "'" + s + "'"; }

} // namespace

std::string NumpyDtype::descr() const {
  if (kind != Kind::Struct) return quote(fmt::format("{}{}{}", byteOrder, code, itemsize));
  std::string s = "[";
  for (size_t i = 0; i < fields.size(); ++i) {
    if (i) s += ", ";
    s += "(" + quote(fields[i].name) + ", " + fields[i].type.descr() + ")";
  }
  return s + "]";
}

namespace {
/// The field list of `python()`, without padding (nested structs as nested lists).
std::string alignedSpec(const NumpyDtype &d) {
  if (d.kind != NumpyDtype::Kind::Struct) return quote(fmt::format("{}{}{}", d.byteOrder, d.code, d.itemsize));
  std::vector<std::string> parts;
  for (const auto &f : d.fields)
    if (f.type.kind != NumpyDtype::Kind::Padding) parts.push_back("(" + quote(f.name) + ", " + alignedSpec(f.type) + ")");
  return fmt::format("[{}]", fmt::join(parts, ", "));
}
} // namespace

std::string NumpyDtype::python() const {
  if (kind != Kind::Struct) return fmt::format("np.dtype({})", alignedSpec(*this));
  return fmt::format("np.dtype({}, align=True)", alignedSpec(*this));
}

std::string NumpyDtype::str() const {
  if (kind != Kind::Struct) {
    std::string n = scalarName(*this);
    return byteOrder == '>' ? n + " (big-endian)" : n;
  }
  std::vector<std::string> parts;
  for (const auto &f : fields)
    if (f.type.kind != Kind::Padding) parts.push_back(fmt::format("{}: {} @{}", f.name, f.type.str(), f.offset));
  return fmt::format("{{{}}} ({} bytes)", fmt::join(parts, ", "), itemsize);
}

bool dtypeFromDescr(const PyValue &descr, NumpyDtype &out, std::string &error) {
  if (descr.kind == PyValue::Kind::Str) return parseScalarDescr(descr.text, out, error);
  if (descr.kind != PyValue::Kind::List) {
    error = fmt::format("unsupported dtype description {}", descr.repr());
    return false;
  }
  out = NumpyDtype();
  out.kind = NumpyDtype::Kind::Struct;
  size_t offset = 0;
  for (const auto &entry : descr.items) {
    if (entry.kind != PyValue::Kind::Tuple || entry.items.size() < 2) {
      error = fmt::format("malformed field {} in a structured dtype", entry.repr());
      return false;
    }
    if (entry.items.size() > 2) {
      error = fmt::format("field {} has a sub-array shape; mdh records cannot hold arrays", entry.items[0].repr());
      return false;
    }
    NumpyDtype::Field f;
    const PyValue &name = entry.items[0];
    if (name.kind == PyValue::Kind::Str) f.name = name.text;
    else if (name.kind == PyValue::Kind::Tuple && name.items.size() == 2 && name.items[1].kind == PyValue::Kind::Str)
      f.name = name.items[1].text; // (title, name)
    else {
      error = fmt::format("malformed field name {}", name.repr());
      return false;
    }
    if (!dtypeFromDescr(entry.items[1], f.type, error)) return false;
    f.offset = offset;
    offset += f.type.itemsize;
    out.fields.push_back(std::move(f));
  }
  out.itemsize = offset;
  return true;
}

NumpyDtype dtypeOfType(const Type &t) {
  NumpyDtype d;
  if (t.isPrimitive()) {
    d.kind = NumpyDtype::Kind::Scalar;
    d.itemsize = t.size();
    d.code = t.kind == Type::Kind::Bool ? 'b' : t.isFloat() ? 'f' : t.isSigned() ? 'i' : 'u';
    d.byteOrder = d.itemsize == 1 ? '|' : '<';
    return d;
  }
  d.kind = NumpyDtype::Kind::Struct;
  std::vector<std::pair<std::string, Type>> members;
  if (t.kind == Type::Kind::Record)
    for (const auto &f : t.record->fields) members.push_back({f.name, f.type});
  else
    for (size_t i = 0; i < t.elems.size(); ++i) members.push_back({fmt::format("f{}", i), t.elems[i]});
  auto pad = [&](size_t upTo) {
    size_t end = d.fields.empty() ? 0 : d.fields.back().offset + d.fields.back().type.itemsize;
    if (upTo <= end) return;
    NumpyDtype::Field p;
    p.type.kind = NumpyDtype::Kind::Padding;
    p.type.code = 'V';
    p.type.itemsize = upTo - end;
    p.offset = end;
    d.fields.push_back(p);
  };
  size_t offset = 0;
  for (const auto &[name, type] : members) {
    size_t a = std::max<size_t>(1, type.align());
    offset = (offset + a - 1) / a * a;
    pad(offset);
    NumpyDtype::Field f;
    f.name = name;
    f.type = dtypeOfType(type);
    f.offset = offset;
    d.fields.push_back(std::move(f));
    offset += type.size();
  }
  d.itemsize = t.size();
  pad(d.itemsize);
  return d;
}

bool sameLayout(const NumpyDtype &got, const NumpyDtype &want, std::string &why) {
  if (want.kind == NumpyDtype::Kind::Scalar) {
    if (got.kind != NumpyDtype::Kind::Scalar || got.code != want.code || got.itemsize != want.itemsize) {
      why = fmt::format("{} instead of {}", got.str(), want.str());
      return false;
    }
    if (got.byteOrder == '>') {
      why = fmt::format("{} is big-endian; mdh reads little-endian data (convert with `a.astype('{}')`)", got.str(),
                        want.byteOrder == '|' ? "|" : "<" + std::string(1, want.code) + std::to_string(want.itemsize));
      return false;
    }
    return true;
  }
  if (got.kind != NumpyDtype::Kind::Struct) {
    why = fmt::format("{} instead of the structured dtype {}", got.str(), want.str());
    return false;
  }
  std::vector<const NumpyDtype::Field *> g, w;
  for (const auto &f : got.fields)
    if (f.type.kind != NumpyDtype::Kind::Padding) g.push_back(&f);
  for (const auto &f : want.fields)
    if (f.type.kind != NumpyDtype::Kind::Padding) w.push_back(&f);
  if (g.size() != w.size()) {
    why = fmt::format("{} fields instead of {} (expected {})", g.size(), w.size(), want.str());
    return false;
  }
  for (size_t i = 0; i < g.size(); ++i) {
    if (g[i]->name != w[i]->name) {
      why = fmt::format("field {} is named `{}` instead of `{}`", i + 1, g[i]->name, w[i]->name);
      return false;
    }
    if (g[i]->offset != w[i]->offset) {
      why = fmt::format("field `{}` is at byte offset {} instead of {} (mdh uses the C layout: create the dtype with "
                        "`np.dtype([...], align=True)`)",
                        w[i]->name, g[i]->offset, w[i]->offset);
      return false;
    }
    std::string inner;
    if (!sameLayout(g[i]->type, w[i]->type, inner)) {
      why = fmt::format("field `{}`: {}", w[i]->name, inner);
      return false;
    }
  }
  if (got.itemsize != want.itemsize) {
    why = fmt::format("item size {} bytes instead of {} (mdh uses the C layout: create the dtype with "
                      "`np.dtype([...], align=True)`)",
                      got.itemsize, want.itemsize);
    return false;
  }
  return true;
}

} // namespace mdh::data
