// Unit tests of the tuner's pure parts: the search space (streaming stores
// included), the techniques'
// determinism, the AUC bandit's credit, and the tuning database's crash
// safety (torn last line, write failure on a full disk), its key, and which
// configuration it names best once candidates were re-timed side by side;
// and that a candidate's timed runs follow a warm-up long enough to leave
// its predecessor's cache state behind.
#include "TestPrograms.h"
#include "ll/AsmModel.h"
#include "tune/AucBandit.h"
#include "tune/CompileCache.h"
#include "tune/EntryRunner.h"
#include "tune/Hash.h"
#include "tune/OpenMPBackend.h"
#include "tune/SearchSpace.h"
#include "tune/Technique.h"
#include "tune/Tuner.h"
#include "tune/TuningDb.h"
#include "tune/UnitBuild.h"

#include <doctest/doctest.h>

#include <csignal>
#include <cstring>
#include <set>
#include <filesystem>
#include <fstream>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace mdh;
using testing_support::matmul;

namespace {

std::string tempDir() {
  std::string t = (std::filesystem::temp_directory_path() / "mdh-unit-tune-XXXXXX").string();
  std::vector<char> b(t.begin(), t.end());
  b.push_back(0);
  REQUIRE(mkdtemp(b.data()));
  return b.data();
}

} // namespace

TEST_CASE("the search space yields admissible, pinned configurations") {
  Compilation comp;
  auto p = matmul(comp, "T=f32,I=100,J=64,K=48");
  tune::Pins pins;
  std::string err;
  REQUIRE(tune::Pins::parse(nlohmann::json::parse(R"({"simd_dim": 1, "levels": [{"layer": "COR", "tile": [10, 64, 48]}, {"layer": "RM"}]})"),
                            pins, err));
  tune::SearchSpace space(*p, ll::openmpModel(), pins, {0, 1});
  CHECK(space.admissible(space.start()));
  std::mt19937_64 rng(3);
  for (int i = 0; i < 100; ++i) {
    ll::Config c = i % 2 ? space.random(rng) : space.neighbour(space.start(), rng, 2);
    CHECK(space.admissible(c));
    CHECK(c.simdDim == 1);
    REQUIRE(c.levels.size() == 2);
    CHECK(c.levels[0].tile == std::vector<int64_t>{10, 64, 48});
    CHECK(c.levels[1].layer == "RM");
  }
  for (const auto &c : space.neighbours(space.start(), 1)) CHECK(space.admissible(c));
}

TEST_CASE("the search space flips streaming stores only where a program may use them, and a pin holds") {
  Compilation comp, comp2;
  auto stencil = testing_support::instantiate(comp, "examples/jacobi1d.mdh", "jacobi1d", "T=f32,N=100000");
  auto mm = matmul(comp2, "T=f32,I=64,J=64,K=64");
  tune::SearchSpace open(*stencil, ll::openmpModel(), {}, {0});
  bool flipped = false;
  for (const auto &c : open.neighbours(open.start(), 1)) flipped |= c.streamStores != open.start().streamStores;
  CHECK(flipped);
  std::mt19937_64 rng(5);
  int on = 0;
  for (int i = 0; i < 60; ++i) on += open.random(rng).streamStores;
  CHECK(on > 0);
  CHECK(on < 60);

  // A reduction streams only from configurations whose tiles hold it whole.
  tune::SearchSpace reduction(*mm, ll::openmpModel(), {}, {0});
  int streamedNeighbours = 0;
  for (const auto &c : reduction.neighbours(reduction.start(), 1)) {
    if (c.streamStores) CHECK(ll::streamsWholeReductions(c, *mm));
    streamedNeighbours += c.streamStores;
  }
  CHECK(streamedNeighbours == (ll::streamsWholeReductions(reduction.start(), *mm) ? 1 : 0));
  for (int i = 0; i < 30; ++i) CHECK_FALSE(reduction.random(rng).streamStores);
  ll::Config whole = reduction.start();
  whole.levels = {{"COR", {32, 64, 64}, {0, 1, 2}}, {"L2", {32, 64, 64}, {2, 0, 1}}, {"RM", {4, 32, 4}, {0, 1, 2}}};
  whole.stages.clear();
  whole.streamStores = true;
  REQUIRE(reduction.admissible(whole));
  bool split = false;
  for (const auto &c : reduction.neighbours(whole, 1)) {
    if (c.streamStores) CHECK(ll::streamsWholeReductions(c, *mm));
    split |= !ll::streamsWholeReductions(c, *mm); // a split ends the streaming, not the move
  }
  CHECK(split);

  tune::Pins pins;
  std::string err;
  REQUIRE(tune::Pins::parse(nlohmann::json::parse(R"({"stream_stores": true})"), pins, err));
  tune::SearchSpace pinned(*stencil, ll::openmpModel(), pins, {0});
  CHECK(pinned.start().streamStores);
  for (int i = 0; i < 30; ++i) CHECK(pinned.neighbour(pinned.start(), rng, 2).streamStores);
}

