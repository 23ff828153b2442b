/** \file
 * Flags that keep a known host-compiler bug away from generated code.
 *
 * GCC 12.2 (Debian 12's compiler) miscompiles some generated OpenMP kernels at
 * -O2 and above when tuning for AVX-512 CPUs (-march=native on them): its second
 * value-range-propagation pass in "ranger" mode. Found by `mdhc tune` on the
 * MobileNet first-layer MCC (ctest difftest/gcc12-vrp2-mcc): every output
 * cell wrong, and an out-of-bounds read of the filter under AddressSanitizer at
 * -O2 but none at -O1. The same source is right at -O1, with -mtune=generic,
 * with Clang, with -fno-tree-vrp, and with the pass's legacy mode
 * (`--param=vrp2-mode=vrp`), which costs no measurable speed (MCC VGG-16,
 * Jacobi3D, CCSD(T): within 1%) where -fno-tree-vrp cost up to 5%. The
 * emitter also avoids the trigger it found (a staged region's bound-by-bound
 * "already held" test; it compares the region with memcmp now), so this flag
 * is the second guard, for patterns not yet seen.
 *
 * Invariants: the flags are empty for every other compiler (Clang, and GCC
 * versions other than 12: the bug and the parameter were only seen and tested
 * with 12.2); asking runs the compiler's preprocessor once (a few ms), nothing
 * is cached between calls.
 */
#pragma once

#include <string>

namespace mdh::runtime {

/// Extra flags for `compiler` (a command, e.g. "c++" or "g++-12") when it
/// compiles generated C++: " --param=vrp2-mode=vrp" for GCC 12, else "".
std::string hostCompilerWorkaroundFlags(const std::string &compiler);

/// The same decision from the compiler's predefined macros (`-dM -E` output).
std::string workaroundFlagsForMacros(const std::string &predefinedMacros);

} // namespace mdh::runtime
