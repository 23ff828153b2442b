/** \file
 * The tuning database: JSON lines appended with fsync.
 */
#include "tune/TuningDb.h"

#include "ll/AsmModel.h"
#include "support/InputFile.h"
#include "tune/Hash.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <ctime>
#include <fcntl.h>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

namespace fs = std::filesystem;
using nlohmann::json;

namespace mdh::tune {

json TuningKey::toJson() const {
  return {{"program", programHash}, {"entry", entry}, {"instantiation", instantiation}, {"backend", backend}, {"machine", machine}, {"codegen", codegen}};
}

std::string TuningKey::id() const { return stableHash(toJson().dump()); }

std::string machineSignature(const std::string &toolchain) {
  // The model name alone does not tell machines apart: guests of two Xeon generations (260 and
  // 480 MiB of L3) both read "Intel(R) Xeon(R) Processor". Family, model and L3 size do
  // (benchmarks/cpu_id.sh prints the same identity for the benchmark results).
  std::string name = "unknown CPU", family, model;
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line) && !line.empty();) { // the first processor's block
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    const std::string key = line.substr(0, line.find_last_not_of(" \t", colon - 1) + 1);
    const auto v = line.find_first_not_of(" \t", colon + 1);
    const std::string value = v == std::string::npos ? "" : line.substr(v);
    if (key == "model name") name = value;
    else if (key == "cpu family" || key == "CPU implementer") family = value; // x86 | Arm (no model name there)
    else if (key == "model" || key == "CPU part") model = value;
  }
  const ll::AsmLayer *l3 = ll::openmpModel().layer("L3");
  const uint64_t l3MiB = l3 ? l3->capacityBytes >> 20 : 0;
  unsigned cores = std::thread::hardware_concurrency();
  return fmt::format("{} (family {} model {}, L3 {} MiB) | {} cores | {}", name, family, model, l3MiB, cores, toolchain);
}

std::string TuningDb::defaultDir() {
  if (const char *d = std::getenv("MDH_TUNE_DB"); d && *d) return d;
  if (const char *h = std::getenv("HOME"); h && *h) return std::string(h) + "/.cache/mdh/tuning";
  return (fs::temp_directory_path() / "mdh-tuning").string();
}

json TuningDb::toJson(const TuningRecord &r) {
  json j = {{"kind", "measurement"}, {"hash", r.configHash}, {"config", ll::toJson(r.config)}, {"ok", r.ok},
            {"median_s", r.median}, {"times_s", r.times}, {"technique", r.technique}, {"cost_s", r.cost},
            {"elapsed_s", r.elapsed}, {"at", r.at}};
  if (!r.failure.empty()) j["failure"] = r.failure;
  return j;
}

bool TuningDb::fromJson(const json &j, TuningRecord &r) {
  try {
    std::string err;
    if (!ll::fromJson(j.at("config"), r.config, err)) return false;
    r.configHash = j.at("hash").get<std::string>();
    r.ok = j.at("ok").get<bool>();
    r.median = j.at("median_s").get<double>();
    r.times = j.value("times_s", std::vector<double>{});
    r.technique = j.value("technique", "");
    r.failure = j.value("failure", "");
    r.cost = j.value("cost_s", 0.0);
    r.elapsed = j.value("elapsed_s", 0.0);
    r.at = j.value("at", 0.0);
    return true;
  } catch (const std::exception &) {
    return false;
  }
}

namespace {

json confirmationToJson(const ConfirmationRecord &c) {
  json entries = json::array();
  for (const auto &e : c.entries) entries.push_back({{"hash", e.configHash}, {"median_s", e.median}, {"times_s", e.times}});
  return {{"kind", "confirmation"}, {"entries", entries},   {"rounds", c.rounds},
          {"cost_s", c.cost},       {"measurements", c.measurements}, {"at", c.at}};
}

bool confirmationFromJson(const json &j, ConfirmationRecord &c) {
  try {
    for (const auto &e : j.at("entries"))
      c.entries.push_back({e.at("hash").get<std::string>(), e.at("median_s").get<double>(),
                           e.value("times_s", std::vector<double>{})});
    c.rounds = j.value("rounds", 0);
    c.cost = j.value("cost_s", 0.0);
    c.measurements = j.value("measurements", size_t(0));
    c.at = j.value("at", 0.0);
    return true;
  } catch (const std::exception &) {
    return false;
  }
}

} // namespace

