/** \file
 * IndexBuilder: one walk over every module's AST, with a scope stack that
 * mirrors the language's scoping rules, recording each identifier it meets.
 */
#include "SymbolIndex.h"

#include "Builtins.h"
#include "sema/Type.h"

#include <algorithm>
#include <filesystem>

namespace mdh::lsp {

ast::TypeRef namedType(const std::string &name) {
  ast::TypeRef t;
  t.kind = ast::TypeRef::Kind::Named;
  t.name.name = name;
  return t;
}

class IndexBuilder {
public:
  using Role = Occurrence::Role;

  explicit IndexBuilder(Compilation &comp) : comp_(comp) {}

  SymbolIndex run() {
    // Pass 1: every top-level declaration is a symbol, so uses resolve across modules.
    for (const auto &m : comp_.modules())
      for (const auto &d : m->decls) {
        if (d->name.empty()) continue;
        Symbol s;
        s.kind = Symbol::Kind::Decl;
        s.name = d->name.name;
        s.def = d->name.range;
        s.decl = d.get();
        idx_.declSymbols_[d.get()] = add(std::move(s));
        if (const auto *rec = d->as<ast::RecordDecl>())
          for (const auto &f : rec->fields) {
            Symbol fs;
            fs.kind = Symbol::Kind::Field;
            fs.name = f.name.name;
            fs.def = f.name.range;
            fs.decl = rec;
            fs.field = &f;
            fs.record = rec;
            if (f.type.kind != ast::TypeRef::Kind::Error) fs.type = f.type;
            int id = add(std::move(fs));
            fields_.emplace(std::make_pair(rec, f.name.name), id);
          }
      }
    // Pass 2: the bodies.
    for (const auto &m : comp_.modules()) {
      for (const auto &imp : m->imports) visitImport(imp);
      for (const auto &d : m->decls) visitDecl(*d);
    }
    std::stable_sort(idx_.occurrences_.begin(), idx_.occurrences_.end(), [](const Occurrence &a, const Occurrence &b) {
      return a.range.file != b.range.file ? a.range.file < b.range.file : a.range.begin < b.range.begin;
    });
    return std::move(idx_);
  }

private:
  Compilation &comp_;
  SymbolIndex idx_;
  std::vector<std::map<std::string, int>> scopes_;
  std::map<std::string, int> builtins_;
  const ast::Decl *decl_ = nullptr;
  std::map<std::pair<const ast::RecordDecl *, std::string>, int> fields_;

  int add(Symbol s) {
    idx_.symbols_.push_back(std::move(s));
    return int(idx_.symbols_.size() - 1);
  }

  Occurrence &occur(const SourceRange &r, int sym, Role role) {
    Occurrence o;
    o.range = r;
    o.symbol = sym;
    o.role = role;
    o.decl = decl_;
    idx_.occurrences_.push_back(o);
    return idx_.occurrences_.back();
  }

  void occurIdent(const ast::Ident &id, int sym, Role role) {
    if (id.empty() || !id.range.valid() || id.range.end <= id.range.begin) return;
    occur(id.range, sym, role);
  }

  int declare(Symbol s) {
    SourceRange r = s.def;
    std::string name = s.name;
    int id = add(std::move(s));
    if (!name.empty()) {
      if (!scopes_.empty()) scopes_.back()[name] = id;
      if (r.valid() && r.end > r.begin) occur(r, id, Role::Definition);
    }
    return id;
  }

  int lookupLocal(const std::string &name) const {
    for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it)
      if (auto f = it->find(name); f != it->end()) return f->second;
    return -1;
  }

  int lookupGlobal(const std::string &name) const {
    const ast::Decl *d = comp_.sema().lookup(name);
    if (!d) return -1;
    auto it = idx_.declSymbols_.find(d);
    return it == idx_.declSymbols_.end() ? -1 : it->second;
  }