TEST_CASE("the search space varies the prefetch distance of reductions only, one spelling per distance, and a pin holds") {
  Compilation comp, comp2;
  auto stencil = testing_support::instantiate(comp, "examples/jacobi1d.mdh", "jacobi1d", "T=f32,N=100000");
  auto mm = matmul(comp2, "T=f32,I=64,J=64,K=64");
  tune::SearchSpace reduction(*mm, ll::openmpModel(), {}, {0});
  std::set<int> near;
  for (const auto &c : reduction.neighbours(reduction.start(), 1)) near.insert(c.prefetchSteps);
  CHECK(near.count(4));  // half the built-in 8
  CHECK(near.count(16)); // twice
  std::mt19937_64 rng(7);
  std::set<int> drawn;
  for (int i = 0; i < 60; ++i) {
    const ll::Config c = reduction.random(rng);
    CHECK(c.prefetchSteps != ll::Config::kDefaultPrefetchSteps); // spelt 0
    drawn.insert(c.prefetchSteps);
  }
  CHECK(drawn.size() >= 3);

  tune::SearchSpace open(*stencil, ll::openmpModel(), {}, {0});
  for (const auto &c : open.neighbours(open.start(), 1)) CHECK(c.prefetchSteps == 0);
  for (int i = 0; i < 30; ++i) CHECK(open.random(rng).prefetchSteps == 0);

  tune::Pins pins;
  std::string err;
  REQUIRE(tune::Pins::parse(nlohmann::json::parse(R"({"prefetch_steps": 32})"), pins, err));
  tune::SearchSpace pinned(*mm, ll::openmpModel(), pins, {0});
  CHECK(pinned.start().prefetchSteps == 32);
  for (int i = 0; i < 30; ++i) CHECK(pinned.neighbour(pinned.start(), rng, 2).prefetchSteps == 32);
}

TEST_CASE("tile candidates include divisors and remainder-tile extents") {
  Compilation comp;
  auto p = matmul(comp, "T=f32,I=100,J=64,K=48");
  tune::SearchSpace space(*p, ll::openmpModel(), {}, {0});
  auto c = space.tileCandidates(100);
  for (int64_t t : {1, 2, 4, 5, 10, 20, 25, 50, 100, 16, 32, 64, 48, 7, 12, 15}) CHECK(std::count(c.begin(), c.end(), t) == 1);
  CHECK(std::count(c.begin(), c.end(), 17) == 0);
  CHECK(std::is_sorted(c.begin(), c.end()));
  CHECK(c.back() == 100);
}

