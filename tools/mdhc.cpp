// mdhc — the MDH compiler driver: check, format, print each pipeline stage.
// A thin front end: all logic lives in libmdh.
#include "ast/Printer.h"
#include "support/CliChecks.h"
#include "driver/CliSupport.h"
#include "driver/Compilation.h"
#include "codegen/CNames.h"
#include "codegen/DepFile.h"
#include "codegen/OpenMPEmitter.h"
#include "ll/RunTimeVariants.h"
#include "data/AtomicFiles.h"
#include "data/BufferFiles.h"
#include "data/DataError.h"
#include "data/RandomData.h"
#include "interp/Interpreter.h"
#include "interp/ProgramShapes.h"
#include "interp/RuntimeError.h"
#include "interp/ResultPrinter.h"
#include "runtime/CudaDevice.h"
#include "runtime/NativeLibrary.h"
#include "runtime/OpenCLDevice.h"
#include "codegen/GpuEmitters.h"
#include "tune/TuneDriver.h"
#include "tune/Tuner.h"
#include "tune/TuningInstance.h"
#include "hl/HLIR.h"
#include "ll/Config.h"
#include "ll/Lowering.h"
#include "support/InputFile.h"
#include "parse/FormatSource.h"

#include <nlohmann/json.hpp>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cctype>
#include <fmt/format.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

using namespace mdh;

