/** \file
 * Internal state shared by the sema implementation files (not installed).
 *
 * Env maps meta-parameter names to their values during one instantiation:
 * types to Types (a Param type while generic), sizes to SizePolys (a symbol
 * while generic or dynamic).  Sema::Impl de-duplicates diagnostics so that a
 * generic declaration checked from several uses reports each problem once.
 */
#pragma once

#include "sema/Sema.h"

#include <algorithm>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

namespace mdh {

/// "function", "record", ... for messages.
const char *declKindName(ast::Decl::Kind k);

/// Names in the order they were first inserted: run-time sizes become the generated
/// entries' leading arguments, which callers pass in declaration order.
class InsertionOrderedNames {
public:
  void insert(const std::string &n) {
    if (!count(n)) names_.push_back(n);
  }
  bool count(const std::string &n) const { return std::find(names_.begin(), names_.end(), n) != names_.end(); }
  std::vector<std::string>::const_iterator begin() const { return names_.begin(); }
  std::vector<std::string>::const_iterator end() const { return names_.end(); }

private:
  std::vector<std::string> names_;
};

struct Env {
  std::map<std::string, Type> types;
  std::map<std::string, SizePoly> sizes;
  std::set<std::string> unknownKind; ///< meta-parameters of an unknown kind (E0203): neither types nor sizes
  InsertionOrderedNames dynamicSizes; ///< run-time sizes, in declaration order
  std::vector<std::string> context; ///< "while instantiating ..." notes
};

/// A help text: the "did you mean" suggestion when there is one, else `general`.
inline std::string withFallback(std::string suggestion, std::string general) {
  return suggestion.empty() ? general : suggestion;
}

struct Sema::Impl {
  const SourceManager &sm;
  DiagnosticEngine &diags;
  std::map<std::string, const ast::Decl *> scope;
  std::vector<const ast::Decl *> order;
  std::map<std::string, std::shared_ptr<RecordInfo>> records;
  std::map<std::string, std::unique_ptr<hl::Program>> generic;
  std::set<std::tuple<std::string, uint32_t, uint32_t, uint32_t, std::string>> reported;
  int instantiationDepth = 0;
  std::vector<const ast::Decl *> mdhStack;            ///< mdh declarations being instantiated
  std::set<std::set<const ast::Decl *>> reportedCycles; ///< alias cycles reported (E0610 once each)
  std::set<const ast::Decl *> inAliasCycle;           ///< members of those cycles (no note chains)
  std::set<std::string> rejectedNames;                ///< declarations refused by addModule (E0204, E0222)
  std::map<FileId, uint32_t> givenUpAt;               ///< files the parser gave up on (E0009), and where

  Impl(const SourceManager &s, DiagnosticEngine &d) : sm(s), diags(d) {}

  // ---- diagnostics --------------------------------------------------------------------
  /// Whether `r` lies where the parser gave up on its file (E0009): not reported.
  bool givenUp(const SourceRange &r) const;
  void error(const char *code, SourceRange r, std::string msg, std::string hint = {});
  void warning(const char *code, SourceRange r, std::string msg, std::string hint = {});
  void note(SourceRange r, std::string msg);
  bool lastReported = false; ///< whether the last error/warning was emitted (for notes)
  std::string didYouMean(const std::string &name, const std::vector<std::string> &candidates) const;
  /// E0214's help: the built-in spelling of another language's type name, a near name, or
  /// how to declare a type meta-parameter.
  std::string unknownTypeHint(const std::string &name, const std::vector<std::string> &candidates) const;
  std::vector<std::string> namesOfKind(ast::Decl::Kind k) const;

  // ---- declarations -----------------------------------------------------------------------
  void checkMetaParams(const ast::Decl &d);
  void checkRecord(const ast::RecordDecl &r);
  std::shared_ptr<RecordInfo> recordInfo(const std::string &name, SourceRange use);
  std::set<std::string> recordsInProgress;

