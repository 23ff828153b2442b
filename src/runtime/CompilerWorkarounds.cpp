/** \file
 * Host-compiler workarounds (see CompilerWorkarounds.h): the compiler's
 * predefined macros say which compiler and version it is.
 */
#include "runtime/CompilerWorkarounds.h"

#include <cstdio>
#include <regex>

namespace mdh::runtime {

std::string workaroundFlagsForMacros(const std::string &macros) {
  if (macros.find("#define __clang__") != std::string::npos) return "";
  static const std::regex gnuMajor(R"(#define __GNUC__ (\d+)\b)");
  std::smatch m;
  if (!std::regex_search(macros, m, gnuMajor)) return "";
  return m[1] == "12" ? " --param=vrp2-mode=vrp" : "";
}

std::string hostCompilerWorkaroundFlags(const std::string &compiler) {
  const std::string cmd = compiler + " -dM -E -x c++ /dev/null 2>/dev/null";
  std::string macros;
  if (FILE *p = popen(cmd.c_str(), "r")) {
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, p)) > 0) macros.append(buf, n);
    pclose(p);
  }
  return workaroundFlagsForMacros(macros);
}

} // namespace mdh::runtime
