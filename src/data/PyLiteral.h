/** \file
 * A parser for the subset of Python literals that a NumPy `.npy` header
 * uses: dicts, lists, tuples, strings, integers, True/False/None.
 *
 * Invariants: the parser never throws for malformed text (it returns false
 * and a message naming the offending position); nesting depth is bounded so
 * a hostile header cannot exhaust the stack.
 */
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace mdh::data {

struct PyValue {
  enum class Kind { None, Bool, Int, Str, List, Tuple, Dict };
  Kind kind = Kind::None;
  bool boolean = false;
  int64_t integer = 0;
  std::string text;                                   ///< Str
  std::vector<PyValue> items;                         ///< List, Tuple
  std::vector<std::pair<std::string, PyValue>> dict;  ///< Dict (string keys only)

  const PyValue *get(const std::string &key) const; ///< Dict lookup, nullptr if absent
  bool isSequence() const { return kind == Kind::List || kind == Kind::Tuple; }
  std::string repr() const;                          ///< Python-like spelling, for messages
};

/// Parses `text` as one Python literal (surrounding whitespace allowed).
bool parsePyLiteral(std::string_view text, PyValue &out, std::string &error);

} // namespace mdh::data