namespace {

/// Whether `files` may write every one of `paths` (its protected sources excluded); if
/// not, prints why, after `option` ("-o: "). An unusable output is a usage error (exit 2),
/// refused before any work is spent on what would go there.
bool outputsUsable(const data::AtomicFileSet &files, const std::vector<std::string> &paths, const std::string &option = "") {
  try {
    for (const auto &path : paths) files.checkOutput(path);
    return true;
  } catch (const std::exception &e) {
    fmt::print(stderr, "error: {}{}\n", option, e.what());
    return false;
  }
}

struct Common {
  std::vector<std::string> files;
  std::vector<std::string> includes;
  bool werror = false;
  bool quiet = false;
};

void addCommon(CLI::App *app, Common &c, bool filesRequired = true) {
  auto *f = app->add_option("files", c.files, ".mdh source files");
  if (filesRequired) f->required();
  app->add_option("-I,--include", c.includes, "directory searched by `import`")->type_name("DIR")->allow_extra_args(false);
  app->add_flag("--Werror", c.werror, "treat warnings as errors");
  app->add_flag("-q,--quiet", c.quiet, "print errors only");
}

/// True while nothing reported so far fails the command: no error, and no
/// warning under --Werror. Asked again after instantiation, whose checks
/// (W0402 for size-dependent coefficients) only run for concrete sizes.
bool diagnosticsAllowGoingOn(Compilation &comp, const Common &c) {
  return !comp.diags().hasErrors() && !(c.werror && comp.diags().warningCount() > 0);
}

/// Loads and checks files; returns false on errors (diagnostics already printed).
bool loadAndCheck(Compilation &comp, const Common &c) {
  for (const auto &f : c.files) comp.addFile(f);
  comp.analyze();
  return diagnosticsAllowGoingOn(comp, c);
}

void report(Compilation &comp, const Common &c) {
  DiagnosticStyle style;
  style.errorsOnly = c.quiet;
  style.warningsAsErrors = c.werror;
  printDiagnostics(comp, stderr, style);
}

/// Options given before the subcommand (`mdhc --Werror check f.mdh`, as
/// `mdhc --help` lists them) count as if given after it.
void inheritTopLevel(const Common &top, Common &sub) {
  sub.files.insert(sub.files.begin(), top.files.begin(), top.files.end());
  sub.includes.insert(sub.includes.begin(), top.includes.begin(), top.includes.end());
  sub.werror = sub.werror || top.werror;
  sub.quiet = sub.quiet || top.quiet;
}

CompilationOptions optionsFor(const Common &c) {
  CompilationOptions o;
  o.includeDirs = c.includes;
  return o;
}

/// Each file is its own compilation unit, as with a C compiler.
int runCheck(const Common &c) {
  bool ok = true;
  for (const auto &file : c.files) {
    Compilation comp(optionsFor(c));
    Common one = c;
    one.files = {file};
    ok &= loadAndCheck(comp, one);
    report(comp, c);
  }
  return ok ? 0 : 1;
}

int runFmt(const Common &c, bool inPlace, bool checkOnly) {
  // --check: 1 when a file would be reformatted, 2 when one could not be formatted at all
  // (unreadable, syntax errors), so that a script tells the two apart.
  const int failed = checkOnly ? 2 : 1;
  int rc = 0;
  for (const auto &arg : c.files) {
    // `-` is standard input (an editor's format command), shown as <stdin>.
    const bool fromStdin = arg == "-";
    if (fromStdin && inPlace) {
      fmt::print(stderr, "error: standard input (`-`) cannot be formatted in place; drop -i to print the result\n");
      rc = std::max(rc, 2);
      continue;
    }
    const std::string file = fromStdin ? "<stdin>" : arg;
    Compilation comp(optionsFor(c));
    std::string text, reason;
    const size_t maxCodePoints = ParseLimits{}.maxFileCodePoints;
    const BoundedRead read = readBoundedFile(fromStdin ? "/dev/stdin" : file, sourceByteLimit(maxCodePoints), text, reason);
    if (read == BoundedRead::Failed) {
      // The same E0102 as `check` and `run` give (Compilation::addFile).
      comp.addFile(fromStdin ? "/dev/stdin" : file);
      report(comp, c);
      rc = std::max(rc, failed);
      continue;
    }
    if (read != BoundedRead::Complete) {
      comp.diags().error("E0010", {},
                         fmt::format("`{}` is too large (the limit is {} characters)", file, maxCodePoints),
                         "split it into modules and `import` them");
      report(comp, c);
      rc = std::max(rc, failed);
      continue;
    }
    FileId id = comp.sources().addFile(file, text);
    FormatOutcome outcome = formatSource(comp.sources(), id, comp.diags());
    if (outcome.status == FormatOutcome::Status::SyntaxErrors) {
      // Never rewrite a file we could not parse completely: that could lose text.
      report(comp, c);
      fmt::print(stderr, "{}: not formatted because it has syntax errors\n", file);
      rc = std::max(rc, failed);
      continue;
    }
    if (outcome.status == FormatOutcome::Status::TooLarge) {
      fmt::print(stderr, "{}: not formatted: {}\n", file, outcome.problem);
      rc = std::max(rc, failed);
      continue;
    }
    if (outcome.status == FormatOutcome::Status::NotReparsable) {
      fmt::print(stderr, "{}: not formatted: the formatted text would not parse (a formatter bug; please report it):\n{}",
                 file, outcome.problem);
      rc = std::max(rc, failed);
      continue;
    }
    const std::string &formatted = outcome.text;
    if (checkOnly) {
      if (formatted != text) {
        fmt::print("{}: would be reformatted\n", file);
        rc = std::max(rc, 1);
      }
    } else if (inPlace) {
      if (formatted == text) continue;
      // Like any output: through symbolic links, keeping permissions and hard links.
      try {
        data::AtomicFileSet files;
        files.stage(file, std::vector<uint8_t>(formatted.begin(), formatted.end()));
        files.commit();
      } catch (const std::exception &e) {
        fmt::print(stderr, "error: {}\n", e.what());
        rc = 1;
      }
    } else {
      fmt::print("{}", formatted);
    }
  }
  return rc;
}

/// The configuration for a program: the default heuristic, completed from a
/// (possibly partial) JSON file; invalid configurations are reported.  For
/// cuda, `cudaDevice` (when given) receives the GPU the configuration was made for.
std::optional<ll::Config> configFor(const hl::Program &prog, const std::string &path, int threads, bool strictFp = false,
                                     const std::string &backend = "openmp",
                                     std::optional<runtime::CudaDeviceInfo> *cudaDevice = nullptr) {
  ll::AsmModel model = ll::openmpModel();
  if (backend == "cuda") {
    // The GPU here when there is one (its shared memory and block size), else sm_80's tables.
    std::string why;
    auto device = runtime::queryCudaDevice(why);
    model = device ? runtime::cudaModelForDevice(*device) : ll::cudaModel(80);
    if (cudaDevice) *cudaDevice = device;
  }
  if (backend == "opencl") {
    std::string note;
    model = runtime::openclModelForDevice(note);
    if (!note.empty()) fmt::print(stderr, "note: {}\n", note);
  }
  ll::Config cfg = ll::defaultConfig(prog, model, threads);
  cfg.strictFp = strictFp;
  if (!path.empty()) {
    nlohmann::json j;
    std::string err;
    if (!readConfigJson(path, j, err)) {
      fmt::print(stderr, "error: {}\n", err);
      return std::nullopt;
    }
    ll::Config partial;
    partial.threads = threads;
    partial.model = model.name; // without "model" the configuration is for the backend asked for
    if (!ll::fromJson(j, partial, err)) {
      fmt::print(stderr, "error: --config {}: {}\n", configArgumentName(path), err);
      return std::nullopt;
    }
    // The model is data: `"model": "openmp-paper"` selects the paper's MM, L2, L1 | COR.
    if (partial.model != "openmp" && partial.model.rfind("openmp", 0) == 0) {
      if (auto m = ll::modelByName(partial.model)) model = *m;
    }
    cfg = ll::completeConfig(partial, prog, model);
    cfg.strictFp = cfg.strictFp || strictFp;
  }
  auto errs = ll::validate(cfg, prog, model);
  if (!errs.empty()) {
    fmt::print(stderr, "error: invalid configuration{}:\n", path.empty() ? "" : " `" + path + "`");
    for (const auto &e : errs) fmt::print(stderr, "  - {}\n", e);
    return std::nullopt;
  }
  return cfg;
}

/// The configurations an OpenMP entry is emitted with: the given one, or
/// without --config the default's, one per vector dimension the run-time
/// sizes may favour (ll/RunTimeVariants.h), lowered.
struct LoweredVariants {
  ll::VectorDimensionRule rule;
  ll::StreamingRule streaming;
  std::vector<ll::Lowered> lowered;
};
LoweredVariants loweredVariants(const hl::Program &prog, const ll::Config &cfg, const std::string &configPath,
                                const std::string &backend) {
  LoweredVariants v;
  std::vector<ll::Config> configs = {cfg};
  if (configPath.empty() && backend == "openmp") {
    ll::RunTimeVariants r = ll::runTimeVariants(prog, ll::openmpModel(), cfg);
    v.rule = r.rule;
    v.streaming = r.streaming;
    configs = r.configs;
  }
  for (const auto &c : configs) v.lowered.push_back(ll::lower(prog, c));
  return v;
}

/// --emit=ll of the variants: each printed, under the dimension it serves.
std::string printVariants(const LoweredVariants &v) {
  if (v.lowered.size() == 1) return ll::printLowered(v.lowered[0]);
  const hl::Program &p = *v.lowered[0].program;
  std::string out = fmt::format("// run-time dispatch: {} configurations, one per vector dimension and store kind; the entry "
                                "applies the default's choice of them to the sizes it is called with (the first for any other "
                                "choice)\n",
                                v.lowered.size());
  for (const auto &l : v.lowered) {
    const int d = l.config.simdDim;
    out += fmt::format("\n// ---- vector dimension {}{} ----\n", d >= 0 ? p.dimNames[size_t(d)] : "none",
                       l.config.streamStores ? ", streaming stores" : "");
    out += ll::printLowered(l);
  }
  return out;
}

int runEmit(const Common &c, const std::string &emit, const std::string &entry, const std::vector<std::string> &sets,
            const std::string &configPath, int threads) {
  Compilation comp(optionsFor(c));
  MetaSettings settings;
  std::string err;
  if (!parseMetaSettings(sets, settings, err)) {
    fmt::print(stderr, "error: {}\n", err);
    return 2;
  }
  if (emit == "ast") {
    for (const auto &f : c.files) {
      const ast::Module *m = comp.addFile(f);
      if (m) fmt::print("{}", ast::dumpModule(*m));
    }
    report(comp, c);
    return comp.diags().hasErrors() ? 1 : 0;
  }
  if (emit == "hl" && entry.empty()) {
    // Without an entry: the modules themselves, printed back in canonical form.
    bool ok = true;
    for (const auto &f : c.files) {
      const ast::Module *m = comp.addFile(f);
      if (m && !comp.diags().hasErrors()) fmt::print("{}", ast::formatModule(*m, comp.sources()));
    }
    comp.analyze();
    ok = !comp.diags().hasErrors();
    report(comp, c);
    return ok ? 0 : 1;
  }
  bool ok = loadAndCheck(comp, c);
  if (ok) {
    if (entry.empty()) {
      fmt::print(stderr, "error: --emit={} needs --entry NAME (and --set for its meta-parameters)\n", emit);
      return 2;
    }
    // Printing may leave meta-parameters symbolic; code generation may not.
    auto prog = comp.sema().instantiate(entry, settings, emit == "hl");
    if (prog && !diagnosticsAllowGoingOn(comp, c)) prog.reset();
    if (prog) {
      std::string text;
      if (emit == "hl") {
        text = hl::printProgram(*prog);
      } else {
        auto cfg = configFor(*prog, configPath, threads);
        if (!cfg) return 2; // the --config argument: a usage error
        LoweredVariants variants = loweredVariants(*prog, *cfg, configPath, "openmp");
        text = emit == "ll" ? printVariants(variants) : codegen::emitOpenMPDispatch(variants.lowered, variants.rule, variants.streaming).source;
      }
      // The diagnostics first, in the order they were found (on one pipe,
      // `2>&1`, they used to land wherever stdout's buffer was flushed).
      report(comp, c);
      fmt::print("{}", text);
      return 0;
    }
  }
  report(comp, c);
  return 1;
}

/// Parses `--set` items and checks the files; returns the exit status to
/// use on failure (0 when the caller may go on).
int prepare(Compilation &comp, const Common &c, const std::vector<std::string> &sets, MetaSettings &settings) {
  std::string err;
  if (!parseMetaSettings(sets, settings, err)) {
    fmt::print(stderr, "error: {}\n", err);
    return 2;
  }
  if (!loadAndCheck(comp, c)) {
    report(comp, c);
    return 1;
  }
  return 0;
}

/// prepare() and the instantiation of `entry`; on failure `rc` is the exit status.
/// With `runTimeSizes`, --set items that name run-time sizes go there (as in
/// `mdhc run`) instead of being unknown meta-parameters.
std::unique_ptr<hl::Program> instantiateEntry(Compilation &comp, const Common &c, const std::string &entry,
                                              const std::vector<std::string> &sets, int &rc,
                                              std::map<std::string, std::string> *runTimeSizes = nullptr) {
  MetaSettings settings;
  if ((rc = prepare(comp, c, sets, settings))) return nullptr;
  MetaSettings meta;
  if (runTimeSizes) splitRunTimeSizes(comp.sema().lookup(entry), settings, meta, *runTimeSizes);
  else meta = settings;
  // `N=*` with `N=<extent>` gives a run-time size's value, which only a run uses.
  for (size_t i = 0; i < meta.size(); ++i)
    for (size_t j = 0; j < i; ++j)
      if (meta[i].first == meta[j].first) {
        fmt::print(stderr, "error: `{}` is set twice (`{}` and `{}`); only `mdhc run` takes the value of a run-time size\n",
                   meta[i].first, meta[j].second, meta[i].second);
        rc = 2;
        return nullptr;
      }
  auto prog = comp.sema().instantiate(entry, meta);
  report(comp, c);
  if (prog && !diagnosticsAllowGoingOn(comp, c)) prog.reset();
  rc = prog ? 0 : 1;
  return prog;
}

/// The instance to tune: `entry` with its run-time sizes fixed to their
/// --set values (tune/TuningInstance.h); on failure `rc` is the exit status.
std::unique_ptr<hl::Program> instanceToTune(Compilation &comp, const Common &c, const std::string &entry,
                                            const std::vector<std::string> &sets, int &rc) {
  std::map<std::string, std::string> sizes;
  auto prog = instantiateEntry(comp, c, entry, sets, rc, &sizes);
  if (!prog) return nullptr;
  Diagnostic problem;
  if (!tune::fixRunTimeSizesForTuning(entry, *prog, sizes, problem)) {
    fmt::print(stderr, "{}", renderDiagnostic(comp.sources(), problem, isTerminal(stderr)));
    rc = 1;
    return nullptr;
  }
  return prog;
}

/// The directories `-o DIR` creates (as `mkdir -p`), removed again when the command fails
/// and leaves them empty: a failed compile leaves nothing behind.
class NewDirectories {
public:
  explicit NewDirectories(const std::string &dir) {
    namespace fs = std::filesystem;
    std::error_code ec;
    fs::path p = fs::absolute(dir, ec).lexically_normal();
    if (!ec && p.filename().empty()) p = p.parent_path(); // `out/`
    for (; !ec && !p.empty() && !fs::exists(p, ec) && p != p.parent_path(); p = p.parent_path()) created_.push_back(p);
    fs::create_directories(dir, ec);
  }
  NewDirectories(const NewDirectories &) = delete;
  NewDirectories &operator=(const NewDirectories &) = delete;
  void keep() { created_.clear(); }
  ~NewDirectories() {
    std::error_code ec;
    for (const auto &p : created_) std::filesystem::remove(p, ec); // deepest first; fails where not empty
  }

private:
  std::vector<std::filesystem::path> created_;
};

int runCompile(const Common &c, const std::string &entry, const std::vector<std::string> &sets, const std::string &configPath,
               int threads, const std::string &backend, const std::string &outDir, const std::string &name, bool strictFp,
               bool tuned = false, const std::string &depfile = "") {
  auto isIdentifier = [](const std::string &n) {
    if (n.empty() || std::isdigit(static_cast<unsigned char>(n[0]))) return false;
    for (char ch : n)
      if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '_') return false;
    return true;
  };
  if (!name.empty() && !isIdentifier(name)) {
    fmt::print(stderr, "error: --name `{}` is not a C identifier (letters, digits and `_`, not starting with a digit); it "
                       "names the entry symbol and the files\n", name);
    return 2;
  }
  if (!name.empty() && codegen::isReservedSymbol(name) && name.rfind("mdh_entry_", 0) != 0) {
    fmt::print(stderr, "error: --name {0}: `{0}` is a reserved word, a name of the C, math, OpenMP, OpenCL or CUDA "
                       "libraries the generated code uses, or in the `mdh_` namespace of its helpers; choose another "
                       "symbol (e.g. --name mdh_entry_{0}, the default renaming)\n", name);
    return 2;
  }
  Compilation comp(optionsFor(c));
  int rc = 0;
  // --tune: values of run-time sizes were what the tuner measured; the entry still takes them at run time.
  std::map<std::string, std::string> tunedSizes;
  auto prog = instantiateEntry(comp, c, entry, sets, rc, tuned ? &tunedSizes : nullptr);
  if (!prog) return rc;
  std::optional<runtime::CudaDeviceInfo> gpu;
  auto cfg = configFor(*prog, configPath, threads, strictFp, backend, &gpu);
  if (!cfg) return 2; // the --config argument: a usage error
  LoweredVariants variants = loweredVariants(*prog, *cfg, configPath, backend);
  const ll::Lowered &lowered = variants.lowered[0];
  if (name.empty() && codegen::defaultSymbol(*prog) != prog->instanceName && !c.quiet)
    fmt::print(stderr, "note: `{}` is a reserved word or a library name in the generated code; the entry symbol is `{}` "
                       "(choose another with --name)\n", prog->instanceName, codegen::defaultSymbol(*prog));
  auto kernel = backend == "opencl" ? codegen::emitOpenCL(lowered, name)
                : backend == "cuda" ? codegen::emitCuda(lowered, name)
                                    : codegen::emitOpenMPDispatch(variants.lowered, variants.rule, variants.streaming, name);
  const std::string ext = backend == "cuda" ? ".cu" : ".cpp";
  NewDirectories madeOutDir(outDir);
  auto bytes = [](const std::string &t) { return std::vector<uint8_t>(t.begin(), t.end()); };
  try {
    data::AtomicFileSet files;
    files.protect(sourceFiles(comp), "a source file of the program");
    std::vector<std::string> outputs;
    for (const std::string &suffix : {ext, std::string(".h"), std::string(".config.json")})
      outputs.push_back(outDir + "/" + kernel.name + suffix);
    if (!depfile.empty()) outputs.push_back(depfile);
    if (!outputsUsable(files, outputs)) return 2;
    // Unchanged outputs keep their times: a comment-only edit of the program rebuilds nothing after them.
    files.stageUnlessSame(outDir + "/" + kernel.name + ext, bytes(kernel.source));
    files.stageUnlessSame(outDir + "/" + kernel.name + ".h", bytes(kernel.header));
    files.stageUnlessSame(outDir + "/" + kernel.name + ".config.json", bytes(ll::toJson(*cfg).dump(2) + "\n"));
    // The generated source depends on every .mdh file read: the main one and its imports.
    if (!depfile.empty()) {
      auto absolute = [](const std::string &f) { return std::filesystem::absolute(f).lexically_normal().string(); };
      std::vector<std::string> read;
      for (const auto &f : sourceFiles(comp)) read.push_back(absolute(f));
      files.stage(depfile, bytes(codegen::makeDepfile(absolute(outDir + "/" + kernel.name + ext), read)));
    }
    files.commit();
  } catch (const std::exception &e) {
    fmt::print(stderr, "error: {}\n", e.what());
    return 1;
  }
  madeOutDir.keep();
  if (!c.quiet) {
    // CUDA: the GPU here when there is one (its configuration was validated for it), else sm_80.
    std::string compiler = "c++ -std=c++17";
    if (backend == "cuda") compiler = "nvcc " + (gpu ? runtime::cudaArchFlag(*gpu) : std::string("-arch=sm_80"));
    fmt::print("{0}/{1}{2}\n{0}/{1}.h\n# build with: {3} {4} -c {0}/{1}{2}\n# link with: {5}\n", outDir, kernel.name,
               ext, compiler, kernel.compileFlags, kernel.linkFlags);
  }
  return 0;
}

