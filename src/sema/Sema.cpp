/** \file
 * Sema: the global scope, declaration-level checks, types and sizes.
 *
 * Instantiation of mdh expressions lives in Instantiate.cpp, scalar function
 * typing in ScalarChecker.cpp, index-function analysis in IndexFunctions.cpp.
 */
#include "sema/SemaImpl.h"

#include "support/EditDistance.h"

#include <algorithm>
#include <fmt/format.h>

namespace mdh {

// ---- diagnostics ----------------------------------------------------------------------------
bool Sema::Impl::givenUp(const SourceRange &r) const {
  auto it = givenUpAt.find(r.file);
  return it != givenUpAt.end() && r.begin >= it->second;
}

void Sema::Impl::error(const char *code, SourceRange r, std::string msg, std::string hint) {
  if (givenUp(r)) return void(lastReported = false);
  auto key = std::make_tuple(std::string(code), r.file, r.begin, r.end, msg);
  lastReported = reported.insert(key).second;
  if (!lastReported) return;
  diags.error(code, r, std::move(msg), std::move(hint));
}

void Sema::Impl::warning(const char *code, SourceRange r, std::string msg, std::string hint) {
  if (givenUp(r)) return void(lastReported = false);
  auto key = std::make_tuple(std::string(code), r.file, r.begin, r.end, msg);
  lastReported = reported.insert(key).second;
  if (!lastReported) return;
  diags.warning(code, r, std::move(msg), std::move(hint));
}

void Sema::Impl::note(SourceRange r, std::string msg) {
  if (lastReported) diags.note(r, std::move(msg));
}

std::string Sema::Impl::didYouMean(const std::string &name, const std::vector<std::string> &candidates) const {
  const std::string best = closestWord(name, candidates);
  return best.empty() ? "" : fmt::format("did you mean `{}`?", best);
}

std::vector<std::string> Sema::Impl::namesOfKind(ast::Decl::Kind k) const {
  std::vector<std::string> out;
  for (const auto &[n, d] : scope)
    if (d->kind == k) out.push_back(n);
  return out;
}

// ---- scope --------------------------------------------------------------------------------------
Sema::Sema(const SourceManager &sm, DiagnosticEngine &diags) : impl_(std::make_unique<Impl>(sm, diags)) {}
Sema::~Sema() = default;

const char *declKindName(ast::Decl::Kind k) {
  switch (k) {
  case ast::Decl::Kind::Fn: return "function";
  case ast::Decl::Kind::Record: return "record";
  case ast::Decl::Kind::Combine: return "combine operator";
  case ast::Decl::Kind::View: return "view";
  case ast::Decl::Kind::Mdh: return "mdh";
  }
  return "declaration";
}

void Sema::addModule(const ast::Module &m) {
  auto &I = *impl_;
  if (m.givenUpAt != UINT32_MAX) I.givenUpAt[m.file] = m.givenUpAt;
  for (const auto &d : m.decls) {
    if (d->name.empty()) continue;
    if (!primitiveByName(d->name.name).isError()) {
      I.error("E0204", d->name.range, fmt::format("`{}` is a built-in type and cannot be redefined", d->name.name),
              fmt::format("choose another name for the {}", declKindName(d->kind)));
      I.rejectedNames.insert(d->name.name);
      continue;
    }
    static const std::set<std::string> reserved = {"add", "mul", "max", "min", "and", "or", "xor", "sqrt", "exp",
                                                   "log", "abs", "pow", "floor", "ceil", "sin", "cos", "tan", "tanh",
                                                   "exp2", "log2", "log10", "round", "trunc", "fma"};
    if (reserved.count(d->name.name)) {
      I.error("E0222", d->name.range, fmt::format("`{}` is a built-in operation and cannot be redefined", d->name.name),
              "choose another name; the built-in is always available without a declaration");
      I.rejectedNames.insert(d->name.name); // uses of the name are not reported again
      continue;
    }
    auto [it, inserted] = I.scope.emplace(d->name.name, d.get());
    if (!inserted) {
      I.error("E0202", d->name.range, fmt::format("`{}` is defined more than once", d->name.name),
              "rename one of the declarations");
      I.note(it->second->name.range, fmt::format("previous definition of the {} `{}` is here",
                                                 declKindName(it->second->kind), d->name.name));
      continue;
    }
    I.order.push_back(d.get());
  }
}

const ast::Decl *Sema::lookup(const std::string &name) const {
  auto it = impl_->scope.find(name);
  return it == impl_->scope.end() ? nullptr : it->second;
}

std::vector<const ast::Decl *> Sema::declarations() const { return impl_->order; }

const hl::Program *Sema::genericProgram(const std::string &name) const {
  auto it = impl_->generic.find(name);
  return it == impl_->generic.end() ? nullptr : it->second.get();
}

// ---- declaration checks ---------------------------------------------------------------------------
void Sema::Impl::checkMetaParams(const ast::Decl &d) {
  std::set<std::string> seen;
  for (const auto &p : d.metaParams) {
    if (p.name.empty()) continue;
    if (!seen.insert(p.name.name).second)
      error("E0205", p.name.range, fmt::format("meta-parameter `{}` is declared twice", p.name.name));
    if (p.kind.name != "type" && p.kind.name != "size" && !p.kind.empty())
      error("E0203", p.kind.range, fmt::format("unknown meta-parameter kind `{}`", p.kind.name),
            "a meta-parameter is either `type` (a scalar type) or `size` (a positive integer)");
    if (!primitiveByName(p.name.name).isError())
      error("E0206", p.name.range, fmt::format("meta-parameter `{}` shadows the built-in type `{}`", p.name.name, p.name.name),
            "rename the meta-parameter, e.g. `T`");
    if (d.kind == ast::Decl::Kind::Fn && p.kind.name == "size")
      error("E0207", p.range, "scalar functions take only `type` meta-parameters",
            "pass sizes to the mdh expression instead");
  }
}

std::shared_ptr<RecordInfo> Sema::Impl::recordInfo(const std::string &name, SourceRange use) {
  auto it = records.find(name);
  if (it != records.end()) return it->second;
  auto sit = scope.find(name);
  if (sit == scope.end()) return nullptr;
  const auto *rd = sit->second->as<ast::RecordDecl>();
  if (!rd) return nullptr;
  if (recordsInProgress.count(name)) {
    error("E0208", use, fmt::format("record `{}` contains itself", name),
          "records are stored by value; a record cannot contain itself directly or indirectly");
    return nullptr;
  }
  // Field types are resolved depth-first, on the stack: a bound keeps a very
  // deep nesting of records from overflowing it (20000 levels did).
  if (recordsInProgress.size() >= kMaxRecordDepth) {
    if (!recordDepthReported)
      error("E0223", use, fmt::format("records nested more than {} levels deep (`{}` inside a record inside ... inside a record)",
                                      kMaxRecordDepth, name),
            "flatten the innermost records into their containers' fields");
    recordDepthReported = true;
    return nullptr;
  }
  recordsInProgress.insert(name);
  auto info = std::make_shared<RecordInfo>();
  info->name = name;
  std::set<std::string> seen;
  Env empty;
  bool ok = true;
  for (const auto &f : rd->fields) {
    if (f.name.empty()) { ok = false; continue; }
    if (!seen.insert(f.name.name).second) {
      error("E0209", f.name.range, fmt::format("field `{}` is declared twice in record `{}`", f.name.name, name));
      continue;
    }
    Type t = resolveType(f.type, empty);
    if (t.isError()) ok = false;
    if (t.kind == Type::Kind::Unit) {
      error("E0210", f.type.range, "a record field cannot have the unit type `()`");
      ok = false;
    }
    info->fields.push_back({f.name.name, t, 0});
  }
  recordsInProgress.erase(name);
  if (rd->fields.empty() && !rd->name.empty())
    error("E0211", rd->name.range, fmt::format("record `{}` has no fields", name), "add at least one field");
  info->layout();
  if (!ok) return nullptr;
  records[name] = info;
  return info;
}

Type Sema::Impl::resolveType(const ast::TypeRef &t, const Env &env) {
  switch (t.kind) {
  case ast::TypeRef::Kind::Error: return Type::error();
  case ast::TypeRef::Kind::Unit: return Type::prim(Type::Kind::Unit);
  case ast::TypeRef::Kind::Tuple: {
    std::vector<Type> elems;
    for (const auto &e : t.elems) elems.push_back(resolveType(e, env));
    return Type::tuple(std::move(elems));
  }
  case ast::TypeRef::Kind::Named: {
    const std::string &n = t.name.name;
    if (auto it = env.types.find(n); it != env.types.end()) return it->second;
    if (env.unknownKind.count(n)) return Type::error();
    if (env.sizes.count(n)) {
      error("E0212", t.range, fmt::format("`{}` is a size, not a type", n), "use a `type` meta-parameter here");
      return Type::error();
    }
    Type p = primitiveByName(n);
    if (!p.isError()) return p;
    auto it = scope.find(n);
    if (it != scope.end() && it->second->kind == ast::Decl::Kind::Record) {
      auto info = recordInfo(n, t.range);
      return info ? Type::recordType(info) : Type::error();
    }
    std::vector<std::string> cands = primitiveTypeNames();
    for (const auto &r : namesOfKind(ast::Decl::Kind::Record)) cands.push_back(r);
    for (const auto &[k, v] : env.types) cands.push_back(k);
    if (it != scope.end())
      error("E0213", t.range, fmt::format("`{}` is a {}, not a type", n, declKindName(it->second->kind)));
    else if (!rejectedNames.count(n))
      error("E0214", t.range, fmt::format("unknown type `{}`", n), unknownTypeHint(n, cands));
    return Type::error();
  }
  }
  return Type::error();
}

std::string Sema::Impl::unknownTypeHint(const std::string &n, const std::vector<std::string> &candidates) const {
  // Other languages' spellings of the built-in types; `int` and `long` as C and Java have them.
  static const std::map<std::string, std::string> spellings = {
      {"float", "f32"},   {"double", "f64"},  {"int", "i32"},     {"long", "i64"},  {"short", "i16"},
      {"char", "i8"},     {"unsigned", "u32"}, {"uint", "u32"},   {"float32", "f32"}, {"float64", "f64"},
      {"int32", "i32"},   {"int64", "i64"},   {"uint32", "u32"},  {"uint64", "u64"}, {"boolean", "bool"},
      {"int8", "i8"},     {"uint8", "u8"},    {"int16", "i16"},   {"uint16", "u16"}, {"size_t", "u64"}};
  if (auto it = spellings.find(n); it != spellings.end())
    return fmt::format("the built-in types are spelt `f32`, `f64`, `i32`, `u8`, `bool`, ...: write `{}`", it->second);
  std::string suggestion = didYouMean(n, candidates);
  if (!suggestion.empty()) return suggestion;
  return fmt::format("declare it as a meta-parameter of this declaration, e.g. `<{}: type>`, or use a built-in type "
                     "such as `f32`",
                     n);
}

bool Sema::Impl::isTypeName(const std::string &n, const Env &env) const {
  if (env.types.count(n) || !primitiveByName(n).isError()) return true;
  auto it = scope.find(n);
  return it != scope.end() && it->second->kind == ast::Decl::Kind::Record;
}

Env Sema::Impl::genericEnv(const ast::Decl &d) const {
  Env env;
  for (const auto &p : d.metaParams) {
    if (p.name.empty()) continue;
    if (p.kind.name == "size") env.sizes[p.name.name] = SizePoly::param(p.name.name);
    // An unknown kind (E0203): the name is neither a type nor a size, and its uses
    // say nothing more (`<N: int>` used as a size is not "a type, not a size").
    else if (p.kind.name != "type") env.unknownKind.insert(p.name.name);
    // Named like a built-in type (E0206): an error type keeps its uses quiet,
    // where a parameter type would print like the built-in and contradict
    // itself ("has type `f32`, but buffer `I` holds `f32`").
    else if (!primitiveByName(p.name.name).isError()) env.types[p.name.name] = Type::error();
    else env.types[p.name.name] = Type::paramType(p.name.name);
  }
  return env;
}

std::optional<SizePoly> Sema::Impl::evalSize(const ast::SizeExpr &e, const Env &env) {
  using K = ast::SizeExpr::Kind;
  switch (e.kind) {
  case K::Error: return std::nullopt;
  case K::Int: return SizePoly::constant(e.value);
  case K::Name: {
    if (auto it = env.sizes.find(e.name.name); it != env.sizes.end()) return it->second;
    if (env.unknownKind.count(e.name.name)) return std::nullopt;
    if (isTypeName(e.name.name, env)) {
      error("E0215", e.range, fmt::format("`{}` is a type, not a size", e.name.name));
      return std::nullopt;
    }
    std::vector<std::string> cands;
    for (const auto &[k, v] : env.sizes) cands.push_back(k);
    error("E0216", e.range, fmt::format("unknown size `{}`", e.name.name),
          cands.empty() ? "declare it as a meta-parameter, e.g. `<" + e.name.name + ": size>`" : didYouMean(e.name.name, cands));
    return std::nullopt;
  }
  default: break;
  }
  auto l = e.lhs ? evalSize(*e.lhs, env) : std::nullopt;
  auto r = e.rhs ? evalSize(*e.rhs, env) : std::nullopt;
  if (!l || !r) return std::nullopt;
  SizePoly out;
  switch (e.kind) {
  case K::Add: out = *l + *r; break;
  case K::Sub: out = *l - *r; break;
  case K::Mul: out = *l * *r; break;
  case K::Div:
  case K::Mod: {
    auto d = r->constantValue();
    if (!d || *d <= 0) {
      error("E0217", e.range, "a size can only be divided by a positive constant",
            "divide by a positive integer literal, e.g. `N / 2`");
      return std::nullopt;
    }
    if (e.kind == K::Div) {
      if (auto lv = l->constantValue()) return SizePoly::constant(*lv / *d);
      auto q = l->divExact(*d);
      if (!q) {
        error("E0218", e.range, fmt::format("`{}` is not divisible by {} for every size", l->str(), *d),
              "divide only constants, or make the size a multiple of the divisor");
        return std::nullopt;
      }
      return *q;
    }
    auto lv = l->constantValue();
    if (!lv) {
      error("E0217", e.range, "`%` needs constant operands in a size expression",
            "compute the value outside and pass it as a size parameter");
      return std::nullopt;
    }
    return SizePoly::constant(*lv % *d);
  }
  default: return std::nullopt;
  }
  if (out.overflowed()) {
    error("E0219", e.range, "size expression overflows 64 bits");
    return std::nullopt;
  }
  return out;
}

// ---- checkAll ----------------------------------------------------------------------------------------
void Sema::Impl::checkRecord(const ast::RecordDecl &r) {
  if (!r.name.empty()) recordInfo(r.name.name, r.name.range);
  if (r.hasMetaParams) error("E0220", r.name.range, "records cannot have meta-parameters");
}

void Sema::checkAll() {
  auto &I = *impl_;
  for (const ast::Decl *d : I.order) {
    I.checkMetaParams(*d);
    switch (d->kind) {
    case ast::Decl::Kind::Record: I.checkRecord(*d->as<ast::RecordDecl>()); break;
    case ast::Decl::Kind::Fn: {
      const auto &fn = *d->as<ast::FnDecl>();
      hl::Program scratch;
      std::map<std::string, Type> args;
      for (const auto &p : fn.metaParams)
        if (!p.name.empty()) args[p.name.name] = Type::paramType(p.name.name);
      I.instantiateFn(fn, args, scratch, fn.name.range);
      for (const auto &a : fn.attributes)
        if (a.name != "assoc" && a.name != "comm")
          I.warning("W0101", a.range, fmt::format("unknown attribute `@{}` is ignored", a.name),
                    "known attributes: `@assoc`, `@comm`");
        else if (fn.params.size() != 2)
          // Only a binary function can be a combine operator.
          I.warning("W0102", a.range,
                    fmt::format("`@{}` on `{}`, which takes {} parameter{}: only a function of two parameters can be "
                                "a combine operator, so it is ignored",
                                a.name, fn.name.name, fn.params.size(), fn.params.size() == 1 ? "" : "s"),
                    "remove the attribute, or give the function two parameters of its result type");
      break;
    }
    case ast::Decl::Kind::Combine: {
      const auto &cd = *d->as<ast::CombineDecl>();
      // A combine declaration is checked where it is used (its element type
      // comes from the output view); here we only resolve the names it uses.
      std::function<void(const ast::OpRef &)> visit = [&](const ast::OpRef &r) {
        if (r.kind == ast::OpRef::Kind::Named && !r.name.empty()) {
          static const std::set<std::string> builtins = {"add", "mul", "max", "min", "and", "or", "xor"};
          auto it = I.scope.find(r.name.name);
          if (!builtins.count(r.name.name) && (it == I.scope.end() || it->second->kind != ast::Decl::Kind::Fn))
            I.reportBadOpName(r);
        }
        for (const auto &e : r.elems) visit(e);
      };
      if (cd.op.kind == ast::CombineOp::Kind::PointWise || cd.op.kind == ast::CombineOp::Kind::PrefixSum) visit(cd.op.op);
      if (cd.op.kind == ast::CombineOp::Kind::Named)
        I.error("E0302", cd.op.range, "a combine declaration must be `++`, `pw(op)` or `ps(op)`",
                fmt::format("name an operator with `combine {0} = pw(add);` (point-wise), `combine {0} = ps(add);` "
                            "(prefix sum) or `combine {0} = ++;`",
                            cd.name.empty() ? std::string("c") : cd.name.name));
      break;
    }
    case ast::Decl::Kind::View: break; // checked through the mdh expressions that use it, and below
    case ast::Decl::Kind::Mdh: {
      const auto &md = *d->as<ast::MdhDecl>();
      Env env = I.genericEnv(md);
      auto prog = I.instantiateMdh(md, env, md.name.range);
      if (prog) I.generic[md.name.name] = std::move(prog);
      break;
    }
    }
  }
  // Views that no mdh uses are still checked for name errors.
  for (const ast::Decl *d : I.order) {
    const auto *vd = d->as<ast::ViewDecl>();
    if (!vd) continue;
    if (vd->stage.kind == ast::Stage::Kind::MdHom)
      I.error("E0221", vd->stage.range, "a `view` declaration must be an `inp_view` or an `out_view`");
    else if (vd->stage.kind == ast::Stage::Kind::Ref)
      // Views do not alias other declarations (`view a = b; view b = a;` passed unnoticed).
      I.error("E0221", vd->stage.range, "a `view` declaration must be an `inp_view` or an `out_view`",
              fmt::format("`{}` names another declaration; views do not alias other views: write the buffer view itself",
                          vd->stage.name.name));
  }
}

namespace {
/// `T`, `I`, `K` of `mdh m<T: type, I: size, K: size>`, for hints.
std::string metaParamNames(const ast::MdhDecl &md) {
  std::vector<std::string> names;
  for (const auto &p : md.metaParams) names.push_back(fmt::format("`{}`", p.name.name));
  return fmt::format("{}", fmt::join(names, ", "));
}
} // namespace

std::unique_ptr<hl::Program> Sema::instantiate(const std::string &entry, const MetaSettings &settings,
                                               bool allowSymbolic) {
  auto &I = *impl_;
  SourceRange none;
  auto it = I.scope.find(entry);
  if (it == I.scope.end() || it->second->kind != ast::Decl::Kind::Mdh) {
    std::vector<std::string> mdhs = I.namesOfKind(ast::Decl::Kind::Mdh);
    I.error("E0601", none,
            it == I.scope.end() ? fmt::format("no mdh named `{}`", entry)
                                : fmt::format("`{}` is not an mdh declaration", entry),
            mdhs.empty() ? "" : fmt::format("available: {}", fmt::join(mdhs, ", ")));
    return nullptr;
  }
  const auto &md = *it->second->as<ast::MdhDecl>();
  const size_t errorsAtStart = I.diags.errorCount();
  Env env;
  std::set<std::string> used;
  for (const auto &p : md.metaParams) {
    const std::string &n = p.name.name;
    auto s = std::find_if(settings.begin(), settings.end(), [&](const auto &kv) { return kv.first == n; });
    if (s == settings.end()) {
      if (!allowSymbolic) {
        I.error("E0602", p.range, fmt::format("no value given for meta-parameter `{}` of `{}`", n, entry),
                fmt::format("pass it on the command line, e.g. `--set {}={}`", n, p.kind.name == "size" ? "512" : "f32"));
        continue;
      }
      if (p.kind.name == "size") env.sizes[n] = SizePoly::param(n);
      else env.types[n] = Type::paramType(n);
      continue;
    }
    used.insert(n);
    if (p.kind.name == "size") {
      if (s->second == "*") {
        env.sizes[n] = SizePoly::param(n);
        env.dynamicSizes.insert(n);
        continue;
      }
      // Digits only, as for run-time sizes: strtoll alone took ` 4` and `+4`.
      const bool digitsOnly = !s->second.empty() && s->second.find_first_not_of("0123456789") == std::string::npos;
      char *endp = nullptr;
      errno = 0;
      long long v = digitsOnly ? std::strtoll(s->second.c_str(), &endp, 10) : 0;
      if (!digitsOnly || *endp != 0 || errno == ERANGE || v < 1 || v > (1ll << 40)) {
        I.error("E0603", p.range, fmt::format("invalid value `{}` for size `{}`", s->second, n),
                "a size is a positive integer (at most 2^40) or `*` for a size known only at run time");
        continue;
      }
      env.sizes[n] = SizePoly::constant(v);
    } else {
      Type t = primitiveByName(s->second);
      if (t.isError()) {
        auto rec = I.recordInfo(s->second, p.range);
        if (rec) t = Type::recordType(rec);
      }
      if (t.isError()) {
        I.error("E0604", p.range, fmt::format("unknown type `{}` given for `{}`", s->second, n),
                "use a scalar type such as f32, f64, i32, or a record declared in the program");
        continue;
      }
      env.types[n] = t;
    }
  }
  std::vector<std::string> unknown;
  for (const auto &[k, v] : settings)
    if (!used.count(k)) unknown.push_back(k);
  const bool settingsBad = I.diags.errorCount() != errorsAtStart;
  std::unique_ptr<hl::Program> prog;
  size_t before = I.diags.errorCount();
  if (!settingsBad) {
    env.context.push_back(fmt::format("instantiating `{}`", entry));
    prog = I.instantiateMdh(md, env, md.name.range);
  }
  // A name that is no meta-parameter may still be a size the entry leaves to run time
  // (`mdh dot_dyn = dot<*>;`): the code generated for it takes that size as an argument.
  for (const auto &k : unknown) {
    const bool runTime = prog && std::find(prog->dynamicSizes.begin(), prog->dynamicSizes.end(), k) != prog->dynamicSizes.end();
    if (runTime)
      I.error("E0605", md.name.range, fmt::format("`{}` is a run-time size of `{}`, not a meta-parameter", k, entry),
              fmt::format("the generated code takes `{}` as an argument: drop `--set {}=...` here; `mdhc run` and "
                          "`mdhi run` accept it to fix the size of one run",
                          k, k));
    else
      I.error("E0605", md.name.range, fmt::format("`{}` is not a meta-parameter of `{}`", k, entry),
              md.metaParams.empty() ? fmt::format("`{}` takes no meta-parameters", entry)
                                    : fmt::format("its meta-parameters are {}", metaParamNames(md)));
  }
  if (settingsBad || !prog || I.diags.errorCount() != before) return nullptr;
  for (const auto &[k, v] : settings) prog->metaArgs.push_back({k, v});
  return prog;
}

std::string mangle(const Type &t) {
  switch (t.kind) {
  case Type::Kind::Tuple: {
    std::string s = "t";
    for (const auto &e : t.elems) s += "_" + mangle(e);
    return s + "_e";
  }
  case Type::Kind::Record: return t.record ? t.record->name : "rec";
  default: return t.str();
  }
}

} // namespace mdh