  int builtin(const std::string &name) {
    if (auto it = builtins_.find(name); it != builtins_.end()) return it->second;
    Symbol s;
    s.kind = Symbol::Kind::Builtin;
    s.name = name;
    int id = add(std::move(s));
    builtins_[name] = id;
    return id;
  }

  bool isBuiltinName(const std::string &n) const {
    return !primitiveByName(n).isError() || findBuiltinFunction(n) != nullptr;
  }

  // ---- imports ---------------------------------------------------------------------------------
  void visitImport(const ast::Import &imp) {
    decl_ = nullptr;
    std::string rel;
    for (const auto &p : imp.path) rel += (rel.empty() ? "" : "/") + p.name;
    rel += ".mdh";
    std::string target;
    const SourceManager &sm = comp_.sources();
    for (FileId f = 0; f < sm.size(); ++f) {
      const std::string &p = sm.file(f).path();
      if (p == rel || (p.size() > rel.size() && p.compare(p.size() - rel.size(), rel.size(), rel) == 0 &&
                       p[p.size() - rel.size() - 1] == '/')) {
        target = p;
        break;
      }
    }
    int sym = -1;
    if (!target.empty()) {
      Symbol s;
      s.kind = Symbol::Kind::Module;
      s.name = imp.dotted();
      s.modulePath = target;
      sym = add(std::move(s));
    }
    for (const auto &p : imp.path) occurIdent(p, sym, Role::ImportPath);
  }

  // ---- declarations ------------------------------------------------------------------------------
  void visitDecl(const ast::Decl &d) {
    decl_ = &d;
    int self = idx_.symbolOfDecl(&d);
    if (self >= 0) occurIdent(d.name, self, Role::Definition);
    scopes_.clear();
    scopes_.emplace_back();
    for (const auto &mp : d.metaParams) {
      Symbol s;
      s.kind = Symbol::Kind::MetaParam;
      s.name = mp.name.name;
      s.def = mp.name.range;
      s.scope = d.range;
      s.decl = &d;
      s.meta = &mp;
      declare(std::move(s));
      occurIdent(mp.kind, -1, Role::MetaParamKind);
    }
    if (const auto *fn = d.as<ast::FnDecl>()) visitFn(*fn);
    else if (const auto *rec = d.as<ast::RecordDecl>()) visitRecord(*rec);
    else if (const auto *cd = d.as<ast::CombineDecl>()) visitCombineOp(cd->op);
    else if (const auto *vd = d.as<ast::ViewDecl>()) visitStage(vd->stage);
    else if (const auto *md = d.as<ast::MdhDecl>()) {
      for (const auto &st : md->stages) visitStage(st);
      for (const auto &r : md->composeOps)
        if (r.valid() && r.end > r.begin) occur(r, -1, Role::ComposeOp);
    }
    scopes_.clear();
  }

  void visitFn(const ast::FnDecl &fn) {
    for (const auto &a : fn.attributes) occurIdent(a, -1, Role::Attribute);
    for (size_t i = 0; i < fn.params.size(); ++i) {
      const auto &p = fn.params[i];
      visitType(p.type);
      Symbol s;
      s.kind = Symbol::Kind::Param;
      s.name = p.name.name;
      s.def = p.name.range;
      s.scope = fn.range;
      s.decl = &fn;
      s.param = &p;
      s.position = i;
      if (p.type.kind != ast::TypeRef::Kind::Error) s.type = p.type;
      declare(std::move(s));
    }
    if (fn.result) visitType(*fn.result);
    scopes_.emplace_back();
    visitStmts(fn.body, fn.range.end);
    scopes_.pop_back();
  }

  void visitRecord(const ast::RecordDecl &rec) {
    for (const auto &f : rec.fields) {
      visitType(f.type);
      occurIdent(f.name, fieldSymbol(rec, f.name.name), Role::Definition);
    }
  }

