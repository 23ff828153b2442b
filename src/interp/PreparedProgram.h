/** \file
 * An hl::Program made ready for evaluation: its scalar functions prepared
 * (PreparedFunction.h) and the binary operators ⊕ of its point-wise and
 * prefix-sum combine operators resolved to the leaves of the output element
 * they act on.  Nothing here depends on data or sizes, so one
 * PreparedProgram serves every run of an instance.
 *
 * The output element is f's result: one value when the output view has one
 * access, otherwise a tuple with one component per output (buffer, access)
 * in view order (docs/language.md §8.4).
 */
#pragma once

#include "hl/HLIR.h"
#include "interp/PreparedFunction.h"

#include <string>
#include <vector>

namespace mdh::interp {

/// ⊕ on output elements.  Builtin: leaf by leaf; Tuple: component by
/// component; User: a call of the user's function on whole operands.
struct PreparedOperator {
  hl::BinaryOperator::Kind kind = hl::BinaryOperator::Kind::Builtin;
  hl::BuiltinOp builtin = hl::BuiltinOp::Add;
  const PreparedFunction *user = nullptr;
  uint32_t firstLeaf = 0, leaves = 0;  ///< the part of the output element it combines
  std::vector<Type::Kind> leafKinds;   ///< Builtin
  std::vector<PreparedOperator> parts; ///< Tuple
};

class PreparedProgram {
public:
  explicit PreparedProgram(const hl::Program &p);
  PreparedProgram(const PreparedProgram &) = delete;
  PreparedProgram &operator=(const PreparedProgram &) = delete;

  const hl::Program &program() const { return prog_; }
  size_t dims() const { return prog_.dims(); }
  const PreparedFunction &scalarFunction() const { return *f_; }
  const hl::CombineOperator &combineOperator(size_t d) const { return prog_.ops[d]; }
  const PreparedOperator &binaryOperator(size_t d) const { return ops_[d]; }
  /// Leaves of an output element (f's result).
  uint32_t elementLeaves() const { return elementLeaves_; }
  /// First leaf and leaf count of output access k (flattened over buffers) in the element.
  uint32_t accessFirstLeaf(size_t k) const { return accessFirst_[k]; }
  uint32_t accessLeaves(size_t k) const { return accessLeaves_[k]; }
  /// Every function an evaluator may have to run at top level (f and user operators).
  std::vector<const PreparedFunction *> topLevelFunctions() const;
  /// Name of MDA dimension d (`i`), or `i<d+1>` when the program has none.
  std::string dimName(size_t d) const;

private:
  const hl::Program &prog_;
  PreparedFunctions functions_;
  const PreparedFunction *f_ = nullptr;
  std::vector<PreparedOperator> ops_;
  uint32_t elementLeaves_ = 0;
  std::vector<uint32_t> accessFirst_, accessLeaves_;

  PreparedOperator prepareOperator(const hl::BinaryOperator &op, const Type &t, uint32_t firstLeaf);
};

} // namespace mdh::interp
