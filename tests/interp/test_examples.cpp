/** \file
 * Every example of examples/ evaluated by the interpreter on small inputs
 * (odd, prime and size-1 extents) and compared with values computed here by
 * straightforward loops.  Float results are compared exactly where the loop
 * folds in the interpreter's canonical order (⊛1 outermost, indices
 * ascending, the part so far on the left), which is what the interpreter
 * promises; multi-dimensional reductions use integers.
 */
#include "TestSupport.h"

#include <cmath>

using namespace mdh;
using namespace mdh::test;
using K = Type::Kind;

namespace {

data::BufferSet run1(const Instance &inst, data::BufferSet in, interp::EvalOptions opts = {}) {
  return interp::evaluate(*inst, in, opts).outputs;
}

} // namespace

TEST_CASE("dot: a 0-D output, integers and floats") {
  for (int64_t n : {1, 7, 13}) {
    auto inst = example("dot.mdh", "dot", {{"T", "i32"}, {"K", std::to_string(n)}});
    auto A = generated<int32_t>(prim(K::I32), {n}, [](size_t i) { return int32_t(pseudo(i, 1)); });
    auto B = generated<int32_t>(prim(K::I32), {n}, [](size_t i) { return int32_t(pseudo(i, 2)); });
    int32_t expected = 0;
    for (int64_t k = 0; k < n; ++k) expected += values<int32_t>(A)[k] * values<int32_t>(B)[k];
    auto out = run1(inst, {{"A", A}, {"B", B}});
    CHECK(out.at("C").shape.empty());
    CHECK(values<int32_t>(out.at("C"))[0] == expected);
  }
  auto inst = example("dot.mdh", "dot", {{"T", "f32"}, {"K", "11"}});
  auto A = generated<float>(prim(K::F32), {11}, [](size_t i) { return float(pseudo(i, 3)) / 3.0f; });
  auto B = generated<float>(prim(K::F32), {11}, [](size_t i) { return float(pseudo(i, 4)) / 7.0f; });
  float acc = values<float>(A)[0] * values<float>(B)[0];
  for (int k = 1; k < 11; ++k) acc = acc + values<float>(A)[k] * values<float>(B)[k];
  CHECK(values<float>(run1(inst, {{"A", A}, {"B", B}}).at("C"))[0] == acc); // canonical order: bit-exact
}

