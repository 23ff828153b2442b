/** \file
 * Name resolution for the editor: every identifier of every module of one
 * compilation, mapped to the symbol it names.
 *
 * Sema resolves names while it type-checks, but keeps no record of where
 * each name was used.  The index walks the ASTs once more and follows the
 * language's scoping rules (docs/language.md §3, §5, §8, §10): top-level
 * declarations through Sema::lookup (so imports and duplicates behave
 * exactly as in sema), meta-parameters per declaration, parameters and
 * `let`s block by block, index-function parameters per index function,
 * record fields through a light, declared-types-only typing of the base
 * expression.  Invariants: every Occurrence lies inside one file and the
 * list is sorted by (file, begin); a name that does not resolve still gets
 * an Occurrence (symbol -1) carrying its syntactic role, which completion
 * uses; the index only points into the Compilation's ASTs, so it must not
 * outlive it.
 */
#pragma once

#include "ast/AST.h"
#include "driver/Compilation.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace mdh::lsp {

struct Symbol {
  enum class Kind {
    Decl,      ///< fn, record, combine, view, mdh
    MetaParam, ///< `T: type`, `N: size`
    Param,     ///< scalar-function parameter
    Local,     ///< `let`
    IndexVar,  ///< index-function parameter: `(i, k) -> ...`
    Field,     ///< record field
    Buffer,    ///< buffer of an inp_view/out_view
    Builtin,   ///< built-in type, binary operation or math function
    Module,    ///< an imported module (the name in `import a.b;`)
  };
  Kind kind = Kind::Builtin;
  std::string name;
  SourceRange def;                   ///< the defining identifier (invalid for builtins)
  SourceRange scope;                 ///< where the name is visible (locals and parameters)
  const ast::Decl *decl = nullptr;   ///< Decl: itself; otherwise the enclosing declaration
  const ast::MetaParam *meta = nullptr;
  const ast::Param *param = nullptr;
  const ast::Stmt *let = nullptr;
  const ast::Field *field = nullptr;
  const ast::RecordDecl *record = nullptr; ///< Field: its record
  const ast::BufferView *buffer = nullptr;
  bool outputBuffer = false;
  const ast::IndexFn *indexFn = nullptr;
  size_t position = 0;                ///< IndexVar: the MDA dimension; Param: its index
  std::optional<ast::TypeRef> type;   ///< declared (or, for `let`, lightly inferred) type
  std::string modulePath;             ///< Module: the file the import loaded
};

struct Occurrence {
  enum class Role {
    Definition,
    TypeName, SizeName, MetaArgName,
    ExprName, AssignTarget, CallName, RecordName, FieldName, FieldInitName,
    StageRef, FnRef, CombineRef, OpRef,
    Builder,       ///< `pw` / `ps`
    ComposeOp,     ///< `o`
    Attribute,     ///< `assoc` in `@assoc`
    MetaParamKind, ///< `type` / `size`
    ImportPath,
  };
  SourceRange range;
  int symbol = -1; ///< index into SymbolIndex::symbols(), -1 when unresolved
  Role role = Role::Definition;
  const ast::Decl *decl = nullptr; ///< enclosing top-level declaration
  /// FieldName: what the base expression's type is known to be.
  std::string baseRecord;
  int baseTupleArity = -1;
};

class SymbolIndex {
public:
  /// Indexes every module of an analysed compilation.
  static SymbolIndex build(Compilation &comp);

  const std::vector<Symbol> &symbols() const { return symbols_; }
  const std::vector<Occurrence> &occurrences() const { return occurrences_; }

  /// The occurrence at `offset` in `file` (an identifier touching the
  /// offset on either side counts), or nullptr.
  const Occurrence *at(FileId file, uint32_t offset) const;
  /// Every occurrence of a symbol, definition included, in source order.
  std::vector<const Occurrence *> occurrencesOf(int symbol) const;
  /// Symbols whose scope contains `offset` (parameters, locals, meta-parameters, index variables).
  std::vector<int> visibleAt(FileId file, uint32_t offset) const;
  /// The symbol of a top-level declaration.
  int symbolOfDecl(const ast::Decl *d) const;
  /// A key that identifies a top-level symbol across compilations ("" for local ones).
  std::string globalKey(int symbol, const SourceManager &sm) const;

private:
  friend class IndexBuilder;
  std::vector<Symbol> symbols_;
  std::vector<Occurrence> occurrences_;
  std::map<const ast::Decl *, int> declSymbols_;
};

/// Builds a named TypeRef (used by the light typing).
ast::TypeRef namedType(const std::string &name);

} // namespace mdh::lsp
