/** \file
 * The abstract syntax tree of a .mdh module.
 *
 * The AST mirrors the surface syntax one to one (nothing is resolved or
 * desugared here), so that printing it back gives an equivalent program
 * (`--emit=hl` / `mdhc fmt`) and the language server can map every node to
 * its text.  Invariants: every node carries the source range it was built
 * from; a node built from a syntactically broken region is still well formed
 * (missing identifiers are empty strings, missing expressions are `Error`
 * nodes), so sema can run on partial trees after parse errors.  Nodes own
 * their children through unique_ptr/values; there is no sharing.
 */
#pragma once

#include "support/Source.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mdh::ast {

struct Ident {
  std::string name;
  SourceRange range;
  bool empty() const { return name.empty(); }
};

// ---- types ------------------------------------------------------------------
struct TypeRef {
  enum class Kind { Named, Tuple, Unit, Error };
  Kind kind = Kind::Error;
  Ident name;                 ///< Named
  std::vector<TypeRef> elems; ///< Tuple
  SourceRange range;
};

// ---- size expressions ---------------------------------------------------------
struct SizeExpr;
using SizeExprPtr = std::unique_ptr<SizeExpr>;
struct SizeExpr {
  enum class Kind { Int, Name, Add, Sub, Mul, Div, Mod, Error };
  Kind kind = Kind::Error;
  int64_t value = 0; ///< Int
  Ident name;        ///< Name
  SizeExprPtr lhs, rhs;
  SourceRange range;
  SizeExprPtr clone() const;
};

// ---- meta-parameters and arguments ------------------------------------------------
struct MetaParam {
  Ident name;
  Ident kind; ///< `type` or `size` (checked by sema)
  SourceRange range;
};

/// A meta-argument as written.  A bare name parses as a Type and is
/// reinterpreted by sema when it names a size parameter.
struct MetaArg {
  enum class Kind { Dynamic, Type, Size };
  Kind kind = Kind::Dynamic;
  TypeRef type;
  SizeExprPtr size;
  SourceRange range;
  MetaArg clone() const;
};

// ---- expressions --------------------------------------------------------------------
enum class UnaryOp { Neg, Not, BitNot };
enum class BinaryOp { Mul, Div, Mod, Add, Sub, Shl, Shr, Lt, Le, Gt, Ge, Eq, Ne, BitAnd, BitXor, BitOr, And, Or };
const char *spelling(UnaryOp op);
const char *spelling(BinaryOp op);
int precedence(BinaryOp op); ///< higher binds tighter

struct Expr;
using ExprPtr = std::unique_ptr<Expr>;

struct FieldInit {
  Ident name;
  ExprPtr value;
};

/// A tagged union: which fields are meaningful depends on `kind`.
struct Expr {
  enum class Kind { Int, Float, Bool, Name, Unary, Binary, Cond, Cast, Call, Field, Tuple, Record, Error };
  Kind kind = Kind::Error;
  SourceRange range;
  std::string text;             ///< literal spelling (Int, Float)
  uint64_t intValue = 0;        ///< Int (saturates; `intOverflow` set when the literal does not fit u64)
  bool intOverflow = false;
  double floatValue = 0;        ///< Float
  bool boolValue = false;       ///< Bool
  Ident name;                   ///< Name, Call (callee), Field (field name or index), Record (type)
  UnaryOp unaryOp = UnaryOp::Neg;
  BinaryOp binaryOp = BinaryOp::Add;
  std::vector<ExprPtr> operands; ///< Unary 1, Binary 2, Cond 3, Cast 1, Call args, Field 1, Tuple elems
  TypeRef castType;             ///< Cast
  std::vector<FieldInit> fields; ///< Record
};

// ---- statements -----------------------------------------------------------------------
struct Stmt;
using StmtPtr = std::unique_ptr<Stmt>;
struct Stmt {
  enum class Kind { Let, Assign, If, Return, Block, Error };
  Kind kind = Kind::Error;
  SourceRange range;
  Ident name;                   ///< Let, Assign
  bool isMutable = false;       ///< Let
  std::optional<TypeRef> declaredType; ///< Let
  std::string assignOp = "=";   ///< Assign: = += -= *= /=
  ExprPtr value;                ///< Let, Assign, Return, If (condition)
  std::vector<StmtPtr> body;    ///< Block; If: then-branch statements
  std::vector<StmtPtr> elseBody; ///< If
  bool hasElse = false;
  /// If: where the then-branch's block ends (after its `}`); 0 when unknown.  The
  /// formatter keeps a comment inside `else { /* c */ ... }` out of the then-branch.
  uint32_t thenEnd = 0;
  /// Error (a statement with a syntax error that is not checked): the names in its
  /// text, which it may have meant to declare; later uses of them report nothing.
  std::vector<Ident> damagedNames;
};

