/** \file
 * Tables of built-in functions and keyword descriptions.
 */
#include "Builtins.h"

#include "sema/Type.h"

#include <fmt/format.h>

namespace mdh::lsp {

const std::vector<BuiltinFunction> &builtinFunctions() {
  static const std::vector<BuiltinFunction> fns = {
      {"add", "add(a: T, b: T) -> T", {"a: T", "b: T"}, "`a + b`; associative and commutative", true},
      {"mul", "mul(a: T, b: T) -> T", {"a: T", "b: T"}, "`a * b`; associative and commutative", true},
      {"max", "max(a: T, b: T) -> T", {"a: T", "b: T"},
       "maximum; for floats like C's `fmax` (a NaN operand is ignored unless both are NaN)", true},
      {"min", "min(a: T, b: T) -> T", {"a: T", "b: T"},
       "minimum; for floats like C's `fmin` (a NaN operand is ignored unless both are NaN)", true},
      {"and", "and(a: T, b: T) -> T", {"a: T", "b: T"}, "logical and on `bool`, bitwise and on integers", true},
      {"or", "or(a: T, b: T) -> T", {"a: T", "b: T"}, "logical or on `bool`, bitwise or on integers", true},
      {"xor", "xor(a: T, b: T) -> T", {"a: T", "b: T"}, "logical xor on `bool`, bitwise xor on integers", true},
      {"abs", "abs(x: T) -> T", {"x: T"}, "absolute value (wraps for the most negative signed integer)", false},
      {"sqrt", "sqrt(x: F) -> F", {"x: F"}, "square root, as C's `sqrt` at the argument's precision", false},
      {"exp", "exp(x: F) -> F", {"x: F"}, "e^x", false},
      {"exp2", "exp2(x: F) -> F", {"x: F"}, "2^x", false},
      {"log", "log(x: F) -> F", {"x: F"}, "natural logarithm", false},
      {"log2", "log2(x: F) -> F", {"x: F"}, "base-2 logarithm", false},
      {"log10", "log10(x: F) -> F", {"x: F"}, "base-10 logarithm", false},
      {"sin", "sin(x: F) -> F", {"x: F"}, "sine (radians)", false},
      {"cos", "cos(x: F) -> F", {"x: F"}, "cosine (radians)", false},
      {"tan", "tan(x: F) -> F", {"x: F"}, "tangent (radians)", false},
      {"tanh", "tanh(x: F) -> F", {"x: F"}, "hyperbolic tangent", false},
      {"floor", "floor(x: F) -> F", {"x: F"}, "round toward -inf", false},
      {"ceil", "ceil(x: F) -> F", {"x: F"}, "round toward +inf", false},
      {"round", "round(x: F) -> F", {"x: F"}, "round half away from zero", false},
      {"trunc", "trunc(x: F) -> F", {"x: F"}, "round toward zero", false},
      {"pow", "pow(x: F, y: F) -> F", {"x: F", "y: F"}, "x^y", false},
      {"fma", "fma(a: F, b: F, c: F) -> F", {"a: F", "b: F", "c: F"}, "`a*b + c` with one rounding", false},
  };
  return fns;
}

const BuiltinFunction *findBuiltinFunction(const std::string &name) {
  for (const auto &f : builtinFunctions())
    if (name == f.name) return &f;
  return nullptr;
}

bool isBuiltinBinaryOp(const std::string &name) {
  const BuiltinFunction *f = findBuiltinFunction(name);
  return f && f->binaryOp;
}

std::string describePrimitiveType(const std::string &name) {
  Type t = primitiveByName(name);
  if (t.isError()) return "";
  if (name == "idx") return "MDA index: the same type as `i64` (8 bytes); leading `idx` parameters of a scalar "
                            "function receive the MDA indices";
  if (name == "bool") return "`true` / `false` (1 byte)";
  std::string what = t.isFloat() ? "IEEE-754 binary" + std::to_string(t.bits())
                     : t.isSigned() ? "signed two's-complement integer"
                                    : "unsigned integer";
  return fmt::format("{}, {} byte{}", what, t.size(), t.size() == 1 ? "" : "s");
}

const std::vector<std::string> &contextualWords() {
  static const std::vector<std::string> words = {"o", "pw", "ps", "type", "size"};
  return words;
}

std::string describeKeyword(const std::string &w) {
  static const std::vector<std::pair<std::string, std::string>> docs = {
      {"import", "`import a.b;` loads `a/b.mdh` from the importing file's directory, the `-I` directories or the "
                 "standard library, and makes its declarations visible"},
      {"fn", "a scalar function: `fn name<T: type>(x: T, ...) -> T { ... }` or `= expr;`"},
      {"record", "a record (named product) type: `record R { field: type, ... }`, C layout"},
      {"combine", "a named combine operator: `combine name = ++ | pw(op) | ps(op);`"},
      {"view", "a named input or output view: `view name<...> = inp_view<...>(...);`"},
      {"mdh", "a multi-dimensional homomorphism: `out_view<..>(..) o md_hom<N1..ND>(f, (⊛1..⊛D)) o "
              "inp_view<..>(..)`, or an instance `mdh a = b<...>;`"},
      {"md_hom", "`md_hom<N1, ..., ND>(f, (⊛1, ..., ⊛D))`: applies the scalar function `f` to every element of "
                 "the N1×…×ND MDA and combines the results dimension by dimension"},
      {"inp_view", "`inp_view<T1, ...>(A: (i, ...) -> (...), ...)`: builds the MDA from the input buffers; "
                   "buffer shapes are derived from the index functions"},
      {"out_view", "`out_view<T, ...>(C: (i, ...) -> (...), ...)`: writes the output MDA to the output "
                   "buffers; point-wise (reduced) dimensions have the single index 0"},
      {"let", "`let [mut] name [: type] = expr;` declares a local"},
      {"mut", "makes a `let` local assignable"},
      {"if", "`if (cond) { ... } else { ... }`"},
      {"else", "the alternative branch of an `if`"},
      {"return", "`return expr;` ends the scalar function with a value"},
      {"as", "`expr as type`: explicit conversion (there are no implicit conversions)"},
      {"true", "the `bool` value true"},
      {"false", "the `bool` value false"},
      {"o", "the composition operator between the stages of an `mdh` (also written `∘`)"},
      {"∘", "the composition operator between the stages of an `mdh` (also written `o`)"},
      {"pw", "`pw(op)`: point-wise combine operator; the dimension collapses to the single index 0"},
      {"ps", "`ps(op)`: prefix-sum combine operator (inclusive scan in ascending index order); the dimension "
             "is kept"},
      {"++", "`++`: concatenation; the dimension keeps its index set"},
      {"type", "meta-parameter kind: a scalar type"},
      {"size", "meta-parameter kind: a positive integer size"},
  };
  for (const auto &[k, v] : docs)
    if (k == w) return v;
  return "";
}

} // namespace mdh::lsp
