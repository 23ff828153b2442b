/** \file
 * The interpreter session behind `mdhi run` and the REPL.
 */
#include "interp/Session.h"

#include "ast/Printer.h"
#include "data/AtomicFiles.h"
#include "data/BufferFiles.h"
#include "data/DataError.h"
#include "data/NumpyDtype.h"
#include "data/RandomData.h"
#include "driver/CliSupport.h"
#include "interp/Interpreter.h"
#include "interp/LeafLayout.h"
#include "interp/NativeArith.h"
#include "interp/PreciseEvaluation.h"
#include "interp/ResultPrinter.h"
#include "interp/RuntimeError.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

#include <chrono>
#include <cstring>
#include <stdexcept>

namespace mdh::interp {

namespace {
constexpr const char *kReplPath = "<repl>";

bool splitAssignment(const std::string &item, std::string &name, std::string &value) {
  size_t eq = item.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == item.size()) return false;
  name = item.substr(0, eq);
  value = item.substr(eq + 1);
  return true;
}

std::string metaParamsText(const ast::Decl &d) {
  if (d.metaParams.empty()) return "";
  std::vector<std::string> ps;
  for (const auto &p : d.metaParams) ps.push_back(p.name.name + ": " + p.kind.name);
  return fmt::format("<{}>", fmt::join(ps, ", "));
}

std::string bufferSignature(const hl::Buffer &b) {
  std::vector<std::string> dims;
  for (const auto &s : b.shape) dims.push_back(s.str());
  return fmt::format("{}: {}[{}]", b.name, b.elem.str(), fmt::join(dims, ", "));
}

/// Bytes of one cell from precise leaves, rounded to the declared types.
void storePrecise(const Type &elem, const PreciseCell &c, uint8_t *dst) {
  LeafLayout layout = leafLayout(elem);
  for (size_t l = 0; l < layout.count() && l < c.leaves.size(); ++l) {
    const PreciseLeaf &leaf = c.leaves[l];
    Scalar s;
    s.bits = 0;
    if (layout.kinds[l] == Type::Kind::F32) s.f32 = float(leaf.value);
    else if (layout.kinds[l] == Type::Kind::F64) s.f64 = double(leaf.value);
    else s.bits = leaf.intBits;
    NativeArith::store(layout.kinds[l], s, dst + layout.byteOffsets[l]);
  }
}

/// `C[1, 2] = 1.5  (reference 1.5000…, Σ|terms| 3.5, 4 terms, k 4, bound 8.3e-07)`
std::string preciseLeafText(const std::string &cell, const PreciseLeaf &l, uint64_t terms) {
  std::string name = cell + l.path;
  if (!l.isFloat) return fmt::format("{} = {}  (exact, {} term{})\n", name, l.text, terms, terms == 1 ? "" : "s");
  std::string rounded = l.kind == Type::Kind::F32 ? fmt::format("{}", float(l.value)) : fmt::format("{}", double(l.value));
  // A NaN has no sign worth printing (`-nan` read like a number with a sign).
  auto num = [](double v, const char *spec) { return std::isnan(v) ? std::string("nan") : fmt::format(spec, v); };
  return fmt::format("{} = {}  (reference {}, Σ|terms| {}, {} term{}, k {:.3g}, bound {})\n", name,
                     std::isnan(double(l.value)) ? "nan" : rounded, l.text, num(l.absSum, "{:.6g}"), terms, terms == 1 ? "" : "s",
                     l.roundings, num(l.errorBound, "{:.3g}"));
}

} // namespace

struct Session::LastRun {
  std::unique_ptr<hl::Program> prog;
  data::BufferSet inputs, outputs;
  std::map<std::string, std::vector<uint8_t>> defined;
};

Session::Session(SessionOptions opts) : opts_(std::move(opts)) {}
Session::~Session() = default;

void Session::error(const std::string &message) { fmt::print(opts_.err, "error: {}\n", message); }