  // ---- types --------------------------------------------------------------------------------
  Type resolveType(const ast::TypeRef &t, const Env &env);
  /// Whether `n` names a type here: a type meta-parameter, a built-in type or a record.
  bool isTypeName(const std::string &n, const Env &env) const;
  Env genericEnv(const ast::Decl &d) const;

  // ---- sizes --------------------------------------------------------------------------------
  std::optional<SizePoly> evalSize(const ast::SizeExpr &e, const Env &env);

  // ---- scalar functions (ScalarChecker.cpp) ---------------------------------------------------
  /// Type-checks an instance of `fn` with its type parameters bound by `typeArgs`.
  const hl::ScalarFunction *instantiateFn(const ast::FnDecl &fn, const std::map<std::string, Type> &typeArgs,
                                          hl::Program &prog, SourceRange use);
  /// Where the argument types given to bindFnTypeArgs come from, for its messages.
  struct FnArgSources {
    bool call = false;                ///< a call in a function body (takes no meta-arguments)
    std::vector<std::string> buffers; ///< md_hom's f: the input buffer of each argument ("" for `idx`)
  };
  /// Binds `fn`'s type parameters from explicit meta-arguments and/or argument types.
  std::optional<std::map<std::string, Type>> bindFnTypeArgs(const ast::FnDecl &fn, bool hasMetaArgs,
                                                            const std::vector<ast::MetaArg> &metaArgs,
                                                            const std::vector<Type> *argTypes, const Env &env,
                                                            SourceRange use, bool reportFailure = true,
                                                            const FnArgSources *sources = nullptr);
  bool unify(const ast::TypeRef &pattern, const Type &actual, const ast::FnDecl &fn,
             std::map<std::string, Type> &bound, const Env &declEnv);
  std::vector<const ast::FnDecl *> fnStack; ///< recursion detection
  /// Deepest chain of user-function calls checked (each level is a nested
  /// FnChecker on the stack; see E0335).
  static constexpr size_t kMaxCallDepth = 48;
  bool callDepthReported = false;
  /// Deepest nesting of record types resolved (see E0223).
  static constexpr size_t kMaxRecordDepth = 128;
  bool recordDepthReported = false;

  // ---- combine operators (Instantiate.cpp) -------------------------------------------------------
  /// E0301/E0503 for the name of a Named OpRef that is not a function.
  void reportBadOpName(const ast::OpRef &r);
  /// `prefixSum`: the operation sits in ps(...), not pw(...) (only the hints differ).
  std::optional<hl::BinaryOperator> resolveOpRef(const ast::OpRef &r, const Type &t, hl::Program &prog,
                                                  const Env &env, const Env *combineEnv, bool prefixSum);
  std::optional<hl::CombineOperator> resolveCombineOp(const ast::CombineOp &op, const Type &t, hl::Program &prog,
                                                      const Env &env);

  // ---- mdh instantiation (Instantiate.cpp) ---------------------------------------------------------
  std::unique_ptr<hl::Program> instantiateMdh(const ast::MdhDecl &d, const Env &env, SourceRange use);
  bool bindMetaArgs(const ast::Decl &d, bool hasArgs, const std::vector<ast::MetaArg> &args, const Env &outer,
                    Env &inner, SourceRange use);

  // ---- index functions (IndexFunctions.cpp) ---------------------------------------------------------
  struct AffineValue {
    std::vector<SizePoly> coeffs;
    SizePoly offset;
  };
  std::optional<AffineValue> affine(const ast::Expr &e, const std::vector<std::string> &vars, const Env &env);
  bool buildAccess(const ast::IndexFn &fn, size_t dims, const Env &env, hl::Access &out,
                   std::vector<std::string> *dimNames);
  void deriveShape(hl::Buffer &b, const std::vector<SizePoly> &indexSetSizes, const ast::BufferView &view,
                   const Env &env, bool isOutput);
  /// E0415 for a buffer whose static shape takes more bytes than any stage can address.
  void checkBufferBytes(const hl::Buffer &b);
  void checkInjective(const hl::Buffer &b, const std::vector<SizePoly> &outSizes,
                      const std::vector<hl::CombineOperator> &ops);
};


} // namespace mdh