TEST_CASE("the register tile's rows move to another concatenated dimension") {
  Compilation comp;
  auto conv = testing_support::instantiate(comp, "examples/mcc.mdh", "mcc", "T=f32,N=1,P=28,Q=28,K=64,R=3,S=3,C=3");
  tune::SearchSpace space(*conv, ll::openmpModel(), {}, {0});
  const ll::Config &start = space.start();
  const auto &rm = start.levels.back().tile; // n p q k r s c; rows along p, vectors along k
  REQUIRE(start.simdDim == 3);
  REQUIRE(rm[1] > 1);
  REQUIRE(rm[2] == 1);
  bool toQ = false;
  for (const ll::Config &c : space.rowMoves(start)) {
    const auto &t = c.levels.back().tile;
    CHECK(t[3] == rm[3]); // the vector dimension keeps its extent
    for (size_t d : {4, 5, 6}) CHECK(t[d] == rm[d]); // reductions are not rows
    if (t[2] == rm[1] && t[1] == 1) toQ = true;
    CHECK(t[0] == 1); // n: an extent of 1 takes no rows
  }
  CHECK(toQ);
  bool found = false;
  for (const ll::Config &c : space.neighbours(start, 1)) found |= c.levels.back().tile[2] == rm[1] && c.levels.back().tile[1] == 1;
  CHECK(found);
}

TEST_CASE("the search is seeded with register-tile variants of its start") {
  Compilation comp, comp2;
  auto conv = testing_support::instantiate(comp, "examples/mcc.mdh", "mcc", "T=f32,N=1,P=28,Q=28,K=64,R=3,S=3,C=3");
  tune::SearchSpace space(*conv, ll::openmpModel(), {}, {0});
  const auto seeds = space.seeds();
  CHECK(seeds.size() <= 12);
  std::set<std::pair<int64_t, int64_t>> rows; // (along p, along q)
  for (const ll::Config &c : seeds) {
    CHECK(space.admissible(c));
    CHECK(tune::configHash(c) != tune::configHash(space.start()));
    const auto &t = c.levels.back().tile;
    CHECK((t[1] == 1 || t[2] == 1)); // all rows along one dimension
    CHECK(t[3] == space.start().levels.back().tile[3]);
    rows.insert({t[1], t[2]});
  }
  CHECK(rows.count({1, 12}) == 1);
  CHECK(rows.count({12, 1}) == 1);
  CHECK(rows.count({1, space.start().levels.back().tile[1]}) == 1); // the start's rows moved to q
  CHECK(rows.size() == seeds.size());

  // Pinned levels: no seeds (they would change pinned tiles).
  tune::Pins pins;
  std::string err;
  REQUIRE(tune::Pins::parse(nlohmann::json::parse(R"({"levels": [{"layer": "COR"}, {"layer": "RM"}]})"), pins, err));
  auto mm = matmul(comp2, "T=f32,I=100,J=64,K=48");
  CHECK(tune::SearchSpace(*mm, ll::openmpModel(), pins, {0}).seeds().empty());
}

TEST_CASE("techniques are reproducible for a fixed seed and fixed observations") {
  Compilation comp;
  auto p = matmul(comp, "T=f32,I=64,J=64,K=64");
  tune::SearchSpace space(*p, ll::openmpModel(), {}, {0});
  for (std::string name : {"random", "annealing", "pattern", "auc"}) {
    std::vector<std::string> seq[2];
    for (int run = 0; run < 2; ++run) {
      std::string err;
      auto t = tune::makeTechnique(name, 9, err);
      REQUIRE(t);
      tune::SearchState st{space, space.start(), 1.0};
      std::mt19937_64 rng(9);
      for (int i = 0; i < 30; ++i) {
        ll::Config c = t->propose(st, rng);
        CHECK(space.admissible(c));
        seq[run].push_back(tune::configHash(c));
        double cost = 1.0 + double(i % 7) / 10; // fixed fake measurements
        t->observe(st, c, cost, false);
      }
    }
    CHECK_MESSAGE(seq[0] == seq[1], name);
  }
  std::string err;
  CHECK_FALSE(tune::makeTechnique("hill", 1, err));
  CHECK(err.find("auc") != std::string::npos);
}

