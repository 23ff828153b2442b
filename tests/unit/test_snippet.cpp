// Source snippets of diagnostics: on a line too long to show whole, the window
// shown holds the error's column and the caret stands under the erroneous text.
#include "support/Diagnostics.h"
#include "support/Source.h"

#include <doctest/doctest.h>

#include <sstream>
#include <string>
#include <vector>

namespace {

std::vector<std::string> linesOf(const std::string &text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  return lines;
}

/// The snippet's source line and caret line for an error on `name` in `line`.
std::pair<std::string, std::string> snippetFor(const std::string &line, const std::string &name) {
  mdh::SourceManager sm;
  const mdh::FileId f = sm.addFile("wide.mdh", "// first line\n" + line + "\n");
  const uint32_t begin = uint32_t(std::string("// first line\n").size() + line.find(name));
  mdh::Diagnostic d;
  d.code = "E0314";
  d.message = "unknown name";
  d.range = {f, begin, uint32_t(begin + name.size())};
  const std::vector<std::string> lines = linesOf(mdh::renderDiagnostic(sm, d));
  REQUIRE(lines.size() >= 4);
  return {lines[2], lines[3]};
}

std::string wideLine(int params, const std::string &tail) {
  std::string l = "fn wide(";
  for (int i = 0; i < params; ++i) l += (i ? ", x" : "x") + std::to_string(i) + ": f32";
  return l + ") -> f32 = " + tail;
}

} // namespace

TEST_CASE("the snippet of an error far right on a long line shows it, caret under it") {
  const std::string line = wideLine(40, "x0 + missing_name + x1;");
  REQUIRE(line.size() > 400);
  auto [source, caret] = snippetFor(line, "missing_name");
  CHECK(source.size() < 230);
  CHECK(source.find("... ") != std::string::npos); // cut on the left
  const size_t at = source.find("missing_name");
  REQUIRE(at != std::string::npos);
  CHECK(caret.find('^') == at);
  CHECK(caret.substr(at) == std::string(12, '^'));
}

TEST_CASE("an error at the start of a long line keeps the left end, cut on the right") {
  const std::string line = wideLine(60, "x0;");
  auto [source, caret] = snippetFor(line, "wide");
  CHECK(source.find("fn wide(") != std::string::npos);
  CHECK(source.size() > 200);
  CHECK(source.compare(source.size() - 4, 4, " ...") == 0);
  CHECK(caret.find('^') == source.find("wide"));
}

TEST_CASE("an error at the very end of a long line shows its end") {
  const std::string line = wideLine(60, "x0 + last");
  auto [source, caret] = snippetFor(line, "last");
  CHECK(source.compare(source.size() - 4, 4, "last") == 0);
  CHECK(caret.find('^') == source.size() - 4);
}