/// Options of `mdhc tune` and of `mdhc compile --tune`.
struct TuneCli {
  tune::TuneOptions opts;
  std::string out, pinPath, dbDir, reportDir;
  std::string backend = "openmp";   ///< tune --backend (compile --tune: compile's --backend)
  bool show = false;
  int jobs = 0;
  bool compileTune = false;         ///< compile --tune
  int compileEvaluations = 64;      ///< compile --tune-evaluations
  double compileSeconds = 600;      ///< compile --tune-seconds
  double warmupMs = 10;             ///< tune --warmup-ms
};

/// The driver options for one instantiation: pins, reproducer command, terminal.
bool tuneDriverOptions(const Common &c, const std::string &entry, const std::vector<std::string> &sets, int threads,
                       const TuneCli &cli, const std::string &pinPath, tune::DriverOptions &d) {
  d.tune = cli.opts;
  d.tune.threads = threads;
  d.tune.warmupSeconds = cli.warmupMs / 1000;
  d.tune.reportDir = cli.reportDir;
  d.tune.terminal = isTerminal(stderr);
  d.tune.quiet = c.quiet;
  d.sets = sets;
  d.dbDir = cli.dbDir;
  d.jobs = cli.jobs;
  d.backend = cli.backend;
  if (!pinPath.empty()) {
    nlohmann::json j;
    std::string err;
    if (!readConfigJson(pinPath, j, err)) {
      fmt::print(stderr, "error: {}\n", err);
      return false;
    }
    if (!tune::Pins::parse(j, d.tune.pins, err)) {
      fmt::print(stderr, "error: cannot use {} as pinned parameters: {}\n", configArgumentName(pinPath), err);
      return false;
    }
  }
  std::string cmd = "mdhc run";
  for (const auto &f : c.files) cmd += " " + f;
  for (const auto &i : c.includes) cmd += " -I " + i;
  cmd += " --entry " + entry;
  for (const auto &s : sets) cmd += " --set " + s;
  cmd += fmt::format(" --seed {}", d.tune.seed);
  if (threads) cmd += fmt::format(" --threads {}", threads);
  if (cli.backend != "openmp") cmd += " --backend " + cli.backend;
  d.tune.reproduceCommand = cmd + " --config {config}";
  d.tune.reportTitle = fmt::format("mdhc tune {} --entry {} {}", c.files.empty() ? "" : c.files[0], entry, fmt::join(sets, ","));
  return true;
}