TEST_CASE("the AUC bandit favours the technique that finds improvements") {
  Compilation comp;
  auto p = matmul(comp, "T=f32,I=64,J=64,K=64");
  tune::SearchSpace space(*p, ll::openmpModel(), {}, {0});
  std::string err;
  std::vector<std::unique_ptr<tune::Technique>> ts;
  ts.push_back(tune::makeTechnique("random", 1, err));
  ts.push_back(tune::makeTechnique("annealing", 1, err));
  tune::AucBandit bandit(std::move(ts));
  tune::SearchState st{space, space.start(), 1.0};
  std::mt19937_64 rng(1);
  int annealing = 0;
  for (int i = 0; i < 60; ++i) {
    ll::Config c = bandit.propose(st, rng);
    bool isAnnealing = bandit.lastProposer() == "annealing";
    annealing += isAnnealing;
    bandit.observe(st, c, 1.0, isAnnealing); // only annealing ever improves
  }
  CHECK(annealing > 45);
  CHECK(bandit.score(1) > bandit.score(0));
}

/// A successful measurement of a one-level configuration (its hash set by the caller).
static tune::TuningRecord finishedRecord() {
  tune::TuningRecord r;
  r.config.levels = {{"COR", {1}, {0}}};
  r.ok = true;
  r.median = 0.5;
  return r;
}

TEST_CASE("the tuning database ignores a torn last line and keeps records") {
  std::string dir = tempDir();
  const tune::TuningKey key{"p", "matmul", "I=1", "openmp", "machine"};
  tune::TuningRecord r = finishedRecord();
  std::string path;
  {
    tune::TuningDb db(dir, key);
    r.configHash = "a";
    db.append(r);
    r.configHash = "b";
    db.append(r);
    path = db.path();
  }
  { std::ofstream(path, std::ios::app) << R"({"kind":"measurement","hash":"c","con)"; }
  {
    tune::TuningDb db(dir, key);
    CHECK(db.records().size() == 2);
    CHECK(db.ignoredLines() == 1);
    r.configHash = "d";
    db.append(r); // cuts the torn line off first
  }
  tune::TuningDb db(dir, key);
  CHECK(db.records().size() == 3);
  CHECK(db.ignoredLines() == 0);
  CHECK(db.find("d"));
  std::filesystem::remove_all(dir);
}

TEST_CASE("the tuning database reports damaged lines in the middle and an unreadable key line") {
  std::string dir = tempDir();
  const tune::TuningKey key{"p", "matmul", "I=1", "openmp", "machine"};
  tune::TuningRecord r = finishedRecord();
  std::string path;
  {
    tune::TuningDb db(dir, key);
    for (const char *h : {"a", "b", "c"}) {
      r.configHash = h;
      db.append(r);
    }
    path = db.path();
  }
  std::vector<std::string> lines;
  {
    std::ifstream in(path);
    for (std::string l; std::getline(in, l);) lines.push_back(l);
  }
  REQUIRE(lines.size() == 4); // the key line and three measurements
  auto rewrite = [&](const std::vector<std::string> &ls) {
    std::ofstream out(path, std::ios::trunc);
    for (const auto &l : ls) out << l << "\n";
  };
  {
    tune::TuningDb db(dir, key);
    CHECK(db.keyChecked());
    CHECK(db.damagedLines().empty());
    CHECK(db.problems().empty());
  }
  // Line 3 cut short, and garbage inserted after it: both are complete lines, no torn tail.
  rewrite({lines[0], lines[1], lines[2].substr(0, lines[2].size() / 2), "garbage", lines[3]});
  {
    tune::TuningDb db(dir, key);
    CHECK(db.records().size() == 2);
    CHECK_FALSE(db.tornLastLine());
    CHECK(db.damagedLines() == std::vector<size_t>{3, 4});
    REQUIRE(db.problems().size() == 1);
    CHECK(db.problems()[0].find("2 damaged line(s)") != std::string::npos);
    CHECK(db.problems()[0].find("(line 3, 4)") != std::string::npos);
  }
  // The key line itself damaged: the records are read, but nothing vouches for them.
  rewrite({"{\"key\": broken", lines[1], lines[2], lines[3]});
  {
    tune::TuningDb db(dir, key);
    CHECK(db.records().size() == 3);
    CHECK_FALSE(db.keyChecked());
    REQUIRE(db.problems().size() == 2);
    CHECK(db.problems()[0].find("is not its key line") != std::string::npos);
  }
  // Only a torn last line: normal after a crash, no warning.
  rewrite({lines[0], lines[1]});
  { std::ofstream(path, std::ios::app) << R"({"kind":"measurement","hash":"x","con)"; }
  {
    tune::TuningDb db(dir, key);
    CHECK(db.tornLastLine());
    CHECK(db.problems().empty());
  }
  std::filesystem::remove_all(dir);
}