  // ---- types, sizes, meta-arguments ----------------------------------------------------------------
  void visitType(const ast::TypeRef &t) {
    if (t.kind == ast::TypeRef::Kind::Tuple) {
      for (const auto &e : t.elems) visitType(e);
      return;
    }
    if (t.kind != ast::TypeRef::Kind::Named || t.name.empty()) return;
    const std::string &n = t.name.name;
    int sym = lookupLocal(n);
    if (sym < 0 && !primitiveByName(n).isError()) sym = builtin(n);
    if (sym < 0) sym = lookupGlobal(n);
    occurIdent(t.name, sym, Role::TypeName);
  }

  void visitSize(const ast::SizeExpr &s) {
    if (s.kind == ast::SizeExpr::Kind::Name) occurIdent(s.name, lookupLocal(s.name.name), Role::SizeName);
    if (s.lhs) visitSize(*s.lhs);
    if (s.rhs) visitSize(*s.rhs);
  }

  void visitMetaArgs(const std::vector<ast::MetaArg> &args) {
    for (const auto &a : args) {
      if (a.kind == ast::MetaArg::Kind::Type) {
        // A bare name is a type or a size: sema decides by what it names.
        const std::string &n = a.type.name.name;
        bool isType = !primitiveByName(n).isError() || lookupGlobal(n) >= 0;
        if (a.type.kind == ast::TypeRef::Kind::Named && (lookupLocal(n) >= 0 || !isType))
          occurIdent(a.type.name, lookupLocal(n), Role::MetaArgName);
        else
          visitType(a.type);
      } else if (a.kind == ast::MetaArg::Kind::Size && a.size) {
        visitSize(*a.size);
      }
    }
  }

  // ---- stages and combine operators ---------------------------------------------------------------------
  void visitStage(const ast::Stage &st) {
    visitMetaArgs(st.metaArgs);
    switch (st.kind) {
    case ast::Stage::Kind::InpView:
    case ast::Stage::Kind::OutView:
      for (const auto &b : st.buffers) visitBuffer(b, st.kind == ast::Stage::Kind::OutView);
      break;
    case ast::Stage::Kind::MdHom: {
      const auto &f = st.fn;
      if (!f.isSymbol && !f.name.empty()) {
        int sym = lookupGlobal(f.name.name);
        if (sym < 0 && isBuiltinName(f.name.name)) sym = builtin(f.name.name);
        occurIdent(f.name, sym, Role::FnRef);
      }
      visitMetaArgs(f.metaArgs);
      for (const auto &op : st.ops) visitCombineOp(op);
      break;
    }
    case ast::Stage::Kind::Ref: occurIdent(st.name, lookupGlobal(st.name.name), Role::StageRef); break;
    case ast::Stage::Kind::Error: break;
    }
  }

  void visitBuffer(const ast::BufferView &b, bool isOutput) {
    Symbol s;
    s.kind = Symbol::Kind::Buffer;
    s.name = b.name.name;
    s.def = b.name.range;
    s.decl = decl_;
    s.buffer = &b;
    s.outputBuffer = isOutput;
    int id = add(std::move(s));
    occurIdent(b.name, id, Role::Definition);
    for (const auto &sz : b.shape)
      if (sz) visitSize(*sz);
    for (const auto &fn : b.accesses) {
      scopes_.emplace_back();
      for (size_t i = 0; i < fn.params.size(); ++i) {
        Symbol v;
        v.kind = Symbol::Kind::IndexVar;
        v.name = fn.params[i].name;
        v.def = fn.params[i].range;
        v.scope = fn.range;
        v.decl = decl_;
        v.indexFn = &fn;
        v.buffer = &b;
        v.position = i;
        v.type = namedType("idx");
        declare(std::move(v));
      }
      for (const auto &e : fn.results)
        if (e) visitExpr(*e);
      scopes_.pop_back();
    }
  }