TEST_CASE("matvec, matmul, matmul_t, bmatmul in canonical float order") {
  SUBCASE("matvec") {
    const int64_t I = 5, Kk = 7;
    auto inst = example("matvec.mdh", "matvec", {{"T", "f32"}, {"I", "5"}, {"K", "7"}});
    auto M = generated<float>(prim(K::F32), {I, Kk}, [](size_t i) { return float(pseudo(i, 5)) * 0.37f; });
    auto v = generated<float>(prim(K::F32), {Kk}, [](size_t i) { return float(pseudo(i, 6)) * 1.1f; });
    auto m = values<float>(M), vv = values<float>(v);
    auto w = values<float>(run1(inst, {{"M", M}, {"v", v}}).at("w"));
    REQUIRE(w.size() == size_t(I));
    for (int64_t i = 0; i < I; ++i) {
      float acc = m[i * Kk] * vv[0];
      for (int64_t k = 1; k < Kk; ++k) acc = acc + m[i * Kk + k] * vv[k];
      CHECK(w[i] == acc);
    }
  }
  SUBCASE("matmul (prime sizes, and size 1)") {
    for (auto [I, J, Kk] : std::vector<std::array<int64_t, 3>>{{3, 5, 7}, {1, 1, 1}, {2, 11, 1}}) {
      auto inst = example("matmul.mdh", "matmul",
                          {{"T", "f32"}, {"I", std::to_string(I)}, {"J", std::to_string(J)}, {"K", std::to_string(Kk)}});
      auto A = generated<float>(prim(K::F32), {I, Kk}, [](size_t i) { return float(pseudo(i, 7)) * 0.3f; });
      auto B = generated<float>(prim(K::F32), {Kk, J}, [](size_t i) { return float(pseudo(i, 8)) * 0.7f; });
      auto a = values<float>(A), b = values<float>(B);
      auto c = values<float>(run1(inst, {{"A", A}, {"B", B}}).at("C"));
      for (int64_t i = 0; i < I; ++i)
        for (int64_t j = 0; j < J; ++j) {
          float acc = a[i * Kk] * b[j];
          for (int64_t k = 1; k < Kk; ++k) acc = acc + a[i * Kk + k] * b[k * J + j];
          CHECK(c[i * J + j] == acc);
        }
    }
  }
  SUBCASE("matmul_t") {
    const int64_t I = 3, J = 4, Kk = 5;
    auto inst = example("matmul_t.mdh", "matmul_t", {{"T", "f64"}, {"I", "3"}, {"J", "4"}, {"K", "5"}});
    auto A = generated<double>(prim(K::F64), {Kk, I}, [](size_t i) { return double(pseudo(i, 9)) / 3; });
    auto B = generated<double>(prim(K::F64), {J, Kk}, [](size_t i) { return double(pseudo(i, 10)) / 5; });
    auto a = values<double>(A), b = values<double>(B);
    auto out = run1(inst, {{"A", A}, {"B", B}}).at("C");
    CHECK(out.shape == std::vector<int64_t>{J, I});
    auto c = values<double>(out);
    for (int64_t i = 0; i < I; ++i)
      for (int64_t j = 0; j < J; ++j) {
        double acc = a[0 * I + i] * b[j * Kk + 0];
        for (int64_t k = 1; k < Kk; ++k) acc = acc + a[k * I + i] * b[j * Kk + k];
        CHECK(c[j * I + i] == acc);
      }
  }
  SUBCASE("bmatmul") {
    const int64_t NB = 2, I = 3, J = 2, Kk = 5;
    auto inst = example("bmatmul.mdh", "bmatmul", {{"T", "i64"}, {"NB", "2"}, {"I", "3"}, {"J", "2"}, {"K", "5"}});
    auto A = generated<int64_t>(prim(K::I64), {NB, I, Kk}, [](size_t i) { return pseudo(i, 11); });
    auto B = generated<int64_t>(prim(K::I64), {NB, Kk, J}, [](size_t i) { return pseudo(i, 12); });
    auto a = values<int64_t>(A), b = values<int64_t>(B);
    auto c = values<int64_t>(run1(inst, {{"A", A}, {"B", B}}).at("C"));
    for (int64_t n = 0; n < NB; ++n)
      for (int64_t i = 0; i < I; ++i)
        for (int64_t j = 0; j < J; ++j) {
          int64_t acc = 0;
          for (int64_t k = 0; k < Kk; ++k) acc += a[(n * I + i) * Kk + k] * b[(n * Kk + k) * J + j];
          CHECK(c[(n * I + i) * J + j] == acc);
        }
  }
}

