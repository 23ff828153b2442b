/** \file
 * The high-level IR: one instantiated MDH expression
 * `out_view ∘ md_hom<N1..ND>(f, (⊛1..⊛D)) ∘ inp_view`.
 *
 * It is what sema produces for an entry point and instantiation, and what the
 * interpreter evaluates and the lowering consumes.  Invariants:
 *  - every type is concrete (no meta-parameters left);
 *  - sizes are SizePolys over the *dynamic* size parameters only (those the
 *    user left as `*`); all other sizes are constants;
 *  - index functions are affine: buffer index = Σ_d coeff[d]·i_d + offset;
 *    coefficients are constants once instantiated (symbolic only in the
 *    generic programs sema builds to check declarations);
 *  - the scalar function takes one parameter per MDA dimension when
 *    `usesIndices` (type i64), then one per (input buffer, access) in view
 *    order, and returns one value per (output buffer, access) — a tuple when
 *    there are several;
 *  - a combine operator's binary op maps (out elem, out elem) -> out elem.
 */
#pragma once

#include "sema/SizePoly.h"
#include "sema/Type.h"
#include "support/Source.h"

#include <memory>
#include <string>
#include <vector>

namespace mdh::hl {

// ---- scalar IR -----------------------------------------------------------------------------
enum class UnOp { Neg, Not, BitNot };
enum class BinOp { Add, Sub, Mul, Div, Mod, Shl, Shr, Lt, Le, Gt, Ge, Eq, Ne, BitAnd, BitXor, BitOr, And, Or };
enum class Builtin { Sqrt, Exp, Log, Abs, Min, Max, Pow, Floor, Ceil, Sin, Cos, Tan, Tanh, Exp2, Log2, Log10, Round, Trunc, Fma };
const char *builtinName(Builtin b);
const char *binOpSpelling(BinOp op);
/// < <= > >= == != (a bool result from operands of any one type).
bool isComparison(BinOp op);
const char *unOpSpelling(UnOp op);

struct ScalarFunction;

/// Constant scalar value (integers stored as their two's-complement bits).
struct Const {
  uint64_t bits = 0;   ///< integer / bool value, truncated to the type's width
  double fvalue = 0;   ///< float value (f32 constants are rounded to float)
};

struct SExpr;
using SExprPtr = std::unique_ptr<SExpr>;
struct SExpr {
  enum class Kind { Const, Local, Unary, Binary, Cond, Cast, Builtin, Call, Tuple, Record, Field };
  Kind kind = Kind::Const;
  Type type;
  Const value;                  ///< Const
  int slot = -1;                ///< Local
  UnOp unOp = UnOp::Neg;
  BinOp binOp = BinOp::Add;
  Builtin builtin = Builtin::Sqrt;
  const ScalarFunction *callee = nullptr; ///< Call
  int field = -1;               ///< Field: tuple element or record field index
  std::vector<SExprPtr> args;
  SourceRange range;
};

struct SStmt;
using SStmtPtr = std::unique_ptr<SStmt>;
struct SStmt {
  enum class Kind { Assign, If, Return, Block };
  Kind kind = Kind::Assign;
  int slot = -1;                 ///< Assign (let and assignment both assign a slot)
  SExprPtr value;                ///< Assign, Return, If condition
  std::vector<SStmtPtr> thenBody, elseBody; ///< If; Block uses thenBody
  SourceRange range;
};

struct ScalarFunction {
  std::string name;            ///< mangled instance name, e.g. "mul_f32"
  std::string sourceName;      ///< name in the source
  /// The type arguments of a generic function's instance, in declaration order: two instances
  /// are the same function exactly when these agree (`name` is readable, not injective).
  std::vector<Type> typeArgs;
  std::vector<Type> localTypes; ///< parameters first, then `let` locals
  std::vector<std::string> localNames;
  size_t numParams = 0;
  Type result;
  std::vector<SStmtPtr> body;
  bool assoc = false, comm = false; ///< declared via @assoc/@comm
  SourceRange range;
};

// ---- combine operators ------------------------------------------------------------------------
enum class BuiltinOp { Add, Mul, Max, Min, And, Or, Xor };
const char *builtinOpName(BuiltinOp op);

/// The binary operator ⊕ of a point-wise or prefix-sum combine operator.
struct BinaryOperator {
  enum class Kind { Builtin, User, Tuple };
  Kind kind = Kind::Builtin;
  BuiltinOp builtin = BuiltinOp::Add;
  const ScalarFunction *user = nullptr;
  std::vector<BinaryOperator> elems; ///< Tuple: component-wise
  Type type;                         ///< T of ⊕ : T × T → T
  bool assoc() const;
  bool comm() const;
  /// Whether ⊕ has an identity element usable as an accumulator's start:
  /// built-ins (float max/min ignore a NaN operand, so NaN is theirs; -inf is
  /// none: it would replace an all-NaN result), tuples of such; user operators
  /// have none.
  bool hasIdentity() const;
  std::string str() const;
  bool sameAs(const BinaryOperator &o) const;
};

struct CombineOperator {
  enum class Kind { Concat, PointWise, PrefixSum };
  Kind kind = Kind::Concat;
  BinaryOperator op; ///< PointWise, PrefixSum
  std::string str() const;
};

// ---- views --------------------------------------------------------------------------------------
/// One buffer dimension of an affine index function.
struct AffineIndex {
  std::vector<SizePoly> coeffs; ///< per MDA dimension; constants once instantiated
  SizePoly offset;
  int64_t coeff(size_t d) const { return coeffs[d].constantValue().value_or(0); }
};

struct Access {
  std::vector<AffineIndex> dims; ///< empty for a 0-D buffer
  SourceRange range;
};

struct Buffer {
  std::string name;
  Type elem;
  std::vector<SizePoly> shape; ///< derived: 1 + max of the index functions' range
  std::vector<Access> accesses;
  SourceRange range;
};

struct Program {
  std::string name;                  ///< entry name
  std::string instanceName;          ///< e.g. "matvec_f32_1024_512"
  std::vector<std::pair<std::string, std::string>> metaArgs; ///< as instantiated, for printing
  std::vector<std::string> dynamicSizes; ///< size parameters left to run time, in declaration order (the entries' leading arguments)
  std::vector<SizePoly> sizes;       ///< N_d per MDA dimension
  std::vector<std::string> dimNames; ///< index variable names from the first index function
  std::vector<CombineOperator> ops;
  const ScalarFunction *f = nullptr;
  std::string fSymbol;               ///< paper shorthand used for f ("*"), for printing
  bool usesIndices = false;
  std::vector<Buffer> inputs, outputs;
  std::vector<std::unique_ptr<ScalarFunction>> functions; ///< owns f, user ops and callees
  std::vector<std::shared_ptr<const RecordInfo>> records;  ///< every record type used
  SourceRange range;

  size_t dims() const { return sizes.size(); }
  size_t numInputAccesses() const;
  size_t numOutputAccesses() const;
  /// Output MDA index set size per dimension: 1 for point-wise dims.
  std::vector<SizePoly> outputSizes() const;
};

/// The buffers' names, quoted and comma-separated (`A`, `B`), or "none":
/// for messages that list the inputs or outputs a user may name.
std::string quotedNames(const std::vector<Buffer> &buffers);

/// Paper-notation printer: `out_view<..>(..) ∘ md_hom<..>(..) ∘ inp_view<..>(..)`
/// plus the scalar functions and derived shapes.
std::string printProgram(const Program &p);
std::string printFunction(const ScalarFunction &f);

} // namespace mdh::hl
