// Speed of the reference interpreter (native mode, one core):
//   mdh_interp_bench [N]        MatMul N³ (default 256), f32, random inputs
// prints scalar-function applications per second for the full evaluation,
// for per-cell evaluation of sampled cells of MatMul 1024³, and for the
// high-precision mode.  The issue asks for >= 1e6 applications/s on 256³.
#include "data/RandomData.h"
#include "driver/Compilation.h"
#include "interp/Interpreter.h"
#include "interp/PreciseEvaluation.h"

#include <fmt/format.h>

#include <chrono>
#include <cstdlib>

using namespace mdh;

namespace {

std::unique_ptr<hl::Program> matmul(Compilation &c, int64_t i, int64_t j, int64_t k) {
  return c.sema().instantiate("matmul", {{"T", "f32"}, {"I", std::to_string(i)}, {"J", std::to_string(j)}, {"K", std::to_string(k)}});
}

data::BufferSet inputsFor(const hl::Program &p, const interp::ProgramShapes &s) {
  data::BufferSet in;
  for (size_t b = 0; b < p.inputs.size(); ++b) in[p.inputs[b].name] = data::randomBuffer(p.inputs[b].name, p.inputs[b].elem, s.inputs[b], 1);
  return in;
}

double seconds(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

} // namespace

int main(int argc, char **argv) {
  const int64_t n = argc > 1 ? std::atoll(argv[1]) : 256;
  Compilation comp;
  comp.addFile(std::string(MDH_TEST_SOURCE_DIR) + "/examples/matmul.mdh");
  comp.analyze();

  auto prog = matmul(comp, n, n, n);
  auto shapes = interp::resolveShapes(*prog, {});
  auto in = inputsFor(*prog, shapes);
  auto t0 = std::chrono::steady_clock::now();
  auto r = interp::evaluate(*prog, in);
  double t = seconds(t0);
  fmt::print("full      MatMul {0}x{0}x{0} f32: {1} applications in {2:.3f} s = {3:.3g} applications/s\n", n, r.applications, t,
             double(r.applications) / t);

  auto big = matmul(comp, 1024, 1024, 1024);
  auto bigShapes = interp::resolveShapes(*big, {});
  auto bigIn = inputsFor(*big, bigShapes);
  std::vector<interp::CellRef> cells;
  for (int64_t c = 0; c < 100; ++c) cells.push_back({"C", {(c * 389) % 1024, (c * 631) % 1024}});
  t0 = std::chrono::steady_clock::now();
  auto cv = interp::evaluateCells(*big, bigIn, cells);
  t = seconds(t0);
  uint64_t apps = 0;
  for (const auto &c : cv) apps += c.applications;
  fmt::print("per-cell  MatMul 1024^3 f32, 100 sampled cells: {:.3f} s ({:.3g} applications/s, incl. data setup)\n", t,
             double(apps) / t);

  t0 = std::chrono::steady_clock::now();
  auto pc = interp::evaluatePrecise(*big, bigIn, std::vector<interp::CellRef>(cells.begin(), cells.begin() + 10));
  t = seconds(t0);
  apps = 0;
  for (const auto &c : pc) apps += c.applications;
  fmt::print("precise   MatMul 1024^3 f32, 10 sampled cells: {:.3f} s ({:.3g} applications/s)\n", t, double(apps) / t);
  return 0;
}