TEST_CASE("conv2d, mcc (stride 2), mcc_capsule, ccsdt") {
  SUBCASE("conv2d") {
    const int64_t P = 3, Q = 4, R = 2, S = 3;
    auto inst = example("conv2d.mdh", "conv2d", {{"T", "i32"}, {"P", "3"}, {"Q", "4"}, {"R", "2"}, {"S", "3"}});
    auto Im = generated<int32_t>(prim(K::I32), {P + R - 1, Q + S - 1}, [](size_t i) { return int32_t(pseudo(i, 13)); });
    auto F = generated<int32_t>(prim(K::I32), {R, S}, [](size_t i) { return int32_t(pseudo(i, 14)); });
    auto im = values<int32_t>(Im), f = values<int32_t>(F);
    auto o = values<int32_t>(run1(inst, {{"I", Im}, {"F", F}}).at("O"));
    for (int64_t p = 0; p < P; ++p)
      for (int64_t q = 0; q < Q; ++q) {
        int32_t acc = 0;
        for (int64_t r = 0; r < R; ++r)
          for (int64_t s = 0; s < S; ++s) acc += im[(p + r) * (Q + S - 1) + (q + s)] * f[r * S + s];
        CHECK(o[p * Q + q] == acc);
      }
  }
  SUBCASE("mcc") {
    const int64_t N = 2, P = 2, Q = 3, Kc = 2, R = 3, S = 2, C = 3;
    const int64_t H = 2 * (P - 1) + R, W = 2 * (Q - 1) + S;
    auto inst = example("mcc.mdh", "mcc",
                        {{"T", "i32"}, {"N", "2"}, {"P", "2"}, {"Q", "3"}, {"K", "2"}, {"R", "3"}, {"S", "2"}, {"C", "3"}});
    auto Im = generated<int32_t>(prim(K::I32), {N, H, W, C}, [](size_t i) { return int32_t(pseudo(i, 15)); });
    auto F = generated<int32_t>(prim(K::I32), {Kc, R, S, C}, [](size_t i) { return int32_t(pseudo(i, 16)); });
    auto im = values<int32_t>(Im), f = values<int32_t>(F);
    auto o = values<int32_t>(run1(inst, {{"I", Im}, {"F", F}}).at("O"));
    for (int64_t n = 0; n < N; ++n)
      for (int64_t p = 0; p < P; ++p)
        for (int64_t q = 0; q < Q; ++q)
          for (int64_t k = 0; k < Kc; ++k) {
            int32_t acc = 0;
            for (int64_t r = 0; r < R; ++r)
              for (int64_t s = 0; s < S; ++s)
                for (int64_t c = 0; c < C; ++c)
                  acc += im[((n * H + 2 * p + r) * W + 2 * q + s) * C + c] * f[((k * R + r) * S + s) * C + c];
            CHECK(o[((n * P + p) * Q + q) * Kc + k] == acc);
          }
  }
  SUBCASE("mcc_capsule") {
    const int64_t N = 1, P = 2, Q = 2, Kc = 2, R = 2, S = 2, C = 2, MI = 2, MJ = 3, MK = 2;
    const int64_t H = 2 * (P - 1) + R, W = 2 * (Q - 1) + S;
    auto inst = example("mcc_capsule.mdh", "mcc_capsule",
                        {{"T", "i64"}, {"N", "1"}, {"P", "2"}, {"Q", "2"}, {"K", "2"}, {"R", "2"}, {"S", "2"}, {"C", "2"},
                         {"MI", "2"}, {"MJ", "3"}, {"MK", "2"}});
    auto Im = generated<int64_t>(prim(K::I64), {N, H, W, C, MI, MK}, [](size_t i) { return pseudo(i, 17); });
    auto F = generated<int64_t>(prim(K::I64), {Kc, R, S, C, MK, MJ}, [](size_t i) { return pseudo(i, 18); });
    auto im = values<int64_t>(Im), f = values<int64_t>(F);
    auto o = values<int64_t>(run1(inst, {{"I", Im}, {"F", F}}).at("O"));
    for (int64_t n = 0; n < N; ++n)
      for (int64_t p = 0; p < P; ++p)
        for (int64_t q = 0; q < Q; ++q)
          for (int64_t k = 0; k < Kc; ++k)
            for (int64_t mi = 0; mi < MI; ++mi)
              for (int64_t mj = 0; mj < MJ; ++mj) {
                int64_t acc = 0;
                for (int64_t r = 0; r < R; ++r)
                  for (int64_t s = 0; s < S; ++s)
                    for (int64_t c = 0; c < C; ++c)
                      for (int64_t mk = 0; mk < MK; ++mk)
                        acc += im[((((n * H + 2 * p + r) * W + 2 * q + s) * C + c) * MI + mi) * MK + mk] *
                               f[((((k * R + r) * S + s) * C + c) * MK + mk) * MJ + mj];
                CHECK(o[((((n * P + p) * Q + q) * Kc + k) * MI + mi) * MJ + mj] == acc);
              }
  }
  SUBCASE("ccsdt I1 and I2") {
    const int64_t A_ = 2, B_ = 3, C_ = 2, D_ = 2, E_ = 3, F_ = 1, G_ = 3;
    MetaSettings s{{"T", "i64"}, {"NA", "2"}, {"NB", "3"}, {"NC", "2"}, {"ND", "2"}, {"NE", "3"}, {"NF", "1"}, {"NG", "3"}};
    for (bool i2 : {false, true}) {
      auto inst = example("ccsdt.mdh", i2 ? "ccsdt_i2" : "ccsdt_i1", s);
      // I1: A[g,d,a,b] B[e,f,g,c];  I2: A[g,d,a,c] B[e,f,g,b]
      const int64_t x3 = i2 ? C_ : B_, y4 = i2 ? B_ : C_;
      auto Ab = generated<int64_t>(prim(K::I64), {G_, D_, A_, x3}, [](size_t i) { return pseudo(i, 19); });
      auto Bb = generated<int64_t>(prim(K::I64), {E_, F_, G_, y4}, [](size_t i) { return pseudo(i, 20); });
      auto av = values<int64_t>(Ab), bv = values<int64_t>(Bb);
      auto c = values<int64_t>(run1(inst, {{"A", Ab}, {"B", Bb}}).at("C"));
      size_t at = 0;
      for (int64_t a = 0; a < A_; ++a)
        for (int64_t b = 0; b < B_; ++b)
          for (int64_t cc = 0; cc < C_; ++cc)
            for (int64_t d = 0; d < D_; ++d)
              for (int64_t e = 0; e < E_; ++e)
                for (int64_t f = 0; f < F_; ++f, ++at) {
                  int64_t acc = 0;
                  for (int64_t g = 0; g < G_; ++g) {
                    int64_t x = i2 ? cc : b, y = i2 ? b : cc;
                    acc += av[((g * D_ + d) * A_ + a) * x3 + x] * bv[((e * F_ + f) * G_ + g) * y4 + y];
                  }
                  CHECK(c[at] == acc);
                }
    }
  }
}