/// `mdhc tune`: measure candidates (resuming from the tuning database), write the fastest configuration.
int runTune(const Common &c, const std::string &entry, const std::vector<std::string> &sets, int threads, const TuneCli &cli) {
  Compilation comp(optionsFor(c));
  int rc = 0;
  auto prog = instanceToTune(comp, c, entry, sets, rc);
  if (!prog) return rc;
  tune::DriverOptions d;
  if (!tuneDriverOptions(c, entry, sets, threads, cli, cli.pinPath, d)) return 2;
  if (cli.show) return tune::showTuning(*prog, d);
  // The result is written after the search: refuse an unusable -o first.
  data::AtomicFileSet files;
  files.protect(sourceFiles(comp), "a source file of the program");
  if (!cli.out.empty() && !outputsUsable(files, {cli.out}, "-o: ")) return 2;
  // So is an unusable --report directory: it is written after the search too.
  if (!cli.reportDir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(cli.reportDir, ec);
    if (!outputsUsable(files, {cli.reportDir + "/tuning.csv", cli.reportDir + "/convergence.svg"}, "--report: ")) return 2;
  }
  d.tune.reproducerBase = cli.out.empty() ? "mdh-tune-" + prog->instanceName : cli.out;
  std::optional<ll::Config> best;
  rc = tune::runTuning(*prog, d, best);
  if (!best || (rc != 0 && rc != 130)) return rc;
  std::string json = ll::toJson(*best).dump(2) + "\n";
  if (cli.out.empty()) {
    fmt::print("{}", json);
    return rc;
  }
  try {
    files.stage(cli.out, std::vector<uint8_t>(json.begin(), json.end()));
    files.commit();
  } catch (const std::exception &e) {
    fmt::print(stderr, "error: {}\n", e.what());
    return 1;
  }
  return rc;
}