  void visitCombineOp(const ast::CombineOp &op) {
    switch (op.kind) {
    case ast::CombineOp::Kind::Named:
      occurIdent(op.name, lookupGlobal(op.name.name), Role::CombineRef);
      visitMetaArgs(op.metaArgs);
      break;
    case ast::CombineOp::Kind::PointWise:
    case ast::CombineOp::Kind::PrefixSum:
      if (!op.symbolShorthand) occurIdent(op.name, -1, Role::Builder);
      visitOpRef(op.op);
      break;
    case ast::CombineOp::Kind::Error:
      if (!op.name.empty()) occurIdent(op.name, -1, Role::Builder);
      visitOpRef(op.op);
      break;
    case ast::CombineOp::Kind::Concat: break;
    }
  }

  void visitOpRef(const ast::OpRef &r) {
    if (r.kind == ast::OpRef::Kind::Named && !r.name.empty()) {
      int sym = lookupGlobal(r.name.name);
      if (sym < 0 && isBuiltinBinaryOp(r.name.name)) sym = builtin(r.name.name);
      occurIdent(r.name, sym, Role::OpRef);
      visitMetaArgs(r.metaArgs);
    }
    for (const auto &e : r.elems) visitOpRef(e);
  }

  // ---- statements ---------------------------------------------------------------------------------------------
  void visitStmts(const std::vector<ast::StmtPtr> &stmts, uint32_t blockEnd) {
    for (const auto &s : stmts)
      if (s) visitStmt(*s, blockEnd);
  }

  void visitStmt(const ast::Stmt &s, uint32_t blockEnd) {
    switch (s.kind) {
    case ast::Stmt::Kind::Let: {
      if (s.declaredType) visitType(*s.declaredType);
      std::optional<ast::TypeRef> t;
      if (s.declaredType && s.declaredType->kind != ast::TypeRef::Kind::Error) t = s.declaredType;
      if (s.value) {
        visitExpr(*s.value);
        if (!t) t = typeOf(*s.value);
      }
      Symbol sym;
      sym.kind = Symbol::Kind::Local;
      sym.name = s.name.name;
      sym.def = s.name.range;
      sym.scope = {s.range.file, s.range.begin, std::max(blockEnd, s.range.end)};
      sym.decl = decl_;
      sym.let = &s;
      sym.type = t;
      declare(std::move(sym));
      break;
    }
    case ast::Stmt::Kind::Assign:
      occurIdent(s.name, lookupLocal(s.name.name), Role::AssignTarget);
      if (s.value) visitExpr(*s.value);
      break;
    case ast::Stmt::Kind::If: {
      if (s.value) visitExpr(*s.value);
      uint32_t thenEnd = s.hasElse && !s.elseBody.empty() && s.elseBody.front() ? s.elseBody.front()->range.begin
                                                                                 : s.range.end;
      scopes_.emplace_back();
      visitStmts(s.body, thenEnd);
      scopes_.pop_back();
      scopes_.emplace_back();
      visitStmts(s.elseBody, s.range.end);
      scopes_.pop_back();
      break;
    }
    case ast::Stmt::Kind::Return:
      if (s.value) visitExpr(*s.value);
      break;
    case ast::Stmt::Kind::Block:
      scopes_.emplace_back();
      visitStmts(s.body, s.range.end);
      scopes_.pop_back();
      break;
    case ast::Stmt::Kind::Error: break;
    }
  }