TEST_CASE("jacobi 1D, 2D, 3D: several accesses of one buffer") {
  SUBCASE("1D") {
    const int64_t N = 7;
    auto inst = example("jacobi1d.mdh", "jacobi1d", {{"T", "f32"}, {"N", "7"}});
    auto In = generated<float>(prim(K::F32), {N + 2}, [](size_t i) { return float(pseudo(i, 21)) * 0.25f; });
    auto in = values<float>(In);
    auto o = values<float>(run1(inst, {{"I", In}}).at("O"));
    const float c = float(0.33333333);
    for (int64_t i = 0; i < N; ++i) CHECK(o[i] == c * ((in[i] + in[i + 1]) + in[i + 2]));
  }
  SUBCASE("2D") {
    const int64_t N1 = 3, N2 = 5, W = N2 + 2;
    auto inst = example("jacobi2d.mdh", "jacobi2d", {{"T", "f64"}, {"N1", "3"}, {"N2", "5"}});
    auto In = generated<double>(prim(K::F64), {N1 + 2, N2 + 2}, [](size_t i) { return double(pseudo(i, 22)) / 3; });
    auto in = values<double>(In);
    auto o = values<double>(run1(inst, {{"I", In}}).at("O"));
    for (int64_t i = 0; i < N1; ++i)
      for (int64_t j = 0; j < N2; ++j) {
        double s = in[i * W + j + 1] + in[(i + 1) * W + j] + in[(i + 1) * W + j + 1] + in[(i + 1) * W + j + 2] +
                   in[(i + 2) * W + j + 1];
        CHECK(o[i * N2 + j] == 0.2 * s);
      }
  }
  SUBCASE("3D") {
    const int64_t N = 3, M = N + 2;
    auto inst = example("jacobi3d.mdh", "jacobi3d", {{"T", "f64"}, {"N1", "3"}, {"N2", "3"}, {"N3", "3"}});
    auto In = generated<double>(prim(K::F64), {M, M, M}, [](size_t i) { return double(pseudo(i, 23)); });
    auto in = values<double>(In);
    auto at = [&](int64_t a, int64_t b, int64_t c) { return in[(a * M + b) * M + c]; };
    auto o = values<double>(run1(inst, {{"I", In}}).at("O"));
    for (int64_t i = 0; i < N; ++i)
      for (int64_t j = 0; j < N; ++j)
        for (int64_t k = 0; k < N; ++k) {
          double s = at(i, j + 1, k + 1) + at(i + 1, j, k + 1) + at(i + 1, j + 1, k) + at(i + 1, j + 1, k + 1) +
                     at(i + 1, j + 1, k + 2) + at(i + 1, j + 2, k + 1) + at(i + 2, j + 1, k + 1);
          CHECK(o[(i * N + j) * N + k] == 0.14285714 * s);
        }
  }
}