/// `mdhc compile --tune`: the best recorded configuration, after tuning for
/// what is left of the budget; written to `<out>/<instance>.tuned.json`.
int tuneForCompile(const Common &c, const std::string &entry, const std::vector<std::string> &sets, const std::string &configPath,
                   int threads, const std::string &backend, const std::string &outDir, const TuneCli &cliIn, std::string &tunedPath) {
  TuneCli cli = cliIn;
  cli.backend = backend;
  Compilation comp(optionsFor(c));
  int rc = 0;
  auto prog = instanceToTune(comp, c, entry, sets, rc);
  if (!prog) return rc;
  tune::DriverOptions d;
  if (!tuneDriverOptions(c, entry, sets, threads, cli, configPath, d)) return 2;
  d.tune.evaluations = cli.compileEvaluations;
  d.tune.seconds = cli.compileSeconds;
  d.remainingBudgetOnly = true;
  d.tune.reproducerBase = outDir + "/" + prog->instanceName;
  tunedPath = outDir + "/" + prog->instanceName + ".tuned.json";
  { // before the budget is spent, not after it
    std::error_code ec;
    std::filesystem::create_directories(outDir, ec);
    data::AtomicFileSet files;
    files.protect(sourceFiles(comp), "a source file of the program");
    if (!outputsUsable(files, {tunedPath})) return 2;
  }
  std::optional<ll::Config> best;
  rc = tune::runTuning(*prog, d, best);
  if (rc != 0) return rc;
  std::string json = ll::toJson(*best).dump(2) + "\n";
  try {
    std::error_code ec;
    std::filesystem::create_directories(outDir, ec);
    data::AtomicFileSet files;
    files.protect(sourceFiles(comp), "a source file of the program");
    files.stage(tunedPath, std::vector<uint8_t>(json.begin(), json.end()));
    files.commit();
  } catch (const std::exception &e) {
    fmt::print(stderr, "error: {}\n", e.what());
    return 1;
  }
  return 0;
}

/// Splits `BUF=FILE` items.
bool splitAssignments(const std::vector<std::string> &items, std::map<std::string, std::string> &out) {
  for (const auto &it : items) {
    size_t eq = it.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == it.size()) {
      fmt::print(stderr, "error: expected BUF=FILE, got `{}`\n", it);
      return false;
    }
    if (!out.emplace(it.substr(0, eq), it.substr(eq + 1)).second) {
      fmt::print(stderr, "error: buffer `{}` is given twice (`{}` and `{}`); give each buffer once\n", it.substr(0, eq),
                 out[it.substr(0, eq)], it.substr(eq + 1));
      return false;
    }
  }
  return true;
}

