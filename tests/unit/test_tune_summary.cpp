// Unit tests of the summary line of `mdhc tune` (tuneSummary, TuneDriver.h):
// a kept default is reported as kept, with times re-timed side by side, never
// as a speed-up of the default over itself (new-user sweep #7).
#include "tune/SearchSpace.h"
#include "tune/TuneDriver.h"

#include <doctest/doctest.h>

using namespace mdh;

namespace {

ll::Config configWithThreads(int threads) {
  ll::Config c;
  c.threads = threads;
  return c;
}

tune::TuneResult session(const ll::Config &best, double bestSeconds, double firstDefaultSeconds) {
  tune::TuneResult r;
  r.baseline = {configWithThreads(0), firstDefaultSeconds, ""};
  r.best = {best, bestSeconds, ""};
  r.history.resize(6);
  return r;
}

} // namespace

TEST_CASE("a kept default is reported as kept, beside the fastest other candidate re-timed with it") {
  // The default's first measurement (31.971 ms) was slow; re-timed side by side it kept its place at 16.408 ms.
  tune::TuneResult r = session(configWithThreads(0), 0.016408, 0.031971);
  r.confirmedBaseline = tune::Measurement{configWithThreads(0), 0.016408, ""};
  r.confirmedCandidates = 3;
  tune::ConfirmationRecord c;
  c.entries = {{tune::configHash(configWithThreads(2)), 0.017, {}}, {tune::configHash(configWithThreads(0)), 0.016408, {}},
               {tune::configHash(configWithThreads(3)), 0.02, {}}};
  const std::string line = tune::tuneSummary(r, &c);
  CHECK(line == "tune: best is the default, kept: 16.408 ms re-timed side by side (3 candidates); the fastest other candidate "
                "17.000 ms, 0.97x the default's speed; 6 candidates, 0 failed\n");
  CHECK(line.find("1.95x") == std::string::npos);
}

TEST_CASE("a better candidate is compared with the default re-timed in the same rounds") {
  tune::TuneResult r = session(configWithThreads(2), 0.010, 0.031);
  r.confirmedBaseline = tune::Measurement{configWithThreads(0), 0.020, ""};
  r.confirmedCandidates = 3;
  tune::ConfirmationRecord c;
  CHECK(tune::tuneSummary(r, &c) ==
        "tune: best 10.000 ms, default 20.000 ms (2.00x), re-timed side by side (3 candidates), 6 candidates, 0 failed\n");
}

TEST_CASE("without a re-timing the summary says the times are single measurements") {
  CHECK(tune::tuneSummary(session(configWithThreads(0), 0.02, 0.02), nullptr) ==
        "tune: best is the default, 20.000 ms (no candidate measured faster; not re-timed side by side), 6 candidates, 0 failed\n");
  CHECK(tune::tuneSummary(session(configWithThreads(2), 0.01, 0.02), nullptr) ==
        "tune: best 10.000 ms, default 20.000 ms (2.00x; not re-timed side by side), 6 candidates, 0 failed\n");
}
