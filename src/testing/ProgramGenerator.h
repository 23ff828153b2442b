/** \file
 * Random well-typed .mdh programs for differential testing.
 *
 * A generated program has 1–5 dimensions with sizes that include 1 and
 * primes, every combine-operator kind (++, pw, ps; built-in and user
 * operators, records, tuples of operators), random affine input views with
 * several accesses, and output views that are injective over the output MDA
 * (so that the program is defined for every input); about a third of them
 * leave some sizes to run time (`*`).  Values stay small
 * integers — also for float element types — so that any evaluation order
 * gives the same bits and results compare exactly.  Invariants: the same
 * seed gives the same program; every program checks without errors.
 */
#pragma once

#include <cstdint>
#include <string>

namespace mdh::testing {

struct GeneratedProgram {
  std::string source;  ///< a complete .mdh module
  std::string entry;   ///< the mdh to instantiate (no meta-parameters)
  /// Values of the entry's run-time sizes (`*`), as `--set` takes them
  /// ("S0=7,S2=1"); empty when every size is compiled in.
  std::string runtimeSizes;
  std::string summary; ///< one line: dims, sizes, operators (for logs)
};

GeneratedProgram generateProgram(uint64_t seed);

} // namespace mdh::testing