/// `mdhc run`: compile with the system compiler, load, run on .npy inputs
/// (random when no file is given), write or print the outputs.
int runRun(const Common &c, const std::string &entry, const std::vector<std::string> &sets, const std::string &configPath,
           int threads, const std::vector<std::string> &ins, const std::vector<std::string> &outs, uint64_t seed,
           bool strictFp, const std::string &backend = "openmp", bool allowUndefined = false) {
  Compilation comp(optionsFor(c));
  MetaSettings settings;
  if (int rc = prepare(comp, c, sets, settings)) return rc;
  std::string err;
  std::optional<runtime::CudaDeviceInfo> cudaDevice;
  if (backend == "cuda" && !(cudaDevice = runtime::queryCudaDevice(err))) {
    fmt::print(stderr, "error: --backend cuda: {}; without an NVIDIA GPU, run the same kernels with --backend opencl\n", err);
    return 1;
  }
  // Run-time sizes may be given with --set like meta-parameters.
  MetaSettings meta;
  std::map<std::string, std::string> sizes;
  splitRunTimeSizes(comp.sema().lookup(entry), settings, meta, sizes);
  auto prog = comp.sema().instantiate(entry, meta);
  report(comp, c);
  if (!prog || !diagnosticsAllowGoingOn(comp, c)) return 1;
  std::map<std::string, int64_t> given;
  Diagnostic problem;
  if (!readRunTimeSizes(entry, *prog, sizes, given, problem, comp.sema().lookup(entry))) {
    fmt::print(stderr, "{}", renderDiagnostic(comp.sources(), problem, isTerminal(stderr)));
    return 1;
  }
  std::map<std::string, std::string> inFiles, outFiles;
  if (!splitAssignments(ins, inFiles) || !splitAssignments(outs, outFiles)) return 2;
  try {
    data::BufferSet inputs;
    for (const auto &b : prog->inputs)
      if (auto it = inFiles.find(b.name); it != inFiles.end()) inputs[b.name] = data::loadBufferFile(it->second, b.name, b.elem);
    auto isNamed = [](const std::vector<hl::Buffer> &bufs, const std::string &name) {
      return std::any_of(bufs.begin(), bufs.end(), [&](const hl::Buffer &b) { return b.name == name; });
    };
    for (const auto &[k, v] : inFiles)
      if (!inputs.count(k)) {
        fmt::print(stderr, "error: `{}` is not an input buffer of `{}` (inputs: {}){}\n", k, entry, hl::quotedNames(prog->inputs),
                   isNamed(prog->outputs, k) ? "; it is an output: use `--out`" : "");
        return 2;
      }
    for (const auto &[k, v] : outFiles)
      if (!isNamed(prog->outputs, k)) {
        fmt::print(stderr, "error: `{}` is not an output buffer of `{}` (outputs: {}){}\n", k, entry, hl::quotedNames(prog->outputs),
                   isNamed(prog->inputs, k) ? "; it is an input: use `--in`" : "");
        return 2;
      }
    data::AtomicFileSet files; // checked before compiling, written after the run
    files.protect(sourceFiles(comp), "a source file of the program");
    std::vector<std::string> outPaths;
    for (const auto &[k, path] : outFiles) outPaths.push_back(path);
    if (!outputsUsable(files, outPaths)) return 2; // as in mdhi run and mdhc tune
    // Shapes (and run-time sizes) from the given inputs, then random data for the rest.
    interp::ProgramShapes shapes = interp::resolveShapes(*prog, interp::shapesOf(inputs), given);
    for (size_t i = 0; i < prog->inputs.size(); ++i) {
      const auto &b = prog->inputs[i];
      if (!inputs.count(b.name)) {
        inputs[b.name] = data::randomBuffer(b.name, b.elem, shapes.inputs[i], seed);
        if (!c.quiet)
          fmt::print(stderr, "note: random input {} {}{} (seed {})\n", b.name, b.elem.str(), data::shapeString(shapes.inputs[i]), seed);
      }
    }
    auto ordered = interp::checkInputs(*prog, shapes, inputs);
    // Like mdhi: output cells that no index function writes are an error,
    // not zeros (checked before anything is compiled or run).
    if (!allowUndefined) interp::requireDefinedOutputs(*prog, shapes);
    auto cfg = configFor(*prog, configPath, threads, strictFp, backend);
    if (!cfg) return 2; // the --config argument: a usage error
    LoweredVariants variants = loweredVariants(*prog, *cfg, configPath, backend);
    const ll::Lowered &lowered = variants.lowered[0];
    auto kernel = backend == "opencl" ? codegen::emitOpenCL(lowered)
                  : backend == "cuda"   ? codegen::emitCuda(lowered)
                                        : codegen::emitOpenMPDispatch(variants.lowered, variants.rule, variants.streaming);
    std::string flags = kernel.flags;
    if (backend == "cuda") flags += " " + runtime::cudaArchFlag(*cudaDevice);
    runtime::BuildFailure failure;
    auto lib = runtime::NativeLibrary::build(kernel.source, flags, err, "",
                                             backend == "cuda" ? runtime::Toolchain::Cuda : runtime::Toolchain::HostCxx,
                                             &failure);
    if (!lib) {
      fmt::print(stderr, "error: {}\n", err);
      return failure == runtime::BuildFailure::Interrupted ? 130 : 1; // 130: a shell's status for Ctrl-C
    }
    data::BufferSet outputs;
    std::vector<void *> ptrs;
    for (const auto *b : ordered) ptrs.push_back(const_cast<uint8_t *>(b->bytes.data()));
    for (size_t i = 0; i < prog->outputs.size(); ++i) {
      data::BufferData d;
      d.elem = prog->outputs[i].elem;
      d.shape = shapes.outputs[i];
      d.bytes.assign(d.elementCount() * d.elementSize(), 0);
      outputs[prog->outputs[i].name] = std::move(d);
    }
    for (const auto &b : prog->outputs) ptrs.push_back(outputs.at(b.name).bytes.data());
    std::vector<int64_t> dyn;
    for (const auto &s : prog->dynamicSizes) dyn.push_back(shapes.runtimeSizes.at(s));
    if (int status = lib->entry(kernel.name)(dyn.data(), ptrs.data())) {
      fmt::print(stderr, "error: the {} kernel failed (status {})\n", backend, status);
      return 1;
    }
    for (const auto &[k, path] : outFiles) files.stage(path, data::encodeBuffer(outputs.at(k)));
    files.commit();
    if (!c.quiet) // like `mdhi run -q`: results only through --out
      for (const auto &b : prog->outputs)
        if (!outFiles.count(b.name)) fmt::print("{}", interp::formatBuffer(b.name, outputs.at(b.name), nullptr));
  } catch (const interp::RuntimeError &e) {
    fmt::print(stderr, "{}", renderDiagnostic(comp.sources(), e.toDiagnostic(), isTerminal(stderr)));
    return 1;
  } catch (const std::bad_alloc &) {
    fmt::print(stderr, "error: out of memory: the buffers of this run do not fit (smaller sizes, or run on a larger machine)\n");
    return 1;
  } catch (const std::exception &e) {
    fmt::print(stderr, "error: {}\n", e.what());
    return 1;
  }
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  CLI::App app{"mdhc — compiler for the MDH language (Multi-Dimensional Homomorphisms)"};
  app.set_version_flag("--version", std::string("mdhc ") + MDH_VERSION);
  app.require_subcommand(0, 1);

  Common top;
  std::string emit, entry;
  std::vector<std::string> sets;
  addCommon(&app, top, false);
  app.add_option("--emit", emit, "print a pipeline stage: ast | hl | ll | code")
      ->check(CLI::IsMember({"ast", "hl", "ll", "code"}));
  app.add_option("-e,--entry", entry, "the mdh declaration to instantiate");
  app.add_option("-s,--set", sets, "meta-parameter values, e.g. T=f32,I=512 (a size may be * for run time)")->allow_extra_args(false);

  Common checkOpts;
  auto *check = app.add_subcommand("check", "check files for errors (exit 1 if any)");
  addCommon(check, checkOpts);

  bool strictFp = false;
  TuneCli tuneCli; // `mdhc tune`, and `mdhc compile --tune`
  Common compileOpts;
  std::string configPath, backend = "openmp", outDir = ".";
  int threads = 0;
  auto *compileCmd = app.add_subcommand("compile", "generate code for one instantiation");
  addCommon(compileCmd, compileOpts);
  compileCmd->add_option("-e,--entry", entry, "the mdh declaration to instantiate")->required();
  compileCmd->add_option("-s,--set", sets, "meta-parameter values, e.g. T=f32,I=512 (a size may be * for run time)")->allow_extra_args(false);
  compileCmd->add_option("--config", configPath, "low-level configuration: a JSON file or JSON text (partial is completed by the default)");
  compileCmd->add_option("--backend", backend, "openmp | cuda | opencl")->check(CLI::IsMember({"openmp", "cuda", "opencl"}));
  compileCmd->add_option("--threads", threads, "pin the thread count (0: OpenMP default)")->check(atLeast(0));
  compileCmd->add_flag("--strict-fp", strictFp, "no FMA contraction: element-wise float programs are bit-exact with mdhi");
  compileCmd->add_option("-o,--output", outDir, "output directory (default: the current one)")
      ->check(nonEmpty("omit -o for the current directory"));
  std::string kernelName;
  compileCmd->add_option("--name", kernelName, "entry symbol and file name (default: the instance name, e.g. matvec_f32_1024_512)");
  std::string depfile;
  compileCmd->add_option("--depfile", depfile, "also write a Make-style dependency file: the source on every .mdh file read")
      ->check(nonEmpty("omit --depfile to write none"));
  compileCmd->add_flag("--tune", tuneCli.compileTune, "use the best tuned configuration (tuning first while the budget lasts; --config pins)");
  compileCmd->add_option("--tune-seconds", tuneCli.compileSeconds, "total tuning budget in seconds (default 600)")->check(atLeast(0));
  compileCmd->add_option("--tune-evaluations", tuneCli.compileEvaluations, "total tuning budget in evaluations (default 64)")
      ->check(atLeast(0));
  compileCmd->add_option("--tune-db", tuneCli.dbDir, "tuning database directory (default $MDH_TUNE_DB or ~/.cache/mdh/tuning)");
  app.add_option("--config", configPath, "low-level configuration for --emit=ll|code: a JSON file or JSON text");
  app.add_option("--threads", threads, "thread count for --emit=ll|code")->check(atLeast(0));

  Common runOpts;
  std::vector<std::string> ins, outs;
  uint64_t seed = 1;
  auto *runCmd = app.add_subcommand("run", "compile with the system compiler, load and run on .npy data (like `mdhi run`)");
  addCommon(runCmd, runOpts);
  runCmd->add_option("-e,--entry", entry, "the mdh declaration to run")->required();
  runCmd->add_option("-s,--set", sets, "meta-parameters and run-time sizes, e.g. T=f32,I=512")->allow_extra_args(false);
  runCmd->add_option("--config", configPath, "low-level configuration: a JSON file or JSON text");
  runCmd->add_option("--threads", threads, "pin the thread count (0: OpenMP default)")->check(atLeast(0));
  runCmd->add_option("--in", ins, "input buffer data BUF=FILE.npy (random data otherwise)")->allow_extra_args(false);
  runCmd->add_option("--out", outs, "write output BUF=FILE.npy (atomically)")->allow_extra_args(false);
  runCmd->add_option("--seed", seed, "seed of random inputs")->check(atLeast(0));
  runCmd->add_flag("--strict-fp", strictFp, "no FMA contraction: element-wise float programs are bit-exact with mdhi");
  bool allowUndefined = false;
  runCmd->add_flag("--allow-undefined", allowUndefined,
                   "output cells no index function writes (⊥) are not an error; they hold zeros");
  std::string runBackend = "openmp";
  runCmd->add_option("--backend", runBackend, "openmp | opencl (the default OpenCL device) | cuda (CUDA device 0, built by nvcc)")
      ->check(CLI::IsMember({"openmp", "opencl", "cuda"}));

  Common tuneOpts;
  auto *tuneCmd = app.add_subcommand("tune", "search configurations by measured run time; writes the fastest as JSON");
  addCommon(tuneCmd, tuneOpts);
  tuneCmd->add_option("-e,--entry", entry, "the mdh declaration to tune")->required();
  tuneCmd->add_option("-s,--set", sets, "meta-parameter values, and values of run-time sizes to tune at")->allow_extra_args(false);
  tuneCmd->add_option("--evaluations", tuneCli.opts.evaluations, "new candidates to measure (default 64; resumed ones do not count)")
      ->check(atLeast(0));
  tuneCmd->add_option("--seconds", tuneCli.opts.seconds, "wall-time budget in seconds (default 600)")->check(atLeast(0));
  tuneCmd->add_option("--plateau", tuneCli.opts.plateau, "stop after N evaluations without a 1% improvement (default: never)")
      ->check(atLeast(0));
  tuneCmd->add_option("--technique", tuneCli.opts.technique, "auc (bandit over the others, default) | random | annealing | pattern")
      ->check(CLI::IsMember({"auc", "random", "annealing", "pattern"}));
  tuneCmd->add_option("--seed", tuneCli.opts.seed, "seed of the search and of the input data")->check(atLeast(0));
  tuneCmd->add_option("--threads", threads, "pin the thread count (0: searched)")->check(atLeast(0));
  tuneCmd->add_option("--pin", tuneCli.pinPath, "partial configuration whose fields stay fixed: a JSON file or JSON text");
  tuneCmd->add_option("--db", tuneCli.dbDir, "tuning database directory (default $MDH_TUNE_DB or ~/.cache/mdh/tuning)");
  tuneCmd->add_option("--report", tuneCli.reportDir, "write tuning.csv and convergence.svg into DIR");
  tuneCmd->add_flag("--show", tuneCli.show, "print what the tuning database holds for this instantiation, tune nothing");
  tuneCmd->add_option("--batch", tuneCli.opts.batch, "candidates compiled per compile phase (default 8)")->check(atLeast(1));
  tuneCmd->add_option("--repetitions", tuneCli.opts.repetitions, "timed runs per candidate after a warm-up (default 5)")
      ->check(atLeast(1));
  tuneCmd->add_option("--warmup-ms", tuneCli.warmupMs,
                      "after a candidate's first run, untimed runs while they fit in this many ms, so that the timed runs "
                      "find its own cache state, not the previous candidate's (default 10; 0: one warm-up run)")
      ->check(CLI::Range(0.0, 10000.0));
  tuneCmd->add_option("--confirm", tuneCli.opts.confirm,
                      "re-time the N fastest candidates and the default side by side at the end; the ranking of those rounds "
                      "picks the result (default 4; 0: the single fastest measurement wins)")
      ->check(CLI::Range(0, 64));
  tuneCmd->add_option("--realtime", tuneCli.opts.realtimePriority,
                      "time candidates under SCHED_FIFO at this priority (needs the privilege; the tuner and compilers stay normal)")
      ->check(CLI::Range(0, 99));
  tuneCmd->add_option("--timeout", tuneCli.opts.candidateTimeout,
                     "seconds per candidate before it is killed (0, the default: from the default's time)")
      ->check(atLeast(0));
  tuneCmd->add_option("--compile-timeout", tuneCli.opts.compileTimeout,
                      "seconds a compiler may run before its candidates count as failed (0, the default: max(15, 8x the "
                      "default's compile))")
      ->check(atLeast(0));
  tuneCmd->add_option("--jobs", tuneCli.jobs, "concurrent compiler processes (0, the default: up to 2)")->check(atLeast(0));
  tuneCmd->add_option("-o,--output", tuneCli.out, "write the best configuration here (atomically)")
      ->check(nonEmpty("omit -o to print the configuration"));
  tuneCmd->add_option("--backend", tuneCli.backend,
                      "openmp (default) | opencl (kernels on the default OpenCL device) | cuda (CUDA device 0, built by nvcc; "
                      "kernels timed on device-resident data)")
      ->check(CLI::IsMember({"openmp", "opencl", "cuda"}));

  Common fmtOpts;
  bool inPlace = false, fmtCheck = false;
  auto *fmtCmd = app.add_subcommand("fmt", "format files (to stdout, or in place with -i)");
  addCommon(fmtCmd, fmtOpts);
  fmtCmd->add_flag("-i,--in-place", inPlace, "rewrite the files");
  fmtCmd->add_flag("--check", fmtCheck, "exit 1 if a file would be reformatted, 2 if one cannot be formatted");

  if (int rc = parseCommandLine(app, argc, argv); rc >= 0) return rc;
  for (Common *sub : {&checkOpts, &compileOpts, &runOpts, &tuneOpts, &fmtOpts}) inheritTopLevel(top, *sub);
  if (*check) return runCheck(checkOpts);
  if (*fmtCmd) return runFmt(fmtOpts, inPlace, fmtCheck);
  // A time budget alone is not cut short by the default evaluation count.
  if (tuneCmd->count("--seconds") && !tuneCmd->count("--evaluations")) tuneCli.opts.evaluations = tune::kUnboundedEvaluations;
  if (compileCmd->count("--tune-seconds") && !compileCmd->count("--tune-evaluations")) tuneCli.compileEvaluations = tune::kUnboundedEvaluations;
  if (*tuneCmd) return runTune(tuneOpts, entry, sets, threads, tuneCli);
  if (*compileCmd && compileCmd->count("--name") && kernelName.empty()) {
    fmt::print(stderr, "error: --name is empty; give a C identifier, or leave --name out for the instance name\n");
    return 2;
  }
  if (*compileCmd && tuneCli.compileTune) {
    std::string tuned;
    if (int rc = tuneForCompile(compileOpts, entry, sets, configPath, threads, backend, outDir, tuneCli, tuned)) return rc;
    configPath = tuned;
  }
  if (*runCmd) return runRun(runOpts, entry, sets, configPath, threads, ins, outs, seed, strictFp, runBackend, allowUndefined);
  if (*compileCmd)
    return runCompile(compileOpts, entry, sets, configPath, threads, backend, outDir, kernelName, strictFp, tuneCli.compileTune, depfile);
  if (!emit.empty()) {
    if (top.files.empty()) {
      fmt::print(stderr, "error: --emit needs at least one file\n");
      return 2;
    }
    return runEmit(top, emit, entry, sets, configPath, threads);
  }
  if (!top.files.empty()) return runCheck(top);
  fmt::print("{}", app.help());
  return 0;
}
