/** \file
 * The dependency file of generated code (see DepFile.h).
 */
#include "codegen/DepFile.h"

namespace mdh::codegen {
namespace {

std::string escaped(const std::string &path) {
  std::string out;
  for (char c : path) {
    if (c == ' ' || c == '#') out += '\\';
    if (c == '$') out += '$';
    out += c;
  }
  return out;
}

} // namespace

std::string makeDepfile(const std::string &target, const std::vector<std::string> &prerequisites) {
  std::string out = escaped(target) + ":";
  for (const auto &p : prerequisites) out += " " + escaped(p);
  return out + "\n";
}

} // namespace mdh::codegen