std::set<std::string> Session::printDiagnosticsFrom(size_t first, bool skipLoaded) {
  const auto &all = comp_->diags().all();
  FileId repl = comp_->sources().findByPath(kReplPath);
  std::set<std::string> inFiles;
  for (size_t i = first; i < all.size(); ++i) {
    const Diagnostic &d = all[i];
    std::string text = renderDiagnostic(comp_->sources(), d, opts_.color);
    if (d.range.valid() && d.range.file != repl) {
      if (skipLoaded && fileDiagnosticsAtLoad_.count(text)) continue;
      inFiles.insert(text);
    }
    fmt::print(opts_.err, "{}", text);
  }
  return inFiles;
}

bool Session::rebuild(const std::vector<std::string> &files, const std::string &replText, bool showFileDiagnostics) {
  CompilationOptions o;
  o.includeDirs = opts_.includeDirs;
  auto c = std::make_unique<Compilation>(o);
  for (const auto &f : files) c->addFile(f);
  if (!replText.empty()) c->addSource(kReplPath, replText);
  c->analyze();
  std::swap(comp_, c);
  bool ok = !comp_->diags().hasErrors();
  std::set<std::string> printed = printDiagnosticsFrom(0, !showFileDiagnostics);
  if (!ok) std::swap(comp_, c); // keep the previous state
  else if (showFileDiagnostics) fileDiagnosticsAtLoad_ = std::move(printed);
  return ok;
}

bool Session::load(const std::vector<std::string> &files) {
  // A load that fails leaves the session as it was (files, declarations typed
  // earlier, the last run); :reload retries it once the files are fixed.
  if (!rebuild(files, "", true)) {
    failedFiles_ = files;
    if (comp_) fmt::print(opts_.err, "note: the session keeps what it had loaded before{}\n",
                          files_.empty() ? "" : fmt::format(" ({})", fmt::join(files_, ", ")));
    return false;
  }
  files_ = files;
  failedFiles_.clear();
  last_.reset();
  if (!replText_.empty() && !rebuild(files, replText_, false)) {
    fmt::print(opts_.err, "note: the declarations typed earlier do not compile with these files; they were dropped\n");
    replText_.clear();
  }
  return true;
}

bool Session::reload() {
  if (!failedFiles_.empty()) return load(failedFiles_);
  if (files_.empty() && replText_.empty()) {
    error("nothing to reload: load a file first with `:load FILE`");
    return false;
  }
  return load(files_);
}

bool Session::define(const std::string &text) {
  std::string combined = replText_.empty() ? text : replText_ + "\n" + text;
  if (!rebuild(files_, combined, false)) return false;
  replText_ = combined;
  return true;
}

bool Session::run(const RunRequest &r) { return execute(r) == RunOutcome::Done; }

RunOutcome Session::execute(const RunRequest &r) {
  try {
    return runChecked(r);
  } catch (const RuntimeError &e) {
    if (comp_) fmt::print(opts_.err, "{}", renderDiagnostic(comp_->sources(), e.toDiagnostic(), opts_.color));
    else error(e.what());
  } catch (const data::DataError &e) {
    error(e.what());
  } catch (const EvaluationInterrupted &) {
    error("interrupted; the run's results are discarded");
  } catch (const std::exception &e) {
    // More cells than a std::vector can hold (std::length_error) is out of memory as well.
    if (dynamic_cast<const std::bad_alloc *>(&e) || dynamic_cast<const std::length_error *>(&e))
      error("out of memory: the buffers of this run do not fit (try --cells to evaluate single cells)");
    else
      error(fmt::format("internal error: {}", e.what()));
  }
  return RunOutcome::Failed;
}