namespace {
struct Person {
  int64_t id, first_name, last_name;
  int32_t birth_year;
  uint8_t sex;
  int32_t zip, block;
};
struct Match {
  int64_t a_id, b_id;
  double w;
  int8_t link;
};
static_assert(sizeof(Person) == 40 && sizeof(Match) == 32, "C layout of the records");

double qidWeight(bool agree, double m, double u) {
  double toDecibans = 4.3429448190325;
  return agree ? toDecibans * std::log(m / u) : toDecibans * std::log((1.0 - m) / (1.0 - u));
}

Match wght(const Person &a, const Person &b) {
  if (a.block != b.block) return {a.id, b.id, 0.0, 0};
  double w = 0;
  w += qidWeight(a.first_name == b.first_name, 0.95, 0.005);
  w += qidWeight(a.last_name == b.last_name, 0.95, 0.002);
  w += qidWeight(a.birth_year == b.birth_year, 0.90, 0.02);
  w += qidWeight(a.sex == b.sex, 0.98, 0.5);
  w += qidWeight(a.zip == b.zip, 0.90, 0.01);
  int8_t link = w >= 45.0 ? 2 : w >= 15.0 ? 1 : 0;
  return {a.id, b.id, w, link};
}
} // namespace

TEST_CASE("prl: records, a user combine operator and its tie rule") {
  auto inst = example("prl.mdh", "prl", {{"I", "3"}, {"J", "5"}});
  const Type person = inst.input("N").elem, match = inst.output("M").elem;
  std::vector<Person> N = {{100, 1, 2, 1980, 1, 5000, 7}, {101, 3, 4, 1990, 0, 6000, 7}, {102, 9, 9, 1970, 1, 7000, 8}};
  // E: ids 7 and 3 are identical records (a tie): the smaller b_id (3) must win although it comes later.
  std::vector<Person> E = {{7, 1, 2, 1980, 1, 5000, 7},
                           {5, 3, 4, 1991, 0, 6000, 7},
                           {3, 1, 2, 1980, 1, 5000, 7},
                           {9, 9, 9, 1970, 1, 7001, 8},
                           {4, 3, 4, 1990, 0, 6000, 9}};
  auto out = run1(inst, {{"N", buffer<Person>(person, {3}, N)}, {"E", buffer<Person>(person, {5}, E)}});
  auto m = values<Match>(out.at("M"));
  REQUIRE(m.size() == 3);
  for (size_t i = 0; i < N.size(); ++i) {
    Match best = wght(N[i], E[0]);
    for (size_t j = 1; j < E.size(); ++j) {
      Match c = wght(N[i], E[j]);
      if (c.w > best.w || (c.w == best.w && c.b_id < best.b_id)) best = c;
    }
    CHECK(m[i].a_id == best.a_id);
    CHECK(m[i].b_id == best.b_id);
    CHECK(m[i].w == best.w);
    CHECK(m[i].link == best.link);
  }
  CHECK(m[0].b_id == 3); // the tie rule
  CHECK(m[0].link == 2);
}

TEST_CASE("histo and genhisto") {
  SUBCASE("histo with a prime element count") {
    const int64_t E = 37, B = 5;
    auto inst = example("histo.mdh", "histo", {{"T", "u8"}, {"E", "37"}, {"B", "5"}});
    auto El = generated<uint8_t>(prim(K::U8), {E}, [](size_t i) { return uint8_t(pseudo(i, 24, 4) + 4); });
    auto Bi = generated<uint8_t>(prim(K::U8), {B}, [](size_t i) { return uint8_t(i * 2); });
    auto el = values<uint8_t>(El), bi = values<uint8_t>(Bi);
    auto o = values<int32_t>(run1(inst, {{"Elems", El}, {"Bins", Bi}}).at("Out"));
    for (int64_t b = 0; b < B; ++b) {
      int32_t n = 0;
      for (int64_t e = 0; e < E; ++e) n += el[e] == bi[b];
      CHECK(o[b] == n);
    }
  }
  SUBCASE("genhisto") {
    struct Sample {
      int32_t key;
      float value;
    };
    struct Stats {
      int32_t count;
      double sum;
      float max;
    };
    const int64_t E = 11, B = 4;
    auto inst = example("genhisto.mdh", "genhisto", {{"E", "11"}, {"B", "4"}});
    std::vector<Sample> s;
    for (int64_t e = 0; e < E; ++e) s.push_back({int32_t(pseudo(e, 25, 2) + 2), float(pseudo(e, 26)) / 4});
    std::vector<int32_t> bins = {0, 1, 2, 9};
    auto out = run1(inst, {{"Elems", buffer<Sample>(inst.input("Elems").elem, {E}, s)},
                           {"Bins", buffer<int32_t>(prim(K::I32), {B}, bins)}});
    auto st = values<Stats>(out.at("Out"));
    for (int64_t b = 0; b < B; ++b) {
      Stats x{0, 0.0, 0.0f};
      for (int64_t e = 0; e < E; ++e)
        if (s[e].key == bins[b]) {
          x.max = x.count == 0 ? s[e].value : std::fmax(x.max, s[e].value);
          x.sum += double(s[e].value);
          x.count += 1;
        }
      CHECK(st[b].count == x.count);
      CHECK(st[b].sum == x.sum);
      CHECK(st[b].max == x.max);
    }
    CHECK(st[3].count == 0);
  }
}

