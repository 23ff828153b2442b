/** \file
 * The Make-style dependency file that `mdhc compile --depfile` writes beside
 * the generated code, so that build systems (cmake/MDH.cmake through
 * add_custom_command(DEPFILE), Make, Ninja) regenerate the code when any
 * `.mdh` file it was read from changes: the main file and every imported
 * module.
 */
#pragma once

#include <string>
#include <vector>

namespace mdh::codegen {

/// `target: prerequisite...` on one line, with spaces, `#` and `$` escaped as
/// Make and Ninja read them (`\ `, `\#`, `$$`).
std::string makeDepfile(const std::string &target, const std::vector<std::string> &prerequisites);

} // namespace mdh::codegen