TuningDb::TuningDb(std::string dir, TuningKey key) : dir_(std::move(dir)), key_(std::move(key)) {
  std::error_code ec;
  fs::create_directories(dir_, ec);
  if (!fs::is_directory(dir_))
    throw DbError(fmt::format("cannot create the tuning database directory `{}`{}; pass --db DIR or set MDH_TUNE_DB to a "
                              "writable directory", dir_, ec ? ": " + ec.message() : ""));
  path_ = dir_ + "/" + key_.id() + ".jsonl";
  if (!fs::exists(path_)) return; // no records yet
  // Bounded: a database path that reads endlessly (a link to /dev/zero or /dev/full) is an
  // error, not an allocation until memory runs out.  A real one holds a few KB per record.
  std::string text, why;
  constexpr size_t kLargestDb = size_t(1) << 30;
  switch (readBoundedFile(path_, kLargestDb, text, why)) {
  case BoundedRead::Complete: break;
  case BoundedRead::TooLarge:
    throw DbError(fmt::format("the tuning database `{}` is larger than 1 GiB (or never ends); move it away or pass --db DIR", path_));
  case BoundedRead::Failed: throw DbError(fmt::format("cannot read the tuning database `{}`: {}; pass --db DIR", path_, why));
  }
  size_t pos = 0, lineNo = 0;
  bool first = true;
  keyChecked_ = false;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    bool torn = nl == std::string::npos; // a crash mid-append: ignored, cut off by the next writer
    std::string line = text.substr(pos, torn ? std::string::npos : nl - pos);
    pos = torn ? text.size() : nl + 1;
    ++lineNo;
    if (torn) {
      ++ignored_;
      tornLast_ = true;
      break;
    }
    auto damaged = [&] {
      ++ignored_;
      damaged_.push_back(lineNo);
    };
    json j = json::parse(line, nullptr, false);
    if (j.is_discarded() || !j.is_object()) {
      damaged();
      first = false;
      continue;
    }
    std::string kind = j.value("kind", "");
    if (first && kind == "key") {
      if (j.value("key", json()) != key_.toJson())
        throw DbError(fmt::format("`{}` belongs to a different key (hash collision or a renamed file); move it away", path_));
      keyChecked_ = true;
    }
    first = false;
    if (kind == "measurement") {
      TuningRecord r;
      if (fromJson(j, r)) records_.push_back(std::move(r));
      else damaged();
    } else if (kind == "session") {
      SessionRecord s;
      s.stop = j.value("stop", "");
      s.evaluations = j.value("evaluations", 0);
      s.seconds = j.value("seconds", 0.0);
      s.budgetEvaluations = j.value("budget_evaluations", 0);
      s.budgetSeconds = j.value("budget_seconds", 0.0);
      sessions_.push_back(s);
    } else if (kind == "confirmation") {
      ConfirmationRecord c;
      if (confirmationFromJson(j, c)) confirmations_.push_back(std::move(c));
      else damaged();
    } else if (kind != "key" || lineNo != 1) {
      damaged(); // an unknown kind, or a second key line
    }
  }
  // An empty file or one that holds only a torn key line (a crash during the very first
  // append) has nothing to check yet.
  if (lineNo == 0 || (lineNo == 1 && tornLast_)) keyChecked_ = true;
}

std::vector<std::string> TuningDb::problems() const {
  std::vector<std::string> out;
  if (!keyChecked_)
    out.push_back(fmt::format("the first line of `{}` is not its key line, so its records cannot be checked to belong to "
                              "this program and machine; they are used as they are (move the file away to start afresh)",
                              path_));
  if (!damaged_.empty()) {
    std::vector<std::string> shown;
    for (size_t i = 0; i < damaged_.size() && i < 5; ++i) shown.push_back(std::to_string(damaged_[i]));
    if (damaged_.size() > 5) shown.push_back("...");
    out.push_back(fmt::format("{} damaged line(s) of `{}` ignored (line {}): mdhc writes no such lines, so the file was "
                              "changed by something else, and the measurements in them are lost",
                              damaged_.size(), path_, fmt::join(shown, ", ")));
  }
  return out;
}