RunOutcome Session::runChecked(const RunRequest &r) {
  // A request that is malformed whatever the program says (`mdhi run` exits 2).
  auto malformed = [&](const std::string &message) {
    error(message);
    return RunOutcome::Malformed;
  };
  if (!comp_) {
    error("nothing is loaded: give a file (`mdhi FILE`) or use `:load FILE`");
    return RunOutcome::Failed;
  }
  if (r.entry.empty()) return malformed("which entry? give it with `--entry NAME` (`:browse` lists them)");
  const ast::Decl *decl = comp_->sema().lookup(r.entry);
  if (!decl || decl->kind != ast::Decl::Kind::Mdh) {
    std::vector<std::string> entries;
    for (const ast::Decl *d : comp_->sema().declarations())
      if (d->kind == ast::Decl::Kind::Mdh) entries.push_back(d->name.name);
    // Worded and coded as mdhc's E0601, with the entries as its help.
    Diagnostic unknown;
    unknown.code = "E0601";
    unknown.message = decl ? fmt::format("`{}` is not an mdh declaration", r.entry) : fmt::format("no mdh named `{}`", r.entry);
    unknown.hint = entries.empty() ? "" : fmt::format("available: {}", fmt::join(entries, ", "));
    fmt::print(opts_.err, "{}", renderDiagnostic(comp_->sources(), unknown, opts_.color));
    return RunOutcome::Failed;
  }
  // ---- meta-parameters and run-time sizes: `:set` defaults first, then this run's --set ----
  MetaSettings fromDefaults, explicitSets;
  std::string err;
  for (const auto &item : defaults_.sets)
    if (!parseMetaSettings({item}, fromDefaults, err)) return malformed(err);
  if (!parseMetaSettings(r.sets, explicitSets, err)) return malformed(err);
  auto isMeta = [&](const std::string &n) {
    for (const auto &p : decl->metaParams)
      if (p.name.name == n) return true;
    return false;
  };
  MetaSettings meta;
  std::map<std::string, std::string> sizeTexts, defaultSizeTexts; // run-time sizes, read once they are known
  auto put = [&](const std::string &k, const std::string &v, bool isExplicit) {
    // `N=*` next to `N=<extent>` in the same settings: N is a run-time size of this value.
    const MetaSettings &same = isExplicit ? explicitSets : fromDefaults;
    if (!isMeta(k) || givesRunTimeSizeValue(same, k, v)) {
      (isExplicit ? sizeTexts : defaultSizeTexts)[k] = v;
      return;
    }
    for (auto &kv : meta)
      if (kv.first == k) {
        kv.second = v;
        return;
      }
    meta.push_back({k, v});
  };
  for (const auto &[k, v] : fromDefaults) put(k, v, false);
  for (const auto &[k, v] : explicitSets) put(k, v, true);

  const size_t mark = comp_->diags().all().size();
  std::unique_ptr<hl::Program> prog = comp_->sema().instantiate(r.entry, meta);
  printDiagnosticsFrom(mark, false);
  if (!prog) return RunOutcome::Failed;
  // A remembered value counts only for a run-time size of this entry.
  for (const auto &[k, v] : defaultSizeTexts)
    if (std::find(prog->dynamicSizes.begin(), prog->dynamicSizes.end(), k) != prog->dynamicSizes.end())
      sizeTexts.emplace(k, v);
  std::map<std::string, int64_t> runtimeSizes;
  Diagnostic problem;
  if (!readRunTimeSizes(r.entry, *prog, sizeTexts, runtimeSizes, problem, comp_->sema().lookup(r.entry))) {
    fmt::print(opts_.err, "{}", renderDiagnostic(comp_->sources(), problem, opts_.color));
    return RunOutcome::Failed;
  }

  // ---- data ------------------------------------------------------------------------------------
  data::BufferSet inputs;
  for (const auto &item : r.inputs) {
    std::string name, file;
    if (!splitAssignment(item, name, file)) return malformed(fmt::format("malformed `--in {}`; expected BUFFER=FILE.npy", item));
    const hl::Buffer *buf = nullptr;
    for (const auto &b : prog->inputs)
      if (b.name == name) buf = &b;
    if (!buf) {
      bool isOutput = false;
      for (const auto &b : prog->outputs) isOutput |= b.name == name;
      return malformed(fmt::format("`{}` is not an input buffer of `{}` (inputs: {}){}", name, r.entry,
                                   hl::quotedNames(prog->inputs), isOutput ? "; it is an output: use `--out`" : ""));
    }
    if (inputs.count(name)) return malformed(fmt::format("input buffer `{}` is given twice", name));
    inputs[name] = data::loadBufferFile(file, name, buf->elem);
  }
  std::vector<std::pair<std::string, std::string>> outputs;
  for (const auto &item : r.outputs) {
    std::string name, file;
    if (!splitAssignment(item, name, file)) return malformed(fmt::format("malformed `--out {}`; expected BUFFER=FILE.npy", item));
    bool known = false;
    for (const auto &b : prog->outputs) known |= b.name == name;
    if (!known)
      return malformed(fmt::format("`{}` is not an output buffer of `{}` (outputs: {})", name, r.entry, hl::quotedNames(prog->outputs)));
    for (const auto &[seen, seenFile] : outputs)
      if (seen == name)
        return malformed(fmt::format("output buffer `{}` is given twice (`{}` and `{}`); give each buffer once", name, seenFile, file));
    outputs.push_back({name, file});
  }
  if (!outputs.empty() && !r.cells.empty()) return malformed("--out writes whole buffers; it cannot be combined with --cells");
  // The cells are part of the command line: read them before any data is made.
  std::vector<CellRef> cells;
  if (!r.cells.empty()) {
    if (!parseCellList(r.cells, cells, err)) return malformed(err);
    for (const auto &c : cells) {
      bool known = false;
      for (const auto &b : prog->outputs) known |= b.name == c.buffer;
      if (!known)
        return malformed(fmt::format("`{}` is not an output buffer of `{}` (outputs: {})", c.buffer, r.entry,
                                     hl::quotedNames(prog->outputs)));
    }
  }
  data::AtomicFileSet files; // checked before the evaluation, written after it
  files.protect(sourceFiles(*comp_), "a source file of the program");
  // An unusable --out path is a usage error (exit 2), as an unusable -o is in mdhc.
  try {
    for (const auto &[name, file] : outputs) {
      files.checkOutput(file);
      if (r.allowUndefined) files.checkOutput(data::maskPathFor(file));
    }
  } catch (const data::DataError &e) {
    return malformed(e.what());
  }
  EvalOptions eo;
  eo.trapOverflow = r.trapOverflow;
  eo.allowUndefined = r.allowUndefined;
  eo.runtimeSizes = runtimeSizes;
  eo.interrupted = r.interrupted;
  ProgramShapes shapes = resolveShapes(*prog, shapesOf(inputs), runtimeSizes);
  std::vector<std::string> randomOnes;
  for (size_t b = 0; b < prog->inputs.size(); ++b) {
    const hl::Buffer &buf = prog->inputs[b];
    if (inputs.count(buf.name)) continue;
    inputs[buf.name] = data::randomBuffer(buf.name, buf.elem, shapes.inputs[b], r.seed);
    randomOnes.push_back(fmt::format("{} {}{}", buf.name, buf.elem.str(), data::shapeString(shapes.inputs[b])));
  }
  if (!randomOnes.empty() && !r.quiet)
    fmt::print(opts_.err, "note: random inputs (seed {}): {}\n", r.seed, fmt::join(randomOnes, ", "));

  // ---- evaluation --------------------------------------------------------------------------------
  auto start = std::chrono::steady_clock::now();
  uint64_t applications = 0;
  auto last = std::make_unique<LastRun>();
  if (!cells.empty()) {
    if (r.precise) {
      for (const auto &c : evaluatePrecise(*prog, inputs, cells, eo)) {
        applications += c.applications;
        std::string name = c.cell.index.empty() ? c.cell.buffer : fmt::format("{}[{}]", c.cell.buffer, fmt::join(c.cell.index, ", "));
        if (!r.quiet) {
          if (!c.defined) fmt::print(opts_.out, "{} = ⊥  (no output index function writes it)\n", name);
          for (const auto &l : c.leaves) fmt::print(opts_.out, "{}", preciseLeafText(name, l, c.terms));
        }
      }
    } else {
      for (const auto &c : evaluateCells(*prog, inputs, cells, eo)) {
        applications += c.applications;
        if (!r.quiet)
          fmt::print(opts_.out, "{} = {}\n",
                     c.cell.index.empty() ? c.cell.buffer : fmt::format("{}[{}]", c.cell.buffer, fmt::join(c.cell.index, ", ")),
                     c.text);
      }
    }
  } else if (r.precise) {
    std::vector<PreciseCell> cells = evaluatePrecise(*prog, inputs, {}, eo);
    std::map<std::string, size_t> perBuffer;
    for (const auto &c : cells) ++perBuffer[c.cell.buffer];
    for (size_t b = 0; b < prog->outputs.size(); ++b) {
      const hl::Buffer &buf = prog->outputs[b];
      data::BufferData d;
      d.elem = buf.elem;
      d.shape = shapes.outputs[b];
      d.bytes.assign(d.elementCount() * d.elementSize(), 0);
      std::vector<uint8_t> defined(d.elementCount(), 0);
      size_t i = 0;
      for (const auto &c : cells) {
        if (c.cell.buffer != buf.name) continue;
        if (c.defined) storePrecise(buf.elem, c, d.element(i));
        defined[i] = c.defined;
        ++i;
      }
      last->outputs[buf.name] = std::move(d);
      last->defined[buf.name] = std::move(defined);
    }
    if (!r.quiet)
      for (const auto &c : cells) {
        if (perBuffer[c.cell.buffer] > r.printLimit) continue;
        std::string name = c.cell.index.empty() ? c.cell.buffer : fmt::format("{}[{}]", c.cell.buffer, fmt::join(c.cell.index, ", "));
        if (!c.defined) fmt::print(opts_.out, "{} = ⊥\n", name);
        for (const auto &l : c.leaves) fmt::print(opts_.out, "{}", preciseLeafText(name, l, c.terms));
      }
    for (const auto &[name, n] : perBuffer)
      if (n > r.printLimit && !r.quiet)
        fmt::print(opts_.out, "{}: {} cells, not printed (use --cells to pick some)\n", name, n);
  } else {
    RunResult result = evaluate(*prog, inputs, eo);
    applications = result.applications;
    last->outputs = std::move(result.outputs);
    last->defined = std::move(result.defined);
    if (!r.quiet) {
      PrintLimits limits;
      limits.maxCells = r.printLimit;
      for (const auto &b : prog->outputs) {
        limits.savedTo.clear();
        for (const auto &[name, file] : outputs)
          if (name == b.name) limits.savedTo = file;
        fmt::print(opts_.out, "{}", formatBuffer(b.name, last->outputs[b.name], &last->defined[b.name], limits));
      }
    }
  }
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (r.stats)
    fmt::print(opts_.err, "stats: {} scalar-function applications in {:.3f} s ({:.3g} applications/s)\n", applications,
               seconds, seconds > 0 ? double(applications) / seconds : 0.0);

  // ---- outputs: all files or none --------------------------------------------------------------------
  if (!outputs.empty()) {
    for (const auto &[name, file] : outputs) {
      files.stage(file, data::encodeBuffer(last->outputs.at(name)));
      if (r.allowUndefined) files.stage(data::maskPathFor(file), data::encodeMask(last->outputs.at(name).shape, last->defined.at(name)));
    }
    files.commit();
  }
  last->inputs = std::move(inputs);
  last->prog = std::move(prog);
  last_ = std::move(last);
  return RunOutcome::Done;
}

