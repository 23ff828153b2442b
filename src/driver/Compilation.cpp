/** \file
 * Compilation: file loading, import resolution and the sema run.
 */
#include "driver/Compilation.h"

#include "support/InputFile.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <sstream>

namespace fs = std::filesystem;

namespace mdh {

std::string findStdlibDir() {
  if (const char *env = std::getenv("MDH_STDLIB"); env && *env) return env;
  std::error_code ec;
  if (fs::exists(fs::path(MDH_SOURCE_STDLIB_DIR) / "std.mdh", ec)) return MDH_SOURCE_STDLIB_DIR;
  if (fs::exists(fs::path(MDH_INSTALL_STDLIB_DIR) / "std.mdh", ec)) return MDH_INSTALL_STDLIB_DIR;
  // Relative to the running executable: <prefix>/bin/mdhc -> <prefix>/share/mdh/stdlib
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    fs::path cand = exe.parent_path().parent_path() / "share" / "mdh" / "stdlib";
    if (fs::exists(cand / "std.mdh", ec)) return cand.string();
  }
  return MDH_SOURCE_STDLIB_DIR;
}

Compilation::Compilation(CompilationOptions opts) : opts_(std::move(opts)), sema_(std::make_unique<Sema>(sm_, diags_)) {
  if (opts_.stdlibDir.empty()) opts_.stdlibDir = findStdlibDir();
}

const ast::Module *Compilation::moduleOf(FileId f) const {
  for (const auto &m : modules_)
    if (m->file == f) return m.get();
  return nullptr;
}

bool Compilation::readFile(const std::string &path, std::string &text) {
  if (opts_.readFile) return opts_.readFile(path, text);
  // Bounded, so that `/dev/zero` cannot fill memory: a file cut at the bound
  // still has more code points than the parser accepts, which it reports (E0010).
  // The reason of a failure stays in errno for addFile's message.
  std::string reason;
  return readBoundedFile(path, sourceByteLimit(opts_.limits.maxFileCodePoints), text, reason) != BoundedRead::Failed;
}

const ast::Module *Compilation::addFile(const std::string &path) {
  std::string text;
  if (!readFile(path, text)) {
    std::error_code ec;
    const bool directory = fs::is_directory(path, ec);
    diags_.error("E0102", {},
                 fmt::format("cannot read `{}`: {}", path, directory ? "it is a directory" : std::strerror(errno ? errno : ENOENT)),
                 directory ? "give an .mdh file" : "check the path and the file's permissions");
    return nullptr;
  }
  return load(path, std::move(text));
}

const ast::Module *Compilation::addSource(const std::string &path, std::string text) { return load(path, std::move(text)); }

const ast::Module *Compilation::parseOnce(const std::string &path, std::string text, bool &fresh) {
  std::error_code ec;
  std::string canon = fs::weakly_canonical(path, ec).string();
  if (ec) canon = path;
  fresh = false;
  if (auto it = moduleIndexByPath_.find(canon); it != moduleIndexByPath_.end()) return modules_[it->second].get();
  fresh = true;
  FileId id = sm_.addFile(path, std::move(text));
  auto mod = opts_.parse ? opts_.parse(sm_, id, diags_, opts_.limits) : parseModule(sm_, id, diags_, opts_.limits);
  moduleIndexByPath_.emplace(std::move(canon), modules_.size());
  modules_.push_back(std::move(mod));
  return modules_.back().get();
}

const ast::Module *Compilation::load(const std::string &path, std::string text) {
  bool fresh = false;
  const ast::Module *root = parseOnce(path, std::move(text), fresh);
  if (!fresh) return root;
  // The modules whose imports are being resolved, innermost last: the stack a
  // recursive loader would use, kept on the heap (a chain of ~10,000 imports
  // overflowed the call stack).  Modules load in the same order as before.
  struct Pending {
    const ast::Module *module;
    std::string path;
    size_t nextImport = 0;
  };
  std::vector<Pending> pending{{root, path}};
  while (!pending.empty()) {
    Pending &top = pending.back();
    if (top.nextImport == top.module->imports.size()) {
      pending.pop_back();
      continue;
    }
    const ast::Import &imp = top.module->imports[top.nextImport++];
    std::optional<FoundImport> found = findImport(imp, top.path);
    if (!found) continue;
    const ast::Module *imported = parseOnce(found->path, std::move(found->text), fresh);
    if (fresh) pending.push_back({imported, std::move(found->path)}); // `top` is not used after this
  }
  return root;
}

std::optional<Compilation::FoundImport> Compilation::findImport(const ast::Import &imp, const std::string &fromPath) {
  if (imp.path.empty()) return std::nullopt;
  fs::path rel;
  for (const auto &p : imp.path) {
    if (p.empty()) return std::nullopt; // a syntax error, reported already
    rel /= p.name;
  }
  rel += ".mdh";
  std::vector<fs::path> dirs;
  dirs.push_back(fs::path(fromPath).parent_path());
  for (const auto &d : opts_.includeDirs) dirs.emplace_back(d);
  dirs.emplace_back(opts_.stdlibDir);
  std::vector<std::string> skipped; // devices, FIFOs: never read as modules (`/dev/zero` never ends)
  for (const auto &d : dirs) {
    fs::path cand = d.empty() ? rel : d / rel;
    std::string text;
    std::error_code ec;
    if (!opts_.readFile && !fs::is_regular_file(cand, ec)) {
      if (fs::exists(cand, ec) && !fs::is_directory(cand, ec)) skipped.push_back(cand.string());
      continue;
    }
    if (!readFile(cand.string(), text)) continue;
    if (fs::equivalent(cand, fs::path(fromPath), ec))
      diags_.warning("W0103", imp.range, fmt::format("module `{}` imports itself", imp.dotted()),
                     "remove this import: a module's own declarations are always visible in it");
    return FoundImport{cand.string(), std::move(text)};
  }
  std::vector<std::string> searched;
  for (const auto &d : dirs) searched.push_back(d.empty() ? "." : d.string());
  diags_.error("E0101", imp.range, fmt::format("cannot find module `{}`", imp.dotted()),
               fmt::format("looked for `{}` in {}; add a directory with `-I DIR`{}", rel.string(), fmt::join(searched, ", "),
                           skipped.empty() ? ""
                                           : fmt::format(" (`{}` is not a regular file)", fmt::join(skipped, "`, `"))));
  return std::nullopt;
}

void Compilation::analyze() {
  if (analyzed_) return;
  analyzed_ = true;
  // Imported modules first (they were loaded after their importer), so a
  // clash is reported in the importing file, next to the code the user wrote.
  for (auto it = modules_.rbegin(); it != modules_.rend(); ++it) sema_->addModule(**it);
  sema_->checkAll();
}

} // namespace mdh