TuningDb::~TuningDb() {
  if (fd_ >= 0) close(fd_);
}

const TuningRecord *TuningDb::find(const std::string &configHash) const {
  for (const auto &r : records_)
    if (r.configHash == configHash) return &r;
  return nullptr;
}

namespace {
/// Median absolute deviation of a confirmation entry's times, relative to its
/// median: how much its own rounds disagree (0 with fewer than three times).
double relativeSpread(const ConfirmationEntry &e) {
  if (e.times.size() < 3 || e.median <= 0) return 0;
  std::vector<double> dev;
  for (double t : e.times) dev.push_back(std::abs(t - e.median));
  std::nth_element(dev.begin(), dev.begin() + long(dev.size() / 2), dev.end());
  return dev[dev.size() / 2] / e.median;
}

/// Whether `cand` beats `deflt` pair by pair: the i-th re-timings of both come
/// from the same round and the same place in their runs (a run's first calls
/// are its slow ones), so a lead shows in nearly every pair however widely
/// the rounds spread.  A sign test: at most a 0.5% chance of so many wins if
/// neither were faster, and a median ratio (default / candidate) of the pairs
/// of at least 1.01.
bool pairedLead(const ConfirmationEntry &cand, const ConfirmationEntry &deflt) {
  const size_t n = cand.times.size();
  if (n < 8 || deflt.times.size() != n) return false;
  size_t wins = 0;
  std::vector<double> ratios;
  for (size_t i = 0; i < n; ++i) {
    if (cand.times[i] <= 0 || deflt.times[i] <= 0) return false;
    wins += cand.times[i] < deflt.times[i];
    ratios.push_back(deflt.times[i] / cand.times[i]);
  }
  // P(at least `wins` of n fair coin flips), summed exactly: C(n, k) / 2^n.
  double tail = 0, choose = 1; // choose = C(n, k), from k = 0 up
  for (size_t k = 0; k <= n; ++k) {
    if (k > 0) choose = choose * double(n - k + 1) / double(k);
    if (k >= wins) tail += choose;
  }
  tail /= std::pow(2.0, double(n));
  std::nth_element(ratios.begin(), ratios.begin() + long(n / 2), ratios.end());
  return tail <= 0.005 && ratios[n / 2] >= 1.01;
}
} // namespace

BestRecord TuningDb::best(const std::function<bool(const ll::Config &)> &usable) const {
  BestRecord b;
  if (!confirmations_.empty()) {
    const ConfirmationEntry *winner = nullptr, *deflt = nullptr;
    for (const auto &e : confirmations_.back().entries) {
      const TuningRecord *r = find(e.configHash);
      if (!r || !r->ok || e.median <= 0 || (usable && !usable(r->config))) continue;
      if (r->technique == "default") deflt = &e;
      if (!b || e.median < b.seconds) b = {r, e.median, true}, winner = &e;
    }
    // The default stays unless the fastest candidate is faster by more than
    // twice the rounds' spread (and at least 1%): a 3% lead inside a 2.5%
    // spread (a ResNet-50 convolution) was noise, and the pick ran 3-7%
    // slower than the default afterwards.  The lead is a ratio of times (the
    // default's time over the candidate's, less one), which a large spread
    // cannot put out of reach: as a fraction of the default's time it never
    // exceeds 1, and a spread of 0.5 had kept a default 2400x slower.  A
    // candidate whose every re-timing beat every re-timing of the default
    // (by at least 1% at the medians) wins whatever the spread, and so does
    // one that beats it pair by pair (pairedLead): Jacobi3D 254^3's fastest
    // rival won 14 of 15 pairs by a median 1.125x inside a 20% spread, was
    // kept out by the spread, and ran 12% faster alone in the driver.
    if (winner && deflt && winner != deflt) {
      const double margin = std::max(0.01, 2 * std::max(relativeSpread(*winner), relativeSpread(*deflt)));
      const bool clearLead = deflt->median > winner->median * (1 + margin);
      const bool separated = winner->times.size() >= 3 && deflt->times.size() >= 3 &&
                             *std::max_element(winner->times.begin(), winner->times.end()) <
                                 *std::min_element(deflt->times.begin(), deflt->times.end()) &&
                             deflt->median > winner->median * 1.01;
      if (!clearLead && !separated && !pairedLead(*winner, *deflt)) b = {find(deflt->configHash), deflt->median, true};
    }
    if (b) return b;
  }
  for (const auto &r : records_)
    if (r.ok && r.median > 0 && (!usable || usable(r.config)) && (!b || r.median < b.seconds)) b = {&r, r.median, false};
  return b;
}