TEST_CASE("a full disk is a clear error and leaves the database intact") {
  std::string dir = tempDir();
  tune::TuningKey key{"p", "matmul", "I=1", "openmp", "machine"};
  tune::TuningRecord r;
  r.config.levels = {{"COR", {1}, {0}}};
  r.configHash = "a";
  std::string path;
  {
    tune::TuningDb db(dir, key);
    db.append(r);
    path = db.path();
  }
  auto size = std::filesystem::file_size(path);
  // Simulate the full disk with a file-size limit just above the current size.
  rlimit old{};
  getrlimit(RLIMIT_FSIZE, &old);
  auto oldHandler = signal(SIGXFSZ, SIG_IGN);
  rlimit lim = old;
  lim.rlim_cur = size + 20;
  REQUIRE(setrlimit(RLIMIT_FSIZE, &lim) == 0);
  bool threw = false;
  {
    tune::TuningDb db(dir, key);
    r.configHash = "b";
    try {
      db.append(r);
    } catch (const tune::DbError &e) {
      threw = true;
      CHECK(std::string(e.what()).find("intact") != std::string::npos);
    }
  }
  setrlimit(RLIMIT_FSIZE, &old);
  signal(SIGXFSZ, oldHandler);
  CHECK(threw);
  CHECK(std::filesystem::file_size(path) == size);
  tune::TuningDb db(dir, key);
  CHECK(db.records().size() == 1);
  CHECK(db.ignoredLines() == 0);
  std::filesystem::remove_all(dir);
}

TEST_CASE("the tuning key names the code generator, so other code is not resumed") {
  Compilation a, b;
  auto p = matmul(a, "T=f32,I=100,J=64,K=48");
  auto q = matmul(b, "T=f32,I=100,J=64,K=49");
  tune::CompileCache cache(tempDir());
  tune::OpenMPBackend backend(cache, 1);
  tune::TuningKey kp = tune::tuningKey(*p, {"T=f32,I=100,J=64,K=48"}, backend);
  CHECK(kp.codegen == tune::stableHash(backend.emittedSource(*p, ll::defaultConfig(*p, backend.model()))));
  CHECK(kp.toJson().contains("codegen"));
  // Another instantiation emits other code: another key.
  CHECK(tune::tuningKey(*q, {"T=f32,I=100,J=64,K=49"}, backend).codegen != kp.codegen);
}

