// Unit tests of the front end: parsing, sema rules and instantiation.
#include "ast/Printer.h"
#include "driver/Compilation.h"

#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>

using namespace mdh;

namespace {

struct Compiled {
  std::unique_ptr<Compilation> comp;
  std::vector<std::string> codes; ///< codes of all diagnostics, in order
  bool hasCode(const std::string &c) const { return std::find(codes.begin(), codes.end(), c) != codes.end(); }
};

Compiled compile(const std::string &text) {
  Compiled r;
  r.comp = std::make_unique<Compilation>();
  r.comp->addSource("test.mdh", text);
  r.comp->analyze();
  for (const auto &d : r.comp->diags().all()) r.codes.push_back(d.code);
  return r;
}

std::vector<std::string> shapeOf(const hl::Buffer &b) {
  std::vector<std::string> s;
  for (const auto &x : b.shape) s.push_back(x.str());
  return s;
}

const char *kMatVec = R"(
mdh matvec<T: type, I: size, K: size> =
    out_view<T>( w: (i,k) -> (i) )
  o md_hom<I,K>( mul, (++, pw(add)) )
  o inp_view<T,T>( M: (i,k) -> (i,k), v: (i,k) -> (k) );
)";

} // namespace

TEST_CASE("MatVec checks clean and instantiates with derived shapes") {
  auto c = compile(kMatVec);
  REQUIRE(c.codes.empty());
  auto p = c.comp->sema().instantiate("matvec", {{"T", "f32"}, {"I", "1024"}, {"K", "512"}});
  REQUIRE(p);
  CHECK(p->dims() == 2);
  CHECK(p->instanceName == "matvec_f32_1024_512");
  CHECK(shapeOf(p->inputs[0]) == std::vector<std::string>{"1024", "512"});
  CHECK(shapeOf(p->inputs[1]) == std::vector<std::string>{"512"});
  CHECK(shapeOf(p->outputs[0]) == std::vector<std::string>{"1024"});
  CHECK(p->ops[0].kind == hl::CombineOperator::Kind::Concat);
  CHECK(p->ops[1].kind == hl::CombineOperator::Kind::PointWise);
  CHECK(p->f->result == Type::prim(Type::Kind::F32));
}

TEST_CASE("generic shapes are symbolic polynomials") {
  auto c = compile(R"(
fn j(a: f32, b: f32, c: f32) -> f32 = 0.33 * (a + b + c);
mdh jacobi<N: size> = out_view<f32>( O: (i) -> (i) ) o md_hom<N>( j, (++) )
                    o inp_view<f32>( I: (i) -> (i+0), (i) -> (i+1), (i) -> (i+2) );
mdh conv<P: size, Q: size, R: size, S: size> =
    out_view<f32>( O: (p,q,r,s) -> (p,q) ) o md_hom<P,Q,R,S>( *, (++,++,+,+) )
  o inp_view<f32,f32>( I: (p,q,r,s) -> (2*p+r, 2*q+s), F: (p,q,r,s) -> (r,s) );
)");
  REQUIRE(c.codes.empty());
  const hl::Program *j = c.comp->sema().genericProgram("jacobi");
  REQUIRE(j);
  CHECK(shapeOf(j->inputs[0]) == std::vector<std::string>{"N + 2"});
  const hl::Program *cv = c.comp->sema().genericProgram("conv");
  REQUIRE(cv);
  CHECK(shapeOf(cv->inputs[0]) == std::vector<std::string>{"2*P + R - 2", "2*Q + S - 2"});
  CHECK(shapeOf(cv->outputs[0]) == std::vector<std::string>{"P", "Q"});
}

TEST_CASE("static errors carry their codes") {
  SUBCASE("negative index") {
    auto c = compile("mdh m<N: size> = out_view<f32>( O: (i) -> (i) ) o md_hom<N>( id2, (++) ) o inp_view<f32>( I: (i) -> (i-1) );\n"
                     "fn id2(x: f32) -> f32 = x;");
    CHECK(c.hasCode("E0403"));
  }
  SUBCASE("wrong arity of f") {
    auto c = compile(std::string(kMatVec).replace(std::string(kMatVec).find("mul"), 3, "neg") + "fn neg(x: f32) -> f32 = -x;");
    CHECK(c.hasCode("E0629"));
  }
  SUBCASE("declared shape mismatch") {
    auto c = compile("mdh m<N: size> = out_view<f32>( O: (i) -> (i) ) o md_hom<N>( *, (++) ) o inp_view<f32,f32>( A[N+1]: (i) -> (i), B: (i) -> (i) );");
    CHECK(c.hasCode("E0406"));
  }
  SUBCASE("mismatched literal and operand types") {
    auto c = compile("fn f(a: f32, b: f64) -> f32 = a + b;");
    CHECK(c.hasCode("E0325"));
  }
  SUBCASE("literals adopt the type of the other operand") {
    auto c = compile("fn f(a: f32) -> f32 = a * 0.5 + 1;");
    CHECK(c.codes.empty());
  }
  SUBCASE("integer literal out of range") {
    auto c = compile("fn f(a: i8) -> i8 = a + 300;");
    CHECK(c.hasCode("E0313"));
  }
  SUBCASE("Lemma 10: different point-wise operators warn") {
    auto c = compile("mdh m<N: size, M: size> = out_view<f32>( O: (i,j) -> () ) o md_hom<N,M>( *, (pw(add), pw(mul)) )"
                     " o inp_view<f32,f32>( A: (i,j) -> (i,j), B: (i,j) -> (j) );");
    CHECK(c.hasCode("W0503"));
    CHECK_FALSE(c.comp->diags().hasErrors());
  }
  SUBCASE("non-injective output") {
    auto c = compile("mdh m<N: size> = out_view<f32>( O: (i,j) -> (i+j) ) o md_hom<N,N>( *, (++, ++) )"
                     " o inp_view<f32,f32>( A: (i,j) -> (i), B: (i,j) -> (j) );");
    CHECK(c.hasCode("W0402"));
  }
}