std::string Session::declSignature(const std::string &name) const {
  const ast::Decl *d = comp_->sema().lookup(name);
  if (!d) return "";
  std::string mp = metaParamsText(*d);
  switch (d->kind) {
  case ast::Decl::Kind::Fn: {
    const auto &f = *d->as<ast::FnDecl>();
    std::vector<std::string> ps;
    for (const auto &p : f.params) ps.push_back(p.name.name + ": " + ast::printType(p.type));
    std::string attrs;
    for (const auto &a : f.attributes) attrs += "@" + a.name + " ";
    return fmt::format("{}fn {}{}({}){}", attrs, name, mp, fmt::join(ps, ", "),
                       f.result ? " -> " + ast::printType(*f.result) : std::string());
  }
  case ast::Decl::Kind::Record: {
    const auto &rd = *d->as<ast::RecordDecl>();
    std::vector<std::string> fs;
    for (const auto &f : rd.fields) fs.push_back(f.name.name + ": " + ast::printType(f.type));
    return fmt::format("record {} {{ {} }}", name, fmt::join(fs, ", "));
  }
  case ast::Decl::Kind::Combine: return fmt::format("combine {}{} = {}", name, mp, ast::printCombineOp(d->as<ast::CombineDecl>()->op));
  case ast::Decl::Kind::View: return fmt::format("view {}{} = {}", name, mp, ast::printStage(d->as<ast::ViewDecl>()->stage));
  case ast::Decl::Kind::Mdh: {
    const hl::Program *g = comp_->sema().genericProgram(name);
    if (!g) return fmt::format("mdh {}{}", name, mp);
    std::vector<std::string> in, out;
    for (const auto &b : g->inputs) in.push_back(bufferSignature(b));
    for (const auto &b : g->outputs) out.push_back(bufferSignature(b));
    return fmt::format("mdh {}{} : ({}) -> ({})", name, mp, fmt::join(in, ", "), fmt::join(out, ", "));
  }
  }
  return "";
}