  // ---- expressions ----------------------------------------------------------------------------------------------
  void visitExpr(const ast::Expr &e, int depth = 0) {
    if (depth > 500) return; // the parser caps nesting; this only guards against surprises
    using K = ast::Expr::Kind;
    switch (e.kind) {
    case K::Name: occurIdent(e.name, lookupLocal(e.name.name), Role::ExprName); break;
    case K::Call: {
      int sym = lookupGlobal(e.name.name);
      if (sym < 0 && findBuiltinFunction(e.name.name)) sym = builtin(e.name.name);
      occurIdent(e.name, sym, Role::CallName);
      break;
    }
    case K::Record: {
      int sym = lookupGlobal(e.name.name);
      occurIdent(e.name, sym, Role::RecordName);
      const ast::RecordDecl *rec = recordNamed(e.name.name);
      for (const auto &fi : e.fields) {
        occurIdent(fi.name, rec ? fieldSymbol(*rec, fi.name.name) : -1, Role::FieldInitName);
        if (fi.value) visitExpr(*fi.value, depth + 1);
      }
      break;
    }
    case K::Field: {
      if (!e.operands.empty() && e.operands[0]) visitExpr(*e.operands[0], depth + 1);
      std::optional<ast::TypeRef> base;
      if (!e.operands.empty() && e.operands[0]) base = typeOf(*e.operands[0]);
      int sym = -1;
      std::string baseRecord;
      int arity = -1;
      if (base && base->kind == ast::TypeRef::Kind::Named) {
        if (const ast::RecordDecl *rec = recordNamed(base->name.name)) {
          baseRecord = rec->name.name;
          sym = fieldSymbol(*rec, e.name.name);
        }
      } else if (base && base->kind == ast::TypeRef::Kind::Tuple) {
        arity = int(base->elems.size());
      }
      if (!e.name.empty() && e.name.range.valid() && e.name.range.end > e.name.range.begin) {
        Occurrence &o = occur(e.name.range, sym, Role::FieldName);
        o.baseRecord = baseRecord;
        o.baseTupleArity = arity;
      }
      return;
    }
    case K::Cast: visitType(e.castType); break;
    default: break;
    }
    for (const auto &op : e.operands)
      if (op) visitExpr(*op, depth + 1);
  }

  const ast::RecordDecl *recordNamed(const std::string &n) const {
    const ast::Decl *d = comp_.sema().lookup(n);
    return d ? d->as<ast::RecordDecl>() : nullptr;
  }

  int fieldSymbol(const ast::RecordDecl &rec, const std::string &name) const {
    auto it = fields_.find(std::make_pair(&rec, name));
    return it == fields_.end() ? -1 : it->second;
  }

  /// Declared-types-only typing: enough to find the record behind `a.b.c`.
  std::optional<ast::TypeRef> typeOf(const ast::Expr &e, int depth = 0) const {
    if (depth > 200) return std::nullopt;
    using K = ast::Expr::Kind;
    auto operand = [&](size_t i) -> std::optional<ast::TypeRef> {
      if (i >= e.operands.size() || !e.operands[i]) return std::nullopt;
      return typeOf(*e.operands[i], depth + 1);
    };
    switch (e.kind) {
    case K::Bool: return namedType("bool");
    case K::Name: {
      int s = lookupLocal(e.name.name);
      if (s >= 0) return idx_.symbols_[size_t(s)].type;
      return std::nullopt;
    }
    case K::Record: return namedType(e.name.name);
    case K::Cast: return e.castType;
    case K::Call: {
      const ast::Decl *d = comp_.sema().lookup(e.name.name);
      const auto *fn = d ? d->as<ast::FnDecl>() : nullptr;
      if (fn && fn->result && fn->metaParams.empty()) return fn->result;
      if (findBuiltinFunction(e.name.name)) return operand(0);
      return std::nullopt;
    }
    case K::Field: {
      auto base = operand(0);
      if (!base) return std::nullopt;
      if (base->kind == ast::TypeRef::Kind::Tuple) {
        size_t i = 0;
        for (char c : e.name.name) {
          if (c < '0' || c > '9') return std::nullopt;
          i = i * 10 + size_t(c - '0');
          if (i > 1000) return std::nullopt;
        }
        if (i < base->elems.size()) return base->elems[i];
        return std::nullopt;
      }
      if (base->kind == ast::TypeRef::Kind::Named)
        if (const ast::RecordDecl *rec = recordNamed(base->name.name))
          for (const auto &f : rec->fields)
            if (f.name.name == e.name.name) return f.type;
      return std::nullopt;
    }
    case K::Cond: {
      auto t = operand(1);
      return t ? t : operand(2);
    }
    case K::Tuple: {
      ast::TypeRef t;
      t.kind = ast::TypeRef::Kind::Tuple;
      for (size_t i = 0; i < e.operands.size(); ++i) {
        auto el = operand(i);
        if (!el) return std::nullopt;
        t.elems.push_back(*el);
      }
      return t;
    }
    case K::Unary: return e.unaryOp == ast::UnaryOp::Not ? std::optional(namedType("bool")) : operand(0);
    case K::Binary: {
      using B = ast::BinaryOp;
      switch (e.binaryOp) {
      case B::Lt: case B::Le: case B::Gt: case B::Ge: case B::Eq: case B::Ne: case B::And: case B::Or:
        return namedType("bool");
      default: break;
      }
      auto t = operand(0);
      return t ? t : operand(1);
    }
    default: return std::nullopt;
    }
  }
};

