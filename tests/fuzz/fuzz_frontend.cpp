// libFuzzer harness over the front end: parse, sema, generic instantiation,
// diagnostic rendering and the formatter's round-trip properties.
//
// Properties checked on every input (a violation aborts, so libFuzzer saves
// the input as a reproducer):
//  - no crash, hang or sanitizer report anywhere in parse + sema;
//  - when the input parses without syntax errors, its formatted text parses
//    without syntax errors, gives the same AST dump, and formats to itself.
#include "ast/Printer.h"
#include "driver/Compilation.h"

#include <cstdio>
#include <cstdlib>

namespace {

bool hasSyntaxErrors(mdh::Compilation &c) {
  for (const auto &d : c.diags().all())
    if (d.severity == mdh::Severity::Error && d.code.rfind("E00", 0) == 0) return true;
  return false;
}

void fail(const char *what, const std::string &a, const std::string &b) {
  std::fprintf(stderr, "fuzz property violated: %s\n--- first ---\n%s\n--- second ---\n%s\n", what, a.c_str(), b.c_str());
  std::abort();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > 32 * 1024) return 0;
  std::string text(reinterpret_cast<const char *>(data), size);
  mdh::Compilation c;
  const mdh::ast::Module *m = c.addSource("fuzz.mdh", text);
  bool syntaxOk = !hasSyntaxErrors(c);
  c.analyze();
  for (const mdh::ast::Decl *d : c.sema().declarations())
    if (d->kind == mdh::ast::Decl::Kind::Mdh) (void)c.sema().instantiate(d->name.name, {}, true);
  for (const auto &d : c.diags().all()) (void)mdh::renderDiagnostic(c.sources(), d);
  if (!syntaxOk || !m) return 0;

  std::string f1 = mdh::ast::formatModule(*m, c.sources());
  mdh::Compilation c2;
  const mdh::ast::Module *m2 = c2.addSource("fuzz.mdh", f1);
  if (hasSyntaxErrors(c2) || !m2) fail("formatted text does not parse", text, f1);
  std::string d1 = mdh::ast::dumpModule(*m), d2 = mdh::ast::dumpModule(*m2);
  if (d1 != d2) fail("formatting changes the AST", d1, d2);
  std::string f2 = mdh::ast::formatModule(*m2, c2.sources());
  if (f1 != f2) fail("formatting is not idempotent", f1, f2);
  return 0;
}