TEST_CASE("map, reduce, reduce(⊕,⊗) with two outputs") {
  SUBCASE("map") {
    auto sq = example("map.mdh", "map_square", {{"T", "i32"}, {"N", "9"}});
    auto relu = example("map.mdh", "map_relu", {{"T", "i32"}, {"N", "9"}});
    auto sig = example("map.mdh", "map_sigmoid", {{"N", "9"}});
    auto I = generated<int32_t>(prim(K::I32), {9}, [](size_t i) { return int32_t(pseudo(i, 27)); });
    auto F = generated<float>(prim(K::F32), {9}, [](size_t i) { return float(pseudo(i, 28)) / 3; });
    auto in = values<int32_t>(I);
    auto fin = values<float>(F);
    auto o1 = values<int32_t>(run1(sq, {{"I", I}}).at("O1"));
    auto o2 = values<int32_t>(run1(relu, {{"I", I}}).at("O1"));
    auto o3 = values<double>(run1(sig, {{"I", F}}).at("O1"));
    for (size_t i = 0; i < 9; ++i) {
      CHECK(o1[i] == in[i] * in[i]);
      CHECK(o2[i] == std::max(in[i], 0));
      CHECK(o3[i] == 1.0 / (1.0 + std::exp(-double(fin[i]))));
    }
  }
  SUBCASE("reduce") {
    auto sum = example("reduce.mdh", "reduce_sum", {{"T", "i64"}, {"N", "13"}});
    auto mx = example("reduce.mdh", "reduce_max", {{"T", "f32"}, {"N", "13"}});
    auto all = example("reduce.mdh", "reduce_all", {{"N", "5"}});
    auto I = generated<int64_t>(prim(K::I64), {13}, [](size_t i) { return pseudo(i, 29, 1000); });
    auto F = generated<float>(prim(K::F32), {13}, [](size_t i) { return float(pseudo(i, 30)) * 0.5f; });
    int64_t s = 0;
    for (auto v : values<int64_t>(I)) s += v;
    float m = values<float>(F)[0];
    for (auto v : values<float>(F)) m = std::fmax(m, v);
    CHECK(values<int64_t>(run1(sum, {{"I", I}}).at("O1"))[0] == s);
    CHECK(values<float>(run1(mx, {{"I", F}}).at("O1"))[0] == m);
    auto yes = buffer<uint8_t>(prim(K::Bool), {5}, {1, 1, 1, 1, 1});
    auto no = buffer<uint8_t>(prim(K::Bool), {5}, {1, 1, 0, 1, 1});
    CHECK(values<uint8_t>(run1(all, {{"I", yes}}).at("O1"))[0] == 1);
    CHECK(values<uint8_t>(run1(all, {{"I", no}}).at("O1"))[0] == 0);
  }
  SUBCASE("reduce(add, mul): a tuple operator and two 0-D outputs") {
    auto inst = example("reduce2.mdh", "reduce_add_mul", {{"T", "f64"}, {"N", "6"}});
    auto I = generated<double>(prim(K::F64), {6}, [](size_t i) { return double(pseudo(i, 31)) / 2; });
    auto in = values<double>(I);
    double s = in[0], p = in[0];
    for (size_t i = 1; i < 6; ++i) {
      s = s + in[i];
      p = p * in[i];
    }
    auto out = run1(inst, {{"I", I}});
    CHECK(values<double>(out.at("O1"))[0] == s);
    CHECK(values<double>(out.at("O2"))[0] == p);
  }
  SUBCASE("reduce(min, max) with a run-time size taken from the data") {
    auto inst = example("reduce2.mdh", "reduce_min_max_f32_dyn");
    REQUIRE(inst.prog->dynamicSizes.size() == 1);
    auto I = generated<float>(prim(K::F32), {17}, [](size_t i) { return float(pseudo(i, 32)); });
    auto in = values<float>(I);
    auto r = interp::evaluate(*inst, {{"I", I}});
    CHECK(r.shapes.sizes == std::vector<int64_t>{17});
    CHECK(values<float>(r.outputs.at("O1"))[0] == *std::min_element(in.begin(), in.end()));
    CHECK(values<float>(r.outputs.at("O2"))[0] == *std::max_element(in.begin(), in.end()));
  }
}