// ---- combine operators ------------------------------------------------------------------
/// The binary operator inside pw(...)/ps(...).
struct OpRef {
  enum class Kind { Symbol, Named, Tuple, Error };
  Kind kind = Kind::Error;
  std::string symbol; ///< Symbol: + * & | ^ && ||
  Ident name;         ///< Named
  bool hasMetaArgs = false;
  std::vector<MetaArg> metaArgs;
  std::vector<OpRef> elems; ///< Tuple
  SourceRange range;
  OpRef clone() const;
};

struct CombineOp {
  enum class Kind { Concat, PointWise, PrefixSum, Named, Error };
  Kind kind = Kind::Error;
  OpRef op;            ///< PointWise, PrefixSum (a bare symbol `+` is PointWise with `symbolShorthand`)
  bool symbolShorthand = false;
  Ident name;          ///< Named (a `combine` declaration); PointWise/PrefixSum: the builder word
  bool hasMetaArgs = false;
  std::vector<MetaArg> metaArgs;
  SourceRange range;
  CombineOp clone() const;
};

// ---- views and md_hom ----------------------------------------------------------------------
struct IndexFn {
  std::vector<Ident> params;
  std::vector<ExprPtr> results;
  SourceRange range;
};

struct BufferView {
  Ident name;
  bool hasShape = false;
  std::vector<SizeExprPtr> shape;
  std::vector<IndexFn> accesses;
  SourceRange range;
};

struct ScalarFnRef {
  bool isSymbol = false;
  std::string symbol; ///< `*`, `+`, ...
  Ident name;
  bool hasMetaArgs = false;
  std::vector<MetaArg> metaArgs;
  SourceRange range;
};

struct Stage {
  enum class Kind { InpView, OutView, MdHom, Ref, Error };
  Kind kind = Kind::Error;
  Ident name; ///< Ref: the view or mdh referenced
  bool hasMetaArgs = false;
  std::vector<MetaArg> metaArgs;
  std::vector<BufferView> buffers; ///< views
  ScalarFnRef fn;                  ///< MdHom
  std::vector<CombineOp> ops;      ///< MdHom
  SourceRange range;
};

// ---- declarations ------------------------------------------------------------------------------
struct Param {
  Ident name;
  TypeRef type;
  SourceRange range;
};

struct Field {
  Ident name;
  TypeRef type;
  SourceRange range;
};

struct Decl {
  enum class Kind { Fn, Record, Combine, View, Mdh };
  explicit Decl(Kind k) : kind(k) {}
  virtual ~Decl() = default;
  Kind kind;
  Ident name;
  std::vector<MetaParam> metaParams;
  bool hasMetaParams = false;
  std::string doc;      ///< text of the `///` comments right before the declaration
  SourceRange range;

  template <class T> T *as() { return kind == T::kKind ? static_cast<T *>(this) : nullptr; }
  template <class T> const T *as() const { return kind == T::kKind ? static_cast<const T *>(this) : nullptr; }
};

struct FnDecl : Decl {
  static constexpr Kind kKind = Kind::Fn;
  FnDecl() : Decl(kKind) {}
  std::vector<Ident> attributes; ///< @assoc @comm
  std::vector<Param> params;
  std::optional<TypeRef> result;
  bool exprBody = false;         ///< `= expr;` form: body holds one Return
  /// A syntax error cut the declaration off before its body (`fn f(` at the
  /// end of a file): sema says nothing about the missing body or result.
  bool bodyMissing = false;
  /// A syntax error inside the body (an unclosed `{`, a broken statement): what
  /// recovery kept is checked for names and types, not for flow (E0306, W0301).
  bool bodyDamaged = false;
  std::vector<StmtPtr> body;
  bool hasAttribute(const std::string &a) const;
};

struct RecordDecl : Decl {
  static constexpr Kind kKind = Kind::Record;
  RecordDecl() : Decl(kKind) {}
  std::vector<Field> fields;
};

struct CombineDecl : Decl {
  static constexpr Kind kKind = Kind::Combine;
  CombineDecl() : Decl(kKind) {}
  CombineOp op;
};

struct ViewDecl : Decl {
  static constexpr Kind kKind = Kind::View;
  ViewDecl() : Decl(kKind) {}
  Stage stage;
};

struct MdhDecl : Decl {
  static constexpr Kind kKind = Kind::Mdh;
  MdhDecl() : Decl(kKind) {}
  std::vector<Stage> stages; ///< in source order: out_view, md_hom, inp_view (or one Ref)
  std::vector<SourceRange> composeOps;
};

struct Import {
  std::vector<Ident> path;
  SourceRange range;
  std::string dotted() const;
};

struct Comment {
  SourceRange range;
  std::string text;
  bool isDoc = false;
};

struct Module {
  FileId file = kNoFile;
  std::vector<Import> imports;
  std::vector<std::unique_ptr<Decl>> decls;
  std::vector<Comment> comments; ///< every comment, in source order
  /// Order of imports and decls as written: (isImport, index).
  std::vector<std::pair<bool, size_t>> order;
  /// Where the parser gave up on the file (E0009): nothing at or after this
  /// code point is reported, by the parser or by sema.
  uint32_t givenUpAt = UINT32_MAX;
};

} // namespace mdh::ast