bool Session::showType(const std::string &name) {
  if (comp_ && comp_->sema().lookup(name)) {
    fmt::print(opts_.out, "{}\n", declSignature(name));
    return true;
  }
  if (last_) {
    for (auto *set : {&last_->inputs, &last_->outputs}) {
      auto it = set->find(name);
      if (it != set->end()) {
        fmt::print(opts_.out, "{}: {}{}  ({} of the last run)\n", name, it->second.elem.str(), data::shapeString(it->second.shape),
                   set == &last_->inputs ? "input" : "output");
        return true;
      }
    }
  }
  error(comp_ ? fmt::format("unknown name `{}` (`:browse` lists the declarations)", name) : "nothing is loaded");
  return false;
}

bool Session::showInfo(const std::string &name) {
  const ast::Decl *d = comp_ ? comp_->sema().lookup(name) : nullptr;
  if (!d) return showType(name);
  if (!d->doc.empty()) {
    std::string doc = d->doc;
    while (!doc.empty() && doc.back() == '\n') doc.pop_back();
    fmt::print(opts_.out, "/// {}\n", doc);
  }
  fmt::print(opts_.out, "{}\n", declSignature(name));
  if (d->range.valid()) {
    const SourceFile &f = comp_->sources().file(d->range.file);
    LineCol lc = f.lineCol(d->range.begin);
    fmt::print(opts_.out, "  -- declared at {}:{}:{}\n", f.path(), lc.line, lc.column);
  }
  if (d->kind == ast::Decl::Kind::Mdh) {
    if (const hl::Program *g = comp_->sema().genericProgram(name)) {
      std::string text = hl::printProgram(*g);
      fmt::print(opts_.out, "{}", text);
      for (const auto &b : g->inputs)
        if (!b.elem.containsParam())
          fmt::print(opts_.out, "  -- {} as NumPy: {}\n", b.name, data::dtypeOfType(b.elem).python());
      for (const auto &b : g->outputs)
        if (!b.elem.containsParam())
          fmt::print(opts_.out, "  -- {} as NumPy: {}\n", b.name, data::dtypeOfType(b.elem).python());
    }
    if (!d->metaParams.empty()) {
      std::vector<std::string> ex;
      for (const auto &p : d->metaParams) ex.push_back(p.name.name + (p.kind.name == "type" ? "=f32" : "=8"));
      fmt::print(opts_.out, "  -- run it with `:run {} --set {}`\n", name, fmt::join(ex, ","));
    } else if (const hl::Program *g = comp_->sema().genericProgram(name); g && !g->dynamicSizes.empty()) {
      // Sizes left to run time that no input may determine: the sample gives them values.
      std::vector<std::string> ex;
      for (const auto &s : g->dynamicSizes) ex.push_back(s + "=8");
      fmt::print(opts_.out, "  -- run it with `:run {} --set {}`\n", name, fmt::join(ex, ","));
    } else {
      fmt::print(opts_.out, "  -- run it with `:run {}`\n", name);
    }
  }
  return true;
}