bool TuningDb::needsConfirmation() const {
  size_t ok = 0;
  for (const auto &r : records_) ok += r.ok;
  if (ok < 2) return false; // nothing to rank
  return confirmations_.empty() || confirmations_.back().measurements < records_.size();
}

double TuningDb::spentSeconds() const {
  double s = 0;
  for (const auto &r : records_) s += r.cost;
  for (const auto &c : confirmations_) s += c.cost;
  return s;
}

void TuningDb::appendLine(const std::string &line) {
  auto fail = [&](const std::string &what, int err) {
    const bool full = err == ENOSPC || err == EDQUOT || err == EFBIG;
    throw DbError(fmt::format("cannot {} the tuning database `{}`: {}; any measurements recorded before are intact — {}",
                              what, path_, std::strerror(err),
                              full ? "free space or pass --db DIR" : "pass --db DIR, a directory you can write"));
  };
  if (fd_ < 0) {
    bool existed = fs::exists(path_);
    fd_ = open(path_.c_str(), O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (fd_ < 0) fail("open", errno);
    // Cut off a torn last line left by a crash, so the next record starts on a line of its own.
    struct stat st {};
    if (fstat(fd_, &st) == 0 && st.st_size > 0) {
      off_t keep = st.st_size;
      char c = 0;
      while (keep > 0 && pread(fd_, &c, 1, keep - 1) == 1 && c != '\n') --keep;
      if (keep != st.st_size && ftruncate(fd_, keep) != 0) fail("repair", errno);
    }
    if (!existed || (fstat(fd_, &st) == 0 && st.st_size == 0)) {
      // A new file: its key line first; the directory entry is made durable.
      std::string keyLine = json{{"kind", "key"}, {"v", 1}, {"key", key_.toJson()}}.dump() + "\n";
      if (write(fd_, keyLine.data(), keyLine.size()) != ssize_t(keyLine.size())) {
        int err = errno ? errno : ENOSPC;
        if (ftruncate(fd_, 0) != 0) {
        }
        fail("write to", err);
      }
      int dfd = open(dir_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
      if (dfd >= 0) {
        fsync(dfd);
        close(dfd);
      }
    }
  }
  struct stat st {};
  off_t before = fstat(fd_, &st) == 0 ? st.st_size : -1;
  errno = 0;
  ssize_t n = write(fd_, line.data(), line.size());
  if (n != ssize_t(line.size())) {
    int err = errno ? errno : ENOSPC;
    if (before >= 0 && ftruncate(fd_, before) != 0) {
    } // best effort: the reader ignores a torn last line anyway
    fail("write to", err);
  }
  if (fsync(fd_) != 0) fail("sync", errno);
}

void TuningDb::append(const TuningRecord &r) {
  appendLine(toJson(r).dump() + "\n");
  records_.push_back(r);
}

void TuningDb::appendSession(const SessionRecord &s) {
  appendLine(json{{"kind", "session"},
                  {"stop", s.stop},
                  {"evaluations", s.evaluations},
                  {"seconds", s.seconds},
                  {"budget_evaluations", s.budgetEvaluations},
                  {"budget_seconds", s.budgetSeconds},
                  {"at", double(std::time(nullptr))}}
                 .dump() +
             "\n");
  sessions_.push_back(s);
}

void TuningDb::appendConfirmation(const ConfirmationRecord &c) {
  appendLine(confirmationToJson(c).dump() + "\n");
  confirmations_.push_back(c);
}

} // namespace mdh::tune
