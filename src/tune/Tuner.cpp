/** \file
 * The tuner: candidate generation, batched compilation, isolated measurement.
 */
#include "tune/Tuner.h"

#include "codegen/OpenMPEmitter.h"
#include "data/RandomData.h"
#include "ll/Lowering.h"
#include "runtime/NativeLibrary.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <fmt/format.h>
#include <poll.h>
#include <random>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

namespace mdh::tune {
namespace {

using Clock = std::chrono::steady_clock;

/// Neighbour of a configuration: one tile extent of one level doubled or halved.
ll::Config mutate(const ll::Config &c, const std::vector<int64_t> &sizes, std::mt19937_64 &rng) {
  ll::Config n = c;
  if (n.levels.empty() || sizes.empty()) return n;
  size_t l = std::uniform_int_distribution<size_t>(0, n.levels.size() - 1)(rng);
  size_t d = std::uniform_int_distribution<size_t>(0, sizes.size() - 1)(rng);
  int64_t &t = n.levels[l].tile[d];
  int64_t upper = l == 0 ? sizes[d] : n.levels[l - 1].tile[d];
  t = std::uniform_int_distribution<int>(0, 1)(rng) ? std::min<int64_t>(upper, t * 2) : std::max<int64_t>(1, t / 2);
  for (size_t k = l + 1; k < n.levels.size(); ++k) n.levels[k].tile[d] = std::min(n.levels[k].tile[d], n.levels[k - 1].tile[d]);
  return n;
}

/// Runs `work(fd)` in a child process and returns what it wrote to `fd`
/// (the child is killed after `timeout` seconds).  Generated code runs only
/// in children: OpenMP's thread pool does not survive fork(), and a crash
/// or hang must not end the tuner.
template <class Work> std::string inChild(double timeout, Work work) {
  int fds[2];
  if (pipe(fds) != 0) return {};
  pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    work(fds[1]);
    _exit(0);
  }
  close(fds[1]);
  std::string buf;
  auto deadline = Clock::now() + std::chrono::duration<double>(timeout);
  char chunk[65536];
  while (true) {
    double left = std::chrono::duration<double>(deadline - Clock::now()).count();
    if (left <= 0) {
      kill(pid, SIGKILL);
      break;
    }
    pollfd p{fds[0], POLLIN, 0};
    if (poll(&p, 1, int(left * 1000) + 1) <= 0) continue;
    ssize_t n = read(fds[0], chunk, sizeof chunk);
    if (n <= 0) break;
    buf.append(chunk, size_t(n));
  }
  close(fds[0]);
  waitpid(pid, nullptr, 0);
  return buf;
}

void writeAll(int fd, const void *data, size_t size) {
  const char *p = static_cast<const char *>(data);
  for (size_t off = 0; off < size;) {
    ssize_t n = write(fd, p + off, size - off);
    if (n <= 0) _exit(1);
    off += size_t(n);
  }
}

/// Points the output slots of `ptrs` at fresh zeroed buffers.
std::vector<std::vector<uint8_t>> allocateOutputs(std::vector<void *> &ptrs, const std::vector<size_t> &outBytes) {
  size_t nIn = ptrs.size() - outBytes.size();
  std::vector<std::vector<uint8_t>> outs(outBytes.size());
  for (size_t i = 0; i < outs.size(); ++i) {
    outs[i].assign(outBytes[i], 0);
    ptrs[nIn + i] = outs[i].data();
  }
  return outs;
}

/// Runs the candidates of one library in a child process; returns median seconds per candidate (< 0: failed).
std::vector<double> measureBatch(const runtime::NativeLibrary &lib, const std::vector<std::string> &names,
                                 std::vector<void *> ptrs, const std::vector<size_t> &outBytes,
                                 const std::vector<std::vector<uint8_t>> *reference, int reps, double timeout) {
  std::vector<double> times(names.size(), -1);
  std::string buf = inChild(timeout, [&](int fd) {
    auto outs = allocateOutputs(ptrs, outBytes);
    for (size_t c = 0; c < names.size(); ++c) {
      auto fn = lib.entry(names[c]);
      if (!fn) continue;
      fn(nullptr, ptrs.data()); // warm-up, and the output to check
      bool ok = true;
      if (reference)
        for (size_t i = 0; i < outs.size(); ++i) ok &= outs[i] == (*reference)[i];
      std::vector<double> t;
      for (int r = 0; ok && r < reps; ++r) {
        auto t0 = Clock::now();
        fn(nullptr, ptrs.data());
        t.push_back(std::chrono::duration<double>(Clock::now() - t0).count());
      }
      double med = -2; // -2: wrong result
      if (ok) {
        std::sort(t.begin(), t.end());
        med = t[t.size() / 2];
      }
      std::string line = fmt::format("{} {:.9e}\n", c, med);
      writeAll(fd, line.data(), line.size());
    }
  });
  size_t pos = 0;
  while (pos < buf.size()) {
    size_t nl = buf.find('\n', pos);
    if (nl == std::string::npos) break;
    size_t idx;
    double t;
    if (std::sscanf(buf.c_str() + pos, "%zu %lf", &idx, &t) == 2 && idx < times.size()) times[idx] = t;
    pos = nl + 1;
  }
  return times;
}

/// The outputs of one entry, computed in a child process.
bool referenceOutputs(const runtime::NativeLibrary &lib, const std::string &name, std::vector<void *> ptrs,
                      const std::vector<size_t> &outBytes, double timeout, std::vector<std::vector<uint8_t>> &out) {
  std::string buf = inChild(timeout, [&](int fd) {
    auto outs = allocateOutputs(ptrs, outBytes);
    lib.entry(name)(nullptr, ptrs.data());
    for (const auto &o : outs) writeAll(fd, o.data(), o.size());
  });
  size_t want = 0;
  for (auto n : outBytes) want += n;
  if (buf.size() != want) return false;
  out.clear();
  size_t off = 0;
  for (auto n : outBytes) {
    out.emplace_back(buf.begin() + long(off), buf.begin() + long(off + n));
    off += n;
  }
  return true;
}

} // namespace