void Session::browse() {
  if (!comp_) {
    error("nothing is loaded: give a file (`mdhi FILE`) or use `:load FILE`");
    return;
  }
  for (const auto &m : comp_->modules()) {
    const SourceFile &f = comp_->sources().file(m->file);
    fmt::print(opts_.out, "-- {}\n", f.path());
    for (const auto &d : m->decls) fmt::print(opts_.out, "  {}\n", declSignature(d->name.name));
  }
}

bool Session::print(const std::string &what) {
  if (!last_) {
    error("no run yet: `:run ENTRY` first");
    return false;
  }
  auto find = [&](const std::string &name) -> std::pair<const data::BufferData *, const std::vector<uint8_t> *> {
    if (auto it = last_->outputs.find(name); it != last_->outputs.end()) {
      auto d = last_->defined.find(name);
      return {&it->second, d == last_->defined.end() ? nullptr : &d->second};
    }
    if (auto it = last_->inputs.find(name); it != last_->inputs.end()) return {&it->second, nullptr};
    return {nullptr, nullptr};
  };
  if (what.empty()) {
    for (auto *set : {&last_->inputs, &last_->outputs})
      for (const auto &[name, b] : *set)
        fmt::print(opts_.out, "{} {}: {}{}\n", set == &last_->inputs ? "input " : "output", name, b.elem.str(), data::shapeString(b.shape));
    return true;
  }
  std::vector<CellRef> cells;
  std::string err;
  if (!parseCellList(what, cells, err)) {
    error(err);
    return false;
  }
  for (const auto &c : cells) {
    auto [buf, defined] = find(c.buffer);
    if (!buf) {
      error(fmt::format("no buffer `{}` in the last run (`:print` lists them)", c.buffer));
      return false;
    }
    if (what.find('[') == std::string::npos) {
      PrintLimits limits;
      limits.maxCells = 100000;
      fmt::print(opts_.out, "{}", formatBuffer(c.buffer, *buf, defined, limits));
      continue;
    }
    bool ok = c.index.size() == buf->shape.size();
    size_t linear = 0;
    for (size_t s = 0; ok && s < c.index.size(); ++s) {
      ok = c.index[s] < buf->shape[s];
      linear = linear * size_t(buf->shape[s]) + size_t(c.index[s]);
    }
    if (!ok) {
      error(fmt::format("`{}` has shape {}", c.buffer, data::shapeString(buf->shape)));
      return false;
    }
    bool isDefined = !defined || (*defined)[linear];
    fmt::print(opts_.out, "{}[{}] = {}\n", c.buffer, fmt::join(c.index, ", "),
               isDefined ? formatElement(buf->elem, buf->element(linear)) : std::string("⊥"));
  }
  return true;
}

std::vector<std::string> Session::completionNames() const {
  std::vector<std::string> names;
  if (comp_)
    for (const ast::Decl *d : comp_->sema().declarations()) names.push_back(d->name.name);
  if (last_) {
    for (const auto &[n, b] : last_->inputs) names.push_back(n);
    for (const auto &[n, b] : last_->outputs) names.push_back(n);
  }
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

} // namespace mdh::interp
