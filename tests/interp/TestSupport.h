/** \file
 * Helpers for the interpreter tests: compile an example (or inline source)
 * and instantiate an entry, build input buffers from C++ values, read
 * output buffers back as C++ values.  Expected results in the tests are
 * always computed by plain loops here, never by the interpreter.
 */
#pragma once

#include "data/BufferData.h"
#include "driver/Compilation.h"
#include "hl/HLIR.h"
#include "interp/Interpreter.h"

#include <doctest/doctest.h>

#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace mdh::test {

/// A compilation kept alive together with the program instantiated from it.
struct Instance {
  std::unique_ptr<Compilation> comp;
  std::unique_ptr<hl::Program> prog;
  const hl::Program &operator*() const { return *prog; }
  const hl::Buffer &input(const std::string &name) const {
    for (const auto &b : prog->inputs)
      if (b.name == name) return b;
    FAIL("no input " << name);
    return prog->inputs[0];
  }
  const hl::Buffer &output(const std::string &name) const {
    for (const auto &b : prog->outputs)
      if (b.name == name) return b;
    FAIL("no output " << name);
    return prog->outputs[0];
  }
};

inline std::string diagnosticsText(Compilation &c) {
  std::string s;
  for (const auto &d : c.diags().all()) s += renderDiagnostic(c.sources(), d);
  return s;
}

inline Instance instantiateFrom(std::unique_ptr<Compilation> comp, const std::string &entry, const MetaSettings &settings) {
  comp->analyze();
  INFO(diagnosticsText(*comp));
  REQUIRE_FALSE(comp->diags().hasErrors());
  Instance inst;
  inst.prog = comp->sema().instantiate(entry, settings);
  INFO(diagnosticsText(*comp));
  REQUIRE(inst.prog != nullptr);
  inst.comp = std::move(comp);
  return inst;
}

/// `example` is a file name in examples/, e.g. "matvec.mdh".
inline Instance example(const std::string &file, const std::string &entry, const MetaSettings &settings = {}) {
  auto comp = std::make_unique<Compilation>();
  REQUIRE(comp->addFile(std::string(MDH_TEST_SOURCE_DIR) + "/examples/" + file) != nullptr);
  return instantiateFrom(std::move(comp), entry, settings);
}

inline Instance source(const std::string &text, const std::string &entry, const MetaSettings &settings = {}) {
  auto comp = std::make_unique<Compilation>();
  REQUIRE(comp->addSource(std::string(MDH_TEST_SOURCE_DIR) + "/tests/interp/inline.mdh", text) != nullptr);
  return instantiateFrom(std::move(comp), entry, settings);
}

/// A buffer of element type `elem` whose elements are C++ values of type T.
template <class T> data::BufferData buffer(const Type &elem, std::vector<int64_t> shape, const std::vector<T> &values) {
  data::BufferData b;
  b.elem = elem;
  b.shape = std::move(shape);
  REQUIRE(sizeof(T) == elem.size());
  REQUIRE(values.size() == b.elementCount());
  b.bytes.resize(values.size() * sizeof(T));
  if (!values.empty()) std::memcpy(b.bytes.data(), values.data(), b.bytes.size());
  return b;
}

/// The same with values generated from the linear index.
template <class T>
data::BufferData generated(const Type &elem, std::vector<int64_t> shape, const std::function<T(size_t)> &value) {
  size_t n = 1;
  for (int64_t s : shape) n *= size_t(s);
  std::vector<T> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = value(i);
  return buffer<T>(elem, std::move(shape), v);
}

template <class T> std::vector<T> values(const data::BufferData &b) {
  REQUIRE(sizeof(T) == b.elementSize());
  std::vector<T> v(b.elementCount());
  if (!v.empty()) std::memcpy(v.data(), b.bytes.data(), b.bytes.size());
  return v;
}

/// Small reproducible integers in [-range, range).
inline int64_t pseudo(size_t i, uint64_t salt, int64_t range = 8) {
  uint64_t z = (i + 1) * 0x9e3779b97f4a7c15ull ^ (salt * 0xbf58476d1ce4e5b9ull);
  z ^= z >> 29;
  z *= 0x94d049bb133111ebull;
  z ^= z >> 32;
  return int64_t(z % uint64_t(2 * range)) - range;
}

inline Type prim(Type::Kind k) { return Type::prim(k); }

} // namespace mdh::test
