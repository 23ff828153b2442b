/** \file
 * Recursive-descent parser for the Python literal subset of `.npy` headers.
 */
#include "data/PyLiteral.h"

#include <fmt/format.h>

namespace mdh::data {

const PyValue *PyValue::get(const std::string &key) const {
  for (const auto &[k, v] : dict)
    if (k == key) return &v;
  return nullptr;
}

std::string PyValue::repr() const {
  switch (kind) {
  case Kind::None: return "None";
  case Kind::Bool: return boolean ? "True" : "False";
  case Kind::Int: return std::to_string(integer);
  case Kind::Str: return "'" + text + "'";
  case Kind::List:
  case Kind::Tuple: {
    std::string s = kind == Kind::List ? "[" : "(";
    for (size_t i = 0; i < items.size(); ++i) s += (i ? ", " : "") + items[i].repr();
    if (kind == Kind::Tuple && items.size() == 1) s += ",";
    return s + (kind == Kind::List ? "]" : ")");
  }
  case Kind::Dict: {
    std::string s = "{";
    for (size_t i = 0; i < dict.size(); ++i) s += (i ? ", '" : "'") + dict[i].first + "': " + dict[i].second.repr();
    return s + "}";
  }
  }
  return "?";
}

namespace {

class Parser {
public:
  explicit Parser(std::string_view t) : t_(t) {}

  bool parseAll(PyValue &out, std::string &error) {
    if (!value(out, 0)) {
      error = error_;
      return false;
    }
    skipSpace();
    if (pos_ != t_.size()) {
      error = fmt::format("unexpected text after the literal at offset {}", pos_);
      return false;
    }
    return true;
  }

private:
  std::string_view t_;
  size_t pos_ = 0;
  std::string error_;
  static constexpr int kMaxDepth = 64;

  bool fail(const std::string &what) {
    if (error_.empty()) error_ = fmt::format("{} at offset {}", what, pos_);
    return false;
  }
  void skipSpace() {
    while (pos_ < t_.size() && (t_[pos_] == ' ' || t_[pos_] == '\t' || t_[pos_] == '\n' || t_[pos_] == '\r')) ++pos_;
  }
  bool peek(char c) {
    skipSpace();
    return pos_ < t_.size() && t_[pos_] == c;
  }
  bool word(std::string_view w) {
    if (t_.substr(pos_, w.size()) != w) return false;
    pos_ += w.size();
    return true;
  }

  bool value(PyValue &out, int depth) {
    if (depth > kMaxDepth) return fail("literal nested too deeply");
    skipSpace();
    if (pos_ >= t_.size()) return fail("unexpected end of text");
    char c = t_[pos_];
    if (c == '\'' || c == '"') return string(out);
    if (c == '{') return dict(out, depth);
    if (c == '[' || c == '(') return sequence(out, depth);
    if (c == '-' || (c >= '0' && c <= '9')) return integer(out);
    if (word("True")) { out.kind = PyValue::Kind::Bool; out.boolean = true; return true; }
    if (word("False")) { out.kind = PyValue::Kind::Bool; out.boolean = false; return true; }
    if (word("None")) { out.kind = PyValue::Kind::None; return true; }
    return fail(fmt::format("unexpected character `{}`", c));
  }

  bool string(PyValue &out) {
    char quote = t_[pos_++];
    out.kind = PyValue::Kind::Str;
    while (pos_ < t_.size() && t_[pos_] != quote) {
      if (t_[pos_] == '\\' && pos_ + 1 < t_.size()) ++pos_;
      out.text += t_[pos_++];
    }
    if (pos_ >= t_.size()) return fail("unterminated string");
    ++pos_;
    return true;
  }

  bool integer(PyValue &out) {
    bool neg = t_[pos_] == '-';
    if (neg) ++pos_;
    size_t start = pos_;
    uint64_t v = 0;
    while (pos_ < t_.size() && t_[pos_] >= '0' && t_[pos_] <= '9') {
      if (v > (uint64_t(INT64_MAX) - 9) / 10) return fail("integer too large");
      v = v * 10 + uint64_t(t_[pos_++] - '0');
    }
    if (pos_ == start) return fail("expected digits");
    if (pos_ < t_.size() && t_[pos_] == 'L') ++pos_; // Python 2 long suffix in old files
    out.kind = PyValue::Kind::Int;
    out.integer = neg ? -int64_t(v) : int64_t(v);
    return true;
  }

  bool sequence(PyValue &out, int depth) {
    char open = t_[pos_++];
    char close = open == '[' ? ']' : ')';
    out.kind = open == '[' ? PyValue::Kind::List : PyValue::Kind::Tuple;
    while (true) {
      if (peek(close)) { ++pos_; return true; }
      PyValue item;
      if (!value(item, depth + 1)) return false;
      out.items.push_back(std::move(item));
      if (peek(',')) { ++pos_; continue; }
      if (peek(close)) { ++pos_; return true; }
      return fail(fmt::format("expected `,` or `{}`", close));
    }
  }

  bool dict(PyValue &out, int depth) {
    ++pos_;
    out.kind = PyValue::Kind::Dict;
    while (true) {
      if (peek('}')) { ++pos_; return true; }
      PyValue key;
      if (!value(key, depth + 1)) return false;
      if (key.kind != PyValue::Kind::Str) return fail("dictionary keys must be strings");
      // Python keeps the last of equal keys, a lookup here the first: refuse the
      // ambiguity rather than read another dtype than NumPy would.
      for (const auto &[k, v] : out.dict)
        if (k == key.text) return fail(fmt::format("the key '{}' is given twice", key.text));
      if (!peek(':')) return fail("expected `:`");
      ++pos_;
      PyValue v;
      if (!value(v, depth + 1)) return false;
      out.dict.emplace_back(key.text, std::move(v));
      if (peek(',')) { ++pos_; continue; }
      if (peek('}')) { ++pos_; return true; }
      return fail("expected `,` or `}`");
    }
  }
};

} // namespace

bool parsePyLiteral(std::string_view text, PyValue &out, std::string &error) {
  out = PyValue();
  return Parser(text).parseAll(out, error);
}

} // namespace mdh::data