TEST_CASE("a unit stopped by the compile timeout is retried candidate by candidate") {
  // The runaway candidate includes a FIFO nobody writes: its compiler blocks until the
  // timeout stops it, on any machine. Its neighbours in the unit build when retried alone.
  const std::string dir = tempDir();
  const std::string fifo = dir + "/never_written.h";
  REQUIRE(mkfifo(fifo.c_str(), 0600) == 0);
  {
    tune::CompileCache cache(dir + "/cache");
    REQUIRE_FALSE(cache.compilerMissing());
    const std::vector<tune::CandidateSource> candidates = {
        {"", "extern \"C\" int first_ok() { return 1; }\n"},
        {"", "#include \"" + fifo + "\"\n"},
        {"", "extern \"C\" int last_ok() { return 3; }\n"}};
    // One job: one unit of three, stopped after 4 s; then each alone, with 2 s (4 / 3, rounded up).
    auto built = tune::buildInUnits(cache, candidates, "-O1 -shared -fPIC", 1, 4.0);
    REQUIRE(built.size() == 3);
    CHECK_MESSAGE(built[0].error.empty(), built[0].error);
    CHECK_MESSAGE(built[2].error.empty(), built[2].error);
    CHECK(built[1].timedOut);
    CHECK(built[1].library.empty());
  }
  std::filesystem::remove_all(dir);
}

TEST_CASE("a candidate is timed after a warm-up, not in its first runs") {
  // An entry whose first 8 runs are slow stands for a kernel that inherits
  // the previous candidate's cache state: 3 ms each, then 0.1 ms (busy waits,
  // so a loaded machine only makes them longer).
  const std::string source = R"(#include <chrono>
#include <cstdint>
static int calls = 0;
extern "C" int slow_start_run(const int64_t *, void *const *buffers) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(++calls <= 8 ? 3000 : 100);
  while (std::chrono::steady_clock::now() < until) {}
  *static_cast<float *>(buffers[0]) = float(calls);
  return 0;
}
)";
  const std::string dir = tempDir();
  {
    tune::CompileCache cache(dir);
    REQUIRE_FALSE(cache.compilerMissing());
    auto built = cache.build({source}, "-O1 -shared -fPIC", 1);
    REQUIRE(built.size() == 1);
    REQUIRE_MESSAGE(built[0].error.empty(), built[0].error);
    const tune::BuiltCandidate candidate{built[0].library, "slow_start", "", 0};
    tune::RunRequest req;
    req.outputBytes = {sizeof(float)};
    req.repetitions = 5;
    req.returnOutputs = true;
    req.warmupSeconds = 0.05;
    tune::RunResult warmed = tune::runGenericEntry(candidate, req);
    REQUIRE(warmed.status == tune::RunResult::Status::Ok);
    CHECK(warmed.times.size() == 5);
    CHECK(warmed.median < 1e-3);
    // The outputs are those of the first run, which was checked.
    REQUIRE(warmed.outputs.size() == 1);
    float first = 0;
    std::memcpy(&first, warmed.outputs[0].data(), sizeof first);
    CHECK(first == 1.0f);
    // Without the extra warm-up, runs 2 to 6 are timed: all slow.
    req.warmupSeconds = 0;
    tune::RunResult cold = tune::runGenericEntry(candidate, req);
    REQUIRE(cold.status == tune::RunResult::Status::Ok);
    CHECK(cold.median > 2.5e-3);
  }
  std::filesystem::remove_all(dir);
}