SymbolIndex SymbolIndex::build(Compilation &comp) { return IndexBuilder(comp).run(); }

const Occurrence *SymbolIndex::at(FileId file, uint32_t offset) const {
  auto it = std::lower_bound(occurrences_.begin(), occurrences_.end(), std::make_pair(file, offset),
                             [](const Occurrence &o, const std::pair<FileId, uint32_t> &k) {
                               return o.range.file != k.first ? o.range.file < k.first : o.range.end < k.second;
                             });
  // `it` is the first occurrence whose end >= offset; prefer one that strictly contains the offset.
  const Occurrence *touching = nullptr;
  for (; it != occurrences_.end() && it->range.file == file && it->range.begin <= offset; ++it) {
    if (offset < it->range.end) return &*it;
    if (offset == it->range.end && !touching) touching = &*it;
  }
  return touching;
}

std::vector<const Occurrence *> SymbolIndex::occurrencesOf(int symbol) const {
  std::vector<const Occurrence *> out;
  if (symbol < 0) return out;
  for (const auto &o : occurrences_)
    if (o.symbol == symbol) out.push_back(&o);
  return out;
}

std::vector<int> SymbolIndex::visibleAt(FileId file, uint32_t offset) const {
  std::vector<int> out;
  for (size_t i = 0; i < symbols_.size(); ++i) {
    const Symbol &s = symbols_[i];
    switch (s.kind) {
    case Symbol::Kind::MetaParam:
    case Symbol::Kind::Param:
    case Symbol::Kind::Local:
    case Symbol::Kind::IndexVar:
      if (s.scope.file == file && s.scope.begin <= offset && offset <= s.scope.end && !s.name.empty()) {
        // A `let` is visible only after its own statement.
        if (s.kind == Symbol::Kind::Local && s.let && offset <= s.let->range.end) continue;
        out.push_back(int(i));
      }
      break;
    default: break;
    }
  }
  return out;
}

int SymbolIndex::symbolOfDecl(const ast::Decl *d) const {
  auto it = declSymbols_.find(d);
  return it == declSymbols_.end() ? -1 : it->second;
}

std::string SymbolIndex::globalKey(int symbol, const SourceManager &sm) const {
  if (symbol < 0 || size_t(symbol) >= symbols_.size()) return "";
  const Symbol &s = symbols_[size_t(symbol)];
  auto fileKey = [&](const SourceRange &r) {
    if (!r.valid() || r.file >= sm.size()) return std::string("?");
    std::error_code ec;
    std::string canon = std::filesystem::weakly_canonical(sm.file(r.file).path(), ec).string();
    return ec ? sm.file(r.file).path() : canon;
  };
  switch (s.kind) {
  case Symbol::Kind::Decl: return "decl:" + fileKey(s.def) + ":" + std::to_string(s.def.begin) + ":" + s.name;
  case Symbol::Kind::Field: return "field:" + fileKey(s.def) + ":" + std::to_string(s.def.begin) + ":" + s.name;
  case Symbol::Kind::Builtin: return "builtin:" + s.name;
  default: return "";
  }
}

} // namespace mdh::lsp