TuneResult tune(const hl::Program &prog, const TuneOptions &opts) {
  TuneResult res;
  auto say = [&](const std::string &s) {
    if (opts.log) opts.log(s);
  };
  if (!prog.dynamicSizes.empty()) {
    res.best.seconds = -1;
    res.best.failure = "tuning needs concrete sizes; give every `*` size a value";
    return res;
  }
  ll::AsmModel model = ll::openmpModel();
  std::vector<int64_t> sizes = ll::concreteSizes(prog);
  std::mt19937_64 rng(opts.seed);
  // Inputs: the interpreter's seeded random data; outputs allocated per run.
  std::vector<std::vector<uint8_t>> inputs;
  std::vector<void *> ptrs;
  for (const auto &b : prog.inputs) {
    std::vector<int64_t> shape;
    for (const auto &s : b.shape) shape.push_back(s.constantValue().value_or(1));
    inputs.push_back(data::randomBuffer(b.name, b.elem, shape, opts.seed).bytes);
  }
  for (auto &in : inputs) ptrs.push_back(in.data());
  std::vector<size_t> outBytes;
  for (const auto &b : prog.outputs) {
    size_t n = b.elem.size();
    for (const auto &s : b.shape) n *= size_t(s.constantValue().value_or(1));
    outBytes.push_back(n);
    ptrs.push_back(nullptr);
  }
  // The default configuration's outputs are the reference for every candidate.
  std::vector<std::vector<uint8_t>> reference;
  {
    ll::Config def = ll::defaultConfig(prog, model, opts.threads);
    auto k = codegen::emitOpenMP(ll::lower(prog, def), "mdh_ref");
    std::string err;
    auto lib = runtime::NativeLibrary::build(k.source, k.flags, err);
    if (!lib) {
      res.best.seconds = -1;
      res.best.failure = err;
      return res;
    }
    if (!referenceOutputs(*lib, "mdh_ref", ptrs, outBytes, opts.candidateTimeout * 4, reference)) {
      res.best.seconds = -1;
      res.best.failure = "the default configuration crashed or timed out";
      return res;
    }
  }
  // Integer, bool and record outputs must equal the default's bit for bit;
  // float outputs (reordered sums round differently) are not compared yet.
  bool exact = true;
  for (const auto &b : prog.outputs) exact &= !b.elem.isFloat();
  auto start = Clock::now();
  res.best.seconds = -1;
  int evaluated = 0, round = 0;
  while (evaluated < opts.evaluations &&
         std::chrono::duration<double>(Clock::now() - start).count() < opts.seconds) {
    std::vector<ll::Config> batch;
    if (round == 0) batch.push_back(ll::defaultConfig(prog, model, opts.threads));
    while (int(batch.size()) < opts.batch && evaluated + int(batch.size()) < opts.evaluations) {
      ll::Config c = res.best.seconds > 0 && std::uniform_int_distribution<int>(0, 1)(rng)
                         ? mutate(res.best.config, sizes, rng)
                         : ll::randomConfig(prog, model, rng, sizes);
      c.threads = opts.threads;
      if (!ll::validate(c, prog, model).empty()) continue;
      batch.push_back(c);
    }
    std::string source, flags;
    std::vector<std::string> names;
    for (size_t i = 0; i < batch.size(); ++i) {
      names.push_back(fmt::format("mdh_cand_{}_{}", round, i));
      auto k = codegen::emitOpenMP(ll::lower(prog, batch[i]), names.back());
      if (i == 0) source = k.common;
      source += k.kernel;
      flags = k.flags;
    }
    std::string err;
    auto lib = runtime::NativeLibrary::build(source, flags, err);
    std::vector<double> times(batch.size(), -1);
    if (lib)
      times = measureBatch(*lib, names, ptrs, outBytes, exact ? &reference : nullptr, opts.repetitions,
                           opts.candidateTimeout);
    for (size_t i = 0; i < batch.size(); ++i) {
      Measurement m{batch[i], times[i], ""};
      if (!lib) m.failure = "compile error";
      else if (times[i] == -2) m.failure = "wrong result (compiler bug: report it with this configuration)";
      else if (times[i] < 0) m.failure = "crashed or timed out";
      if (round == 0 && i == 0) res.baseline = m;
      if (m.seconds > 0 && (res.best.seconds < 0 || m.seconds < res.best.seconds)) res.best = m;
      res.history.push_back(m);
    }
    evaluated += int(batch.size());
    ++round;
    say(fmt::format("tune: {}/{} candidates, {:.0f} s, best {:.3f} ms (default {:.3f} ms)", evaluated, opts.evaluations,
                    std::chrono::duration<double>(Clock::now() - start).count(), res.best.seconds * 1e3,
                    res.baseline.seconds * 1e3));
  }
  return res;
}

} // namespace mdh::tune