TEST_CASE("a confirmation keeps the default unless a candidate beats it by more than the rounds' spread") {
  std::string dir = tempDir();
  tune::TuningKey key{"p", "matmul", "I=2", "openmp", "machine"};
  tune::TuningDb db(dir, key);
  tune::TuningRecord r;
  r.ok = true;
  for (auto [h, tech] : {std::pair{"def", "default"}, std::pair{"close", "random"}, std::pair{"clear", "random"}}) {
    r.configHash = h;
    r.technique = tech;
    r.median = 1;
    db.append(r);
  }
  auto confirm = [&](std::vector<tune::ConfirmationEntry> entries) {
    tune::ConfirmationRecord c;
    c.entries = std::move(entries);
    c.rounds = 3;
    c.measurements = db.records().size();
    db.appendConfirmation(c);
    return db.best();
  };
  // 3% ahead, inside twice the default's 2.5% spread: the default stays.
  auto b = confirm({{"def", 1.00, {0.975, 1.0, 1.025, 0.975, 1.025}}, {"close", 0.97, {0.96, 0.97, 0.98, 0.97, 0.97}}});
  CHECK(b.record->configHash == "def");
  CHECK(b.seconds == doctest::Approx(1.00));
  // 20% ahead: the candidate wins.
  b = confirm({{"def", 1.00, {0.975, 1.0, 1.025, 0.975, 1.025}}, {"clear", 0.80, {0.79, 0.80, 0.81, 0.80, 0.80}}});
  CHECK(b.record->configHash == "clear");
  // Tight rounds: a 2% lead is more than 1% and twice the 0.2% spread.
  b = confirm({{"def", 1.00, {0.998, 1.0, 1.002}}, {"close", 0.98, {0.979, 0.98, 0.981}}});
  CHECK(b.record->configHash == "close");
  // Under 1% never replaces the default.
  b = confirm({{"def", 1.00, {1.0, 1.0, 1.0}}, {"close", 0.995, {0.995, 0.995, 0.995}}});
  CHECK(b.record->configHash == "def");
  // A noisy default (spread 1.0: 0.007 to 43 ms on a loaded machine) against a candidate
  // 2400x faster in every round: the lead is a ratio, so the spread cannot hide it.
  b = confirm({{"def", 5.77e-3, {7e-6, 5.77e-3, 43e-3, 6e-3, 2e-5}}, {"clear", 2.4e-6, {2e-6, 2.4e-6, 3e-6, 2.4e-6, 2.5e-6}}});
  CHECK(b.record->configHash == "clear");
  // Every re-timing of the candidate below every one of the default: it wins even
  // though twice the spread (2 x 20%) exceeds its lead (1.00 / 0.75 - 1 = 33%).
  b = confirm({{"def", 1.00, {0.8, 1.0, 1.2, 0.8, 1.2}}, {"clear", 0.75, {0.5, 0.75, 0.78, 0.75, 0.75}}});
  CHECK(b.record->configHash == "clear");
  // The same lead with overlapping rounds stays inside the noise.
  b = confirm({{"def", 1.00, {0.6, 1.0, 1.4, 0.6, 1.4}}, {"clear", 0.70, {0.5, 0.7, 0.9, 0.7, 0.7}}});
  CHECK(b.record->configHash == "def");
  // Jacobi3D 254^3's confirmation (ms; 3 rounds of 5 calls, each run's first calls slow):
  // the rival's lead (1.19x at the medians) is inside twice the 20% spread, but it beats
  // the default in 14 of the 15 pairs, by a median 1.125x: it wins.
  const std::vector<double> jacobiDef = {4.77, 4.78, 3.49, 3.17, 3.19, 4.79, 4.66, 3.72, 3.34, 3.25, 4.97, 4.67, 3.80, 3.47, 3.15};
  const std::vector<double> jacobiRival = {4.59, 4.48, 3.53, 2.96, 3.07, 4.24, 3.98, 3.13, 2.85, 2.89, 4.22, 4.00, 3.06, 3.10, 2.90};
  b = confirm({{"def", 3.722, jacobiDef}, {"clear", 3.135, jacobiRival}});
  CHECK(b.record->configHash == "clear");
  // The same times in another order pair up by chance (9 of 15 wins): the spread rule decides, and keeps the default.
  std::vector<double> shuffled = jacobiRival;
  std::rotate(shuffled.begin(), shuffled.begin() + 2, shuffled.end());
  b = confirm({{"def", 3.722, jacobiDef}, {"clear", 3.135, shuffled}});
  CHECK(b.record->configHash == "def");
  // The ResNet-50 convolution's (ms): 12 of 15 pairs, a 1.3% median pair ratio; 12 wins
  // happen by chance 1.8% of the time: the default stays.
  b = confirm({{"def", 0.6352, {0.6422, 0.7476, 0.6319, 0.6221, 0.6607, 0.6362, 0.6472, 0.6225, 0.6882, 0.6265, 0.6352, 0.6993, 0.6223, 0.6199, 0.6240}},
               {"close", 0.6278, {0.6285, 0.6195, 0.6751, 0.6215, 0.6138, 0.6278, 0.6370, 0.7279, 0.6175, 0.6187, 0.6310, 0.6322, 0.6168, 0.6576, 0.6213}}});
  CHECK(b.record->configHash == "def");
  // Winning every pair by under 1% is not a lead either.
  b = confirm({{"def", 1.00, std::vector<double>(10, 1.0)}, {"close", 0.995, std::vector<double>(10, 0.995)}});
  CHECK(b.record->configHash == "def");
  std::filesystem::remove_all(dir);
}