TEST_CASE("syntax errors are reported and sema still runs on the partial tree") {
  auto c = compile("fn f(a: f32) -> f32 = a +;\nfn g(a: f32) -> f32 = a * unknown_name;\n");
  CHECK(c.hasCode("E0001"));
  CHECK(c.hasCode("E0314"));
}

TEST_CASE("`o` and `size` stay usable as identifiers") {
  auto c = compile("fn f(o: f32, size: f32) -> f32 = o * size;\n"
                   "mdh m<N: size> = out_view<f32>( O: (o) -> (o) ) o md_hom<N>( f, (++) ) o inp_view<f32,f32>( A: (o) -> (o), B: (o) -> (o) );");
  CHECK(c.codes.empty());
}

TEST_CASE("instantiation errors name the meta-parameter") {
  auto c = compile(kMatVec);
  CHECK_FALSE(c.comp->sema().instantiate("matvec", {{"T", "f32"}, {"I", "0"}, {"K", "5"}}));
  CHECK_FALSE(c.comp->sema().instantiate("matvec", {{"T", "f32"}, {"I", "4"}}));
  CHECK_FALSE(c.comp->sema().instantiate("matvec", {{"T", "quux"}, {"I", "4"}, {"K", "4"}}));
  auto dyn = c.comp->sema().instantiate("matvec", {{"T", "f64"}, {"I", "*"}, {"K", "8"}});
  REQUIRE(dyn);
  CHECK(dyn->dynamicSizes == std::vector<std::string>{"I"});
  CHECK(shapeOf(dyn->inputs[0]) == std::vector<std::string>{"I", "8"});
}

TEST_CASE("a lone CR ends a line everywhere: line/column, snippets and LSP positions") {
  SourceFile f("cr.mdh", "a\rbc\r\nd\n\re");
  // Lines: "a" | "bc" (CRLF is one break) | "d" | "" | "e".
  CHECK(f.lineCount() == 5);
  CHECK(f.lineCol(2).line == 2);
  CHECK(f.lineCol(2).column == 1);
  CHECK(f.lineCol(6).line == 3);
  CHECK(f.lineCol(9).line == 5);
  CHECK(f.lineText(1) == "a");
  CHECK(f.lineText(2) == "bc");
  CHECK(f.lineText(4) == "");
  CHECK(f.offsetOfUtf16(1, 99) == 4); // clamped before the CRLF, not after it
  CHECK(f.offsetOfUtf16(0, 5) == 1);  // before the lone CR
  CHECK(f.utf16Column(3) == 1);
  CHECK(lineBreakLength(std::string("\r\n"), 0) == 2);
  CHECK(lineBreakLength(std::string("\r\n"), 1) == 1);
  CHECK(lineBreakLength(std::u32string(U"\rx"), 0) == 1);
  CHECK(lineBreakLength(std::string("x"), 0) == 0);
}

TEST_CASE("overlong UTF-8 is invalid, not ASCII") {
  CHECK(decodeUtf8("\xC0\xAF") == std::u32string(U"\uFFFD\uFFFD"));
  CHECK(decodeUtf8("\xE0\x80\xAF") == std::u32string(U"\uFFFD\uFFFD\uFFFD"));
  CHECK(decodeUtf8("\xF0\x80\x80\xAF") == std::u32string(U"\uFFFD\uFFFD\uFFFD\uFFFD"));
  CHECK(decodeUtf8("\xC2\xA0\xE2\x88\x98\xF0\x9F\x98\x80") == std::u32string(U"\u00A0\u2218\U0001F600"));
}

TEST_CASE("a long chain of imports loads without exhausting the stack") {
  // 20,000 modules, each importing the next, served from memory; the
  // recursive loader overflowed an 8 MB stack near 10,500.
  constexpr int kChain = 20000;
  CompilationOptions opts;
  opts.readFile = [](const std::string &path, std::string &text) {
    const std::string name = std::filesystem::path(path).stem().string();
    if (name.rfind("m", 0) != 0) return false;
    const int k = std::atoi(name.c_str() + 1);
    text = k < kChain ? "import m" + std::to_string(k + 1) + ";\n" : "fn last(a: f32) -> f32 = a;\n";
    return true;
  };
  Compilation c(opts);
  std::string root;
  REQUIRE(opts.readFile("/chain/m0.mdh", root));
  c.addSource("/chain/m0.mdh", root);
  c.analyze();
  CHECK(c.modules().size() == size_t(kChain) + 1);
  CHECK_FALSE(c.diags().hasErrors());
  CHECK(c.sema().lookup("last"));
}
