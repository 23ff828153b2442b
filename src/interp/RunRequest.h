/** \file
 * What one `mdhi run` (or REPL `:run`) is asked to do, and the command-line
 * options that fill it in.  The CLI and the REPL register the same options
 * through addRunOptions(), so both accept exactly the same spelling.
 */
#pragma once

#include "interp/RuntimeError.h"
#include "support/CliChecks.h"

#include <CLI/CLI.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace mdh::interp {

struct RunRequest {
  std::string entry;
  std::vector<std::string> sets;    ///< `T=f32,I=512` items: meta-parameters and run-time sizes
  std::vector<std::string> inputs;  ///< `M=M.npy`
  std::vector<std::string> outputs; ///< `w=w.npy`
  uint64_t seed = 1;
  bool allowUndefined = false;
  bool trapOverflow = false;
  bool precise = false;
  bool stats = false;
  bool quiet = false;               ///< do not print the results
  std::string cells;                ///< `w[3];w[5]`: evaluate only these cells
  size_t printLimit = 400;          ///< buffers with more cells are summarised
  InterruptCheck interrupted = nullptr; ///< not an option: the REPL's Ctrl-C (EvalOptions::interrupted)
};

inline void addRunOptions(CLI::App &app, RunRequest &r) {
  app.add_option("-e,--entry", r.entry, "the mdh declaration to run")->type_name("NAME");
  app.add_option("-s,--set", r.sets, "meta-parameters and run-time sizes, e.g. T=f32,I=512")->type_name("NAME=VALUE,...")->allow_extra_args(false);
  app.add_option("--in", r.inputs, "input buffer data (NumPy .npy); inputs without a file get random data")
      ->type_name("BUF=FILE")->allow_extra_args(false);
  app.add_option("--out", r.outputs, "write an output buffer (NumPy .npy, written atomically)")->type_name("BUF=FILE")->allow_extra_args(false);
  app.add_option("--seed", r.seed, "seed of the random inputs (default 1)")->type_name("N")->check(atLeast(0));
  app.add_flag("--allow-undefined", r.allowUndefined,
               "allow output cells no index function writes (⊥); --out then also writes BUF.defined.npy");
  app.add_flag("--trap-overflow", r.trapOverflow, "report the first integer overflow as an error instead of wrapping");
  app.add_flag("--precise", r.precise,
               "high-precision mode: reference values with Σ|terms|, term counts and error bounds");
  app.add_option("--cells", r.cells, "evaluate only these output cells, e.g. 'C[0,0];C[5,7]'")
      ->type_name("CELLS")
      ->check(nonEmpty("give cells like `C[0,0];C[5,7]`, or leave out --cells to evaluate every cell"));
  app.add_flag("--stats", r.stats, "print the number of scalar-function applications and the time taken");
  app.add_flag("-q,--quiet", r.quiet, "do not print the results");
  app.add_option("--print-limit", r.printLimit, "print buffers with at most this many cells (default 400)")
      ->type_name("N")
      ->check(atLeast(0));
}

} // namespace mdh::interp
