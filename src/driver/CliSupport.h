/** \file
 * Pieces shared by the command-line front ends: command-line parsing and
 * its exit status, `--set` parsing (and its split into meta-parameters and
 * run-time sizes, whose values are read strictly), `--config` arguments, the
 * source files outputs must spare, and the printing of collected diagnostics.
 */
#pragma once

#include <nlohmann/json.hpp>

#include "driver/Compilation.h"

#include <CLI/CLI.hpp>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

namespace mdh {

/// Parses the command line into `app`.  Returns -1 when the program goes
/// on, else its exit status: 0 after --help or --version, 2 for a malformed
/// command line (CLI11's own codes are 100 and more), its message printed.
int parseCommandLine(CLI::App &app, int argc, char **argv);

/// Parses `T=f32,I=512` (several --set options concatenate).  Returns false
/// and fills `error` on malformed input.
bool parseMetaSettings(const std::vector<std::string> &items, MetaSettings &out, std::string &error);

/// Whether `name=value` gives the value of a meta-parameter made a run-time size: a value
/// other than `*` next to `name=*` in the same settings.
bool givesRunTimeSizeValue(const MetaSettings &settings, const std::string &name, const std::string &value);

/// Splits `--set` values into the meta-parameters of the entry `decl` and
/// the rest, which `mdhc run` and `mdh-difftest` take as run-time sizes (`*`).
/// Without a declaration (an unknown entry) every value counts as a
/// meta-parameter, so that instantiation reports the entry.
void splitRunTimeSizes(const ast::Decl *decl, const MetaSettings &settings, MetaSettings &meta,
                       std::map<std::string, std::string> &runTimeSizes);

/// Reads the values of run-time sizes (`*`) given with `--set` (name ->
/// text) for `prog`, the instance of `entry`, strictly and alike in every tool: a
/// size is decimal digits only, from 1 to 2^40, as a compile-time size.
/// Returns false with `problem` filled: E0603 for a malformed value, E0605
/// for a name that is neither a meta-parameter nor a run-time size. They point
/// at `entryDecl`, the entry's declaration, when given (an alias such as
/// `mdh dot_f32 = dotp<f32, *>;` rather than the generic it names), else at
/// the program's.
bool readRunTimeSizes(const std::string &entry, const hl::Program &prog, const std::map<std::string, std::string> &given,
                      std::map<std::string, int64_t> &values, Diagnostic &problem, const ast::Decl *entryDecl = nullptr);

/// The text of a `--config` argument: the argument itself when it is JSON
/// text (starts with `{` after blanks), else the contents of the file it
/// names.  Returns false and fills `error` when the file cannot be read.
bool configArgumentText(const std::string &arg, std::string &text, std::string &error);

/// How messages name a `--config` argument: "`path`" for a file, "the JSON
/// text" for inline text (which is no file name).
std::string configArgumentName(const std::string &arg);

/// configArgumentText() parsed as JSON; false with a whole message in
/// `error` (`cannot read …`, `… is not valid JSON`).  What the JSON must
/// hold is the caller's to check, with configArgumentName() in its message.
bool readConfigJson(const std::string &arg, nlohmann::json &json, std::string &error);

/// How printDiagnostics() shows a compilation's diagnostics.
struct DiagnosticStyle {
  bool summary = true;          ///< end with `2 errors and 1 warning generated.`
  bool errorsOnly = false;      ///< -q: leave warnings out
  bool warningsAsErrors = false; ///< --Werror: warnings are labelled, counted and shown as errors
};

/// The paths of the files a compilation read (the program and its imports):
/// outputs must not overwrite them.
std::vector<std::string> sourceFiles(Compilation &c);

/// Prints every diagnostic of the compilation to `out`, rustc-style, and a
/// summary line when there were errors or warnings.
void printDiagnostics(Compilation &c, FILE *out, const DiagnosticStyle &style = {});

/// Whether `stream` is a terminal (for colour and progress output).
bool isTerminal(FILE *stream);

} // namespace mdh