TEST_CASE("scan and mbbs: prefix-sum combine operators") {
  SUBCASE("scan") {
    for (int64_t n : {1, 2, 13}) {
      auto inst = example("scan.mdh", "prefix_sum", {{"T", "i32"}, {"N", std::to_string(n)}});
      auto A = generated<int32_t>(prim(K::I32), {n}, [](size_t i) { return int32_t(pseudo(i, 33)); });
      auto a = values<int32_t>(A);
      auto o = values<int32_t>(run1(inst, {{"A", A}}).at("Out"));
      int32_t acc = 0;
      for (int64_t i = 0; i < n; ++i) {
        acc += a[i];
        CHECK(o[i] == acc);
      }
    }
    auto mx = example("scan.mdh", "scan_running_max", {{"T", "f32"}, {"N", "10"}});
    auto A = generated<float>(prim(K::F32), {10}, [](size_t i) { return float(pseudo(i, 34)); });
    auto a = values<float>(A);
    auto o = values<float>(run1(mx, {{"A", A}}).at("Out"));
    float m = a[0];
    for (int i = 0; i < 10; ++i) {
      m = std::fmax(m, a[i]);
      CHECK(o[i] == m);
    }
  }
  SUBCASE("mbbs") {
    for (auto [I, J] : std::vector<std::array<int64_t, 2>>{{5, 3}, {1, 1}, {7, 1}, {1, 4}}) {
      auto inst = example("mbbs.mdh", "mbbs", {{"T", "i32"}, {"I", std::to_string(I)}, {"J", std::to_string(J)}});
      auto A = generated<int32_t>(prim(K::I32), {I, J}, [](size_t i) { return int32_t(pseudo(i, 35)); });
      auto a = values<int32_t>(A);
      auto o = values<int32_t>(run1(inst, {{"A", A}}).at("Out"));
      int32_t acc = 0;
      for (int64_t i = 0; i < I; ++i) {
        for (int64_t j = 0; j < J; ++j) acc += a[i * J + j];
        CHECK(o[i] == acc);
      }
    }
  }
}

TEST_CASE("mandelbrot: the scalar function receives the MDA indices") {
  struct Window {
    double x0, y0, step;
  };
  const int64_t H = 5, W = 7;
  auto inst = example("mandelbrot.mdh", "mandelbrot", {{"H", "5"}, {"W", "7"}});
  Window win{-2.0, -1.0, 0.45};
  auto out = run1(inst, {{"win", buffer<Window>(inst.input("win").elem, {}, {win})}});
  auto it = values<int32_t>(out.at("Iters"));
  for (int64_t i = 0; i < H; ++i)
    for (int64_t j = 0; j < W; ++j) {
      double cr = win.x0 + double(j) * win.step, ci = win.y0 + double(i) * win.step;
      double re = 0, im = 0;
      int32_t n = 0;
      for (int s = 0; s < 64; ++s) {
        if (re * re + im * im > 4.0) continue;
        double nre = re * re - im * im + cr, nim = 2.0 * re * im + ci;
        re = nre;
        im = nim;
        ++n;
      }
      CHECK(it[i * W + j] == n);
    }
}
