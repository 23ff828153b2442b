/** \file
 * Scalar functions of the HL IR, annotated once with the frame layout the
 * evaluator needs: where each local's leaves live, how many leaves each
 * expression produces, where temporaries go.  The tree keeps the shape of
 * the HL IR one-to-one (it is not lowered any further), so the evaluator in
 * ScalarEvaluator.h stays a direct reading of the IR.
 *
 * Frame layout of a call: [parameters][other locals][temporaries].  Field
 * accesses on locals (`z.re`, `t.0.1`) are resolved to a slice of the
 * local's leaves.  Temporaries exist for the arguments of a call (evaluated
 * before the callee's frame is set up), for the base of a field access on a
 * computed aggregate, and for aggregate assignments (so `t = (t.1, t.0)`
 * reads the old value).  Invariants: a callee's frame starts right after its
 * caller's frame; stackLeaves covers the deepest call chain (recursion is
 * rejected by sema, so it is finite).
 */
#pragma once

#include "hl/HLIR.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace mdh::interp {

struct PreparedFunction;

struct PreparedExpr {
  enum class Op { Const, Local, Unary, Binary, Cond, Cast, Builtin, Call, Aggregate, Field };
  Op op = Op::Const;
  Type::Kind kind = Type::Kind::Error;        ///< result kind of a primitive-valued expression
  Type::Kind operandKind = Type::Kind::Error; ///< Unary, Binary, Cast, Builtin: kind of the first operand
  hl::UnOp unOp = hl::UnOp::Neg;
  hl::BinOp binOp = hl::BinOp::Add;
  hl::Builtin builtin = hl::Builtin::Sqrt;
  hl::Const constant;
  uint32_t leaves = 1;   ///< leaves of the result
  uint32_t offset = 0;   ///< Local: first leaf in the frame; Field: first leaf of the field in the base
  uint32_t temp = 0;     ///< Call: arguments; Field: the evaluated base (first leaf in the frame)
  std::vector<uint32_t> partOffsets; ///< Aggregate: first leaf of each component
  const PreparedFunction *callee = nullptr;
  std::vector<PreparedExpr> args;
  SourceRange range;

  bool isPrimitive() const { return kind != Type::Kind::Error; }
};

struct PreparedStmt {
  enum class Op { Assign, If, Return, Block };
  Op op = Op::Assign;
  uint32_t offset = 0; ///< Assign: first leaf of the slot
  uint32_t leaves = 1; ///< Assign: leaves of the slot
  uint32_t temp = 0;   ///< Assign of an aggregate: staging area
  PreparedExpr value;  ///< Assign value, Return value, If condition
  std::vector<PreparedStmt> thenBody, elseBody;
  SourceRange range;
};

struct PreparedFunction {
  const hl::ScalarFunction *source = nullptr;
  std::string name;          ///< the source name, for messages
  uint32_t paramLeaves = 0;  ///< leaves of all parameters (the start of the frame)
  uint32_t resultLeaves = 0;
  uint32_t frameLeaves = 0;  ///< locals + temporaries
  size_t stackLeaves = 0;    ///< frame + the deepest chain of callee frames
  std::vector<PreparedStmt> body;
};

/// Owns the prepared form of every scalar function a program uses.
class PreparedFunctions {
public:
  const PreparedFunction &get(const hl::ScalarFunction &fn);

private:
  std::map<const hl::ScalarFunction *, std::unique_ptr<PreparedFunction>> fns_;
};

} // namespace mdh::interp
