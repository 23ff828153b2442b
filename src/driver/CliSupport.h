/** \file
 * Pieces shared by the command-line front ends: `--set` parsing and the
 * printing of collected diagnostics.
 */
#pragma once

#include "driver/Compilation.h"

#include <cstdio>
#include <string>
#include <vector>

namespace mdh {

/// Parses `T=f32,I=512` (several --set options concatenate).  Returns false
/// and fills `error` on malformed input.
bool parseMetaSettings(const std::vector<std::string> &items, MetaSettings &out, std::string &error);

/// Prints every diagnostic of the compilation to `out`, rustc-style, and a
/// summary line when there were errors or warnings.
void printDiagnostics(Compilation &c, FILE *out, bool summary = true);

/// Whether `stream` is a terminal (for colour and progress output).
bool isTerminal(FILE *stream);

} // namespace mdh
