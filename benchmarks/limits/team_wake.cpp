// team_wake.cpp — what starting a parallel region costs an OpenMP program on this machine, the
// fixed cost a multi-threaded kernel pays per call and that a single-threaded one does not.
//
// How: an empty `#pragma omp parallel` region (every thread of the team enters and leaves it)
// is timed (1) back to back, the team still awake from the region before (fork/join), and
// (2) after the calling thread slept --idle-ms milliseconds, the idle the benchmark driver
// leaves before each cold call (120 ms: benchmarks/suite/bench_suite.cpp) and before each warm
// batch (20 ms, but the warm batch follows an untimed call). After an idle longer than
// libgomp's spin time the team's threads sleep in the kernel, and the region's time is how long
// the last of them takes to be woken and scheduled: on a virtual machine an idle virtual CPU has
// to be woken by the hypervisor too. Medians with min and max over --reps samples.
//
// Build: g++ -O3 -march=native -fopenmp -std=c++17 team_wake.cpp -o team_wake
// Usage: team_wake [--reps N] [--idle-ms MS]...   (default: 41 samples, idles 20 and 120 ms)
// Output: a readable line per figure, plus for scripts
//   RESULT omp_fork_join <median> <min> <max> us
//   RESULT omp_team_wake.<MS>ms <median> <min> <max> us
// Standalone: needs nothing from the rest of the mdh project.

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

namespace {

struct Stats {
  double med, lo, hi;
};

Stats stats(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return {v[v.size() / 2], v.front(), v.back()};
}

double now_us() {
  return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Times one empty parallel region; the atomic keeps the region from being optimised away and
// checks that the whole team entered it.
double timed_region(std::atomic<int> &entered) {
  entered.store(0, std::memory_order_relaxed);
  const double t0 = now_us();
#pragma omp parallel
  entered.fetch_add(1, std::memory_order_relaxed);
  return now_us() - t0;
}

} // namespace

int main(int argc, char **argv) {
  int reps = 41;
  std::vector<int> idles;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--reps" && i + 1 < argc) reps = std::max(7, std::atoi(argv[++i]));
    else if (a == "--idle-ms" && i + 1 < argc) idles.push_back(std::max(1, std::atoi(argv[++i])));
    else {
      std::fprintf(stderr, "usage: team_wake [--reps N] [--idle-ms MS]...\n");
      return 2;
    }
  }
  if (idles.empty()) idles = {20, 120};
  const int team = omp_get_max_threads();
  std::atomic<int> entered{0};
  for (int i = 0; i < 100; ++i) timed_region(entered); // creates the team's threads

  std::vector<double> fork_join;
  for (int i = 0; i < reps; ++i) fork_join.push_back(timed_region(entered));
  if (entered.load() != team) {
    std::fprintf(stderr, "team_wake: %d of %d threads entered the region\n", entered.load(), team);
    return 1;
  }
  const Stats fj = stats(fork_join);
  std::printf("empty parallel region, %d threads, back to back: %.1f us median (%.1f..%.1f)\n", team, fj.med, fj.lo, fj.hi);
  std::printf("RESULT omp_fork_join %.2f %.2f %.2f us\n", fj.med, fj.lo, fj.hi);

  for (int idle : idles) {
    std::vector<double> wake;
    for (int i = 0; i < reps; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(idle));
      wake.push_back(timed_region(entered));
    }
    const Stats w = stats(wake);
    std::printf("empty parallel region, %d threads, after %d ms idle: %.1f us median (%.1f..%.1f)\n", team, idle, w.med, w.lo, w.hi);
    std::printf("RESULT omp_team_wake.%dms %.2f %.2f %.2f us\n", idle, w.med, w.lo, w.hi);
  }
  return 0;
}
