/** \file
 * Fixing the run-time sizes of the instance to tune (see TuningInstance.h).
 */
#include "tune/TuningInstance.h"

#include "driver/CliSupport.h"
#include "hl/FixedSizes.h"
#include "interp/ProgramShapes.h"
#include "interp/RuntimeError.h"

#include <fmt/format.h>

namespace mdh::tune {

bool fixRunTimeSizesForTuning(const std::string &entry, hl::Program &prog, const std::map<std::string, std::string> &given,
                              Diagnostic &problem) {
  std::map<std::string, int64_t> values;
  if (!readRunTimeSizes(entry, prog, given, values, problem)) return false;
  for (const auto &name : prog.dynamicSizes)
    if (!values.count(name)) {
      problem = Diagnostic{};
      problem.code = "E0905";
      problem.message = fmt::format("tuning `{}` needs a value of its run-time size `{}`", entry, name);
      problem.range = prog.range;
      problem.hint = fmt::format("give it with `--set {}=<extent>`: the tuner measures that size, and the configuration it "
                                 "finds applies to `{}` with any value of `{}`",
                                 name, entry, name);
      return false;
    }
  try {
    (void)interp::resolveShapes(prog, {}, values); // E0905, E0906 as in `mdhc run`
  } catch (const interp::RuntimeError &e) {
    problem = e.toDiagnostic();
    return false;
  }
  hl::fixRunTimeSizes(prog, values);
  return true;
}

} // namespace mdh::tune