TEST_CASE("the latest confirmation picks the best configuration, and later measurements need one") {
  std::string dir = tempDir();
  tune::TuningKey key{"p", "matmul", "I=1", "openmp", "machine"};
  tune::TuningRecord r;
  r.ok = true;
  auto add = [&](tune::TuningDb &db, const std::string &h, int64_t tile, double median) {
    r.configHash = h;
    r.config.levels = {{"COR", {tile}, {0}}};
    r.median = median;
    db.append(r);
  };
  {
    tune::TuningDb db(dir, key);
    CHECK_FALSE(db.needsConfirmation()); // nothing measured
    add(db, "lucky", 1, 0.5);            // one fast sample
    add(db, "steady", 2, 0.6);
    CHECK(db.needsConfirmation());
    CHECK(db.best().record->configHash == "lucky");
    CHECK_FALSE(db.best().confirmed);
    tune::ConfirmationRecord c;
    c.entries = {{"lucky", 0.9, {0.9, 0.8, 1.0}}, {"steady", 0.61, {0.6, 0.61, 0.62}}, {"gone", 0.1, {0.1}}};
    c.rounds = 3;
    c.measurements = db.records().size();
    c.cost = 2;
    db.appendConfirmation(c);
  }
  {
    tune::TuningDb db(dir, key); // read back from the file
    REQUIRE(db.confirmations().size() == 1);
    CHECK(db.confirmations()[0].entries[1].times.size() == 3);
    CHECK_FALSE(db.needsConfirmation());
    tune::BestRecord b = db.best(); // "gone" has no measurement: skipped
    CHECK(b.confirmed);
    CHECK(b.record->configHash == "steady");
    CHECK(b.seconds == doctest::Approx(0.61));
    CHECK(db.spentSeconds() == doctest::Approx(2));
    add(db, "newer", 3, 0.05); // unconfirmed: does not win yet, but asks for a confirmation
    CHECK(db.needsConfirmation());
    CHECK(db.best().record->configHash == "steady");
  }
  std::filesystem::remove_all(dir);
}

TEST_CASE("the convergence plot marks measurements beyond its axis and states the verdict") {
  using mdh::tune::ReportRow;
  std::vector<ReportRow> rows;
  auto row = [&](double median, double best) {
    ReportRow r;
    r.evaluation = int(rows.size()) + 1;
    r.elapsed = double(rows.size());
    r.technique = "random";
    r.status = "ok";
    r.median = median;
    r.best = best;
    rows.push_back(r);
  };
  row(1e-3, 1e-3);   // the default, 1 ms
  row(0.8e-3, 0.8e-3);
  row(0.1, 0.8e-3);  // 100x the default: beyond the 25x axis
  row(0.05, 0.8e-3); // 50x
  const std::string svg = mdh::tune::convergenceSvg(rows, 1e-3, "t", "best is the default, kept");
  CHECK(svg.find("2 slower measurements above the axis (up to 100 ms)") != std::string::npos);
  CHECK(svg.find("best is the default, kept") != std::string::npos);
  size_t triangles = 0;
  for (size_t at = svg.find("fill='#e08a00'/>"); at != std::string::npos; at = svg.find("fill='#e08a00'/>", at + 1)) ++triangles;
  CHECK(triangles == 2 * 2 + 1); // both panels, and the legend
}
