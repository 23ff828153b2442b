/** \file
 * Reading a configuration from JSON (ll::fromJson), strictly: a number must
 * be an integer within the field's range (`4.5`, `1e20` or `4294967297` for
 * an `int` are refused, never truncated or wrapped), every field must have
 * its JSON type, and unknown fields are refused at every depth, in a level
 * or a stage as at the top.  Messages name the field by its JSON path,
 * `levels[1].tile[0]`.  Constraints between fields and against a program
 * are validate()'s (Config.cpp).
 */
#include "ll/Config.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <limits>
#include <set>

namespace mdh::ll {

using nlohmann::json;

namespace {

/// Reads JSON values into configuration fields; the first problem ends the
/// reading and is kept in `error`.
class ConfigReader {
public:
  std::string error;

  bool object(const json &j, const std::string &path, const std::set<std::string> &fields) {
    if (!j.is_object())
      return fail(fmt::format("{} must be an object with the fields {}, not {}", name(path), fmt::join(fields, ", "), j.dump()));
    for (auto it = j.begin(); it != j.end(); ++it)
      if (!fields.count(it.key()))
        return fail(path.empty() ? fmt::format("unknown configuration field `{}` (fields: {})", it.key(), fmt::join(fields, ", "))
                                 : fmt::format("unknown field `{}` in `{}` (fields: {})", it.key(), path, fmt::join(fields, ", ")));
    return true;
  }

  bool required(const json &j, const std::string &path, const char *field) {
    return j.contains(field) || fail(fmt::format("`{}` needs the field `{}`", path, field));
  }

  bool array(const json &j, const std::string &path) {
    return j.is_array() || fail(fmt::format("`{}` must be an array, not {}", path, j.dump()));
  }

  bool text(const json &j, const std::string &path, std::string &out) {
    if (!j.is_string()) return fail(fmt::format("`{}` must be a string, not {}", path, j.dump()));
    out = j.get<std::string>();
    return true;
  }

  bool boolean(const json &j, const std::string &path, bool &out) {
    if (!j.is_boolean()) return fail(fmt::format("`{}` must be true or false, not {}", path, j.dump()));
    out = j.get<bool>();
    return true;
  }

  /// An integer that `Int` holds: validate() reports values it holds but the
  /// program or model cannot use, with their context, all at once.
  template <class Int> bool integer(const json &j, const std::string &path, Int &out) {
    // A float is refused even when integral (`4.0`): configurations hold counts.
    constexpr int64_t lo = std::numeric_limits<Int>::min(), hi = std::numeric_limits<Int>::max();
    bool fits = false;
    if (j.is_number_unsigned()) fits = j.get<uint64_t>() <= uint64_t(hi);
    else if (j.is_number_integer()) fits = j.get<int64_t>() >= lo && j.get<int64_t>() <= hi;
    if (!fits) return fail(fmt::format("`{}` must be an integer that fits in {} bits, not {}", path, 8 * sizeof(Int), j.dump()));
    out = Int(j.get<int64_t>());
    return true;
  }

  template <class Int> bool integers(const json &j, const std::string &path, std::vector<Int> &out) {
    if (!array(j, path)) return false;
    out.clear();
    for (size_t i = 0; i < j.size(); ++i) {
      Int v{};
      if (!integer(j[i], fmt::format("{}[{}]", path, i), v)) return false;
      out.push_back(v);
    }
    return true;
  }

private:
  bool fail(std::string message) {
    error = std::move(message);
    return false;
  }
  static std::string name(const std::string &path) { return path.empty() ? "a configuration" : "`" + path + "`"; }
};

bool readLevel(ConfigReader &r, const json &j, const std::string &path, LevelConfig &out) {
  return r.object(j, path, {"layer", "tile", "order"}) && r.required(j, path, "layer") &&
         r.text(j["layer"], path + ".layer", out.layer) &&
         (!j.contains("tile") || r.integers(j["tile"], path + ".tile", out.tile)) &&
         (!j.contains("order") || r.integers(j["order"], path + ".order", out.order));
}

bool readStage(ConfigReader &r, const json &j, const std::string &path, StageConfig &out) {
  return r.object(j, path, {"buffer", "layer", "layout", "panel"}) && r.required(j, path, "buffer") &&
         r.required(j, path, "layer") && r.text(j["buffer"], path + ".buffer", out.buffer) &&
         r.text(j["layer"], path + ".layer", out.layer) &&
         (!j.contains("layout") || r.integers(j["layout"], path + ".layout", out.layout)) &&
         (!j.contains("panel") || r.integer(j["panel"], path + ".panel", out.panel));
}

/// The array `field` of `j`, each element read by `readItem`; absent: `out` stays.
template <class Item, class ReadItem>
bool readList(ConfigReader &r, const json &j, const char *field, ReadItem readItem, std::vector<Item> &out) {
  if (!j.contains(field)) return true;
  if (!r.array(j[field], field)) return false;
  out.clear();
  for (size_t i = 0; i < j[field].size(); ++i) {
    Item item;
    if (!readItem(r, j[field][i], fmt::format("{}[{}]", field, i), item)) return false;
    out.push_back(std::move(item));
  }
  return true;
}

} // namespace

bool fromJson(const json &j, Config &c, std::string &error) {
  ConfigReader r;
  const bool ok = r.object(j, "", {"model", "threads", "levels", "stages", "simd_dim", "strict_fp", "stream_stores", "chunk",
                                      "prefetch_steps", "comment"}) &&
            (!j.contains("model") || r.text(j["model"], "model", c.model)) &&
            (!j.contains("threads") || r.integer(j["threads"], "threads", c.threads)) &&
            (!j.contains("simd_dim") || r.integer(j["simd_dim"], "simd_dim", c.simdDim)) &&
            (!j.contains("strict_fp") || r.boolean(j["strict_fp"], "strict_fp", c.strictFp)) &&
            (!j.contains("stream_stores") || r.boolean(j["stream_stores"], "stream_stores", c.streamStores)) &&
            (!j.contains("chunk") || r.integers(j["chunk"], "chunk", c.chunk)) &&
            (!j.contains("prefetch_steps") || r.integer(j["prefetch_steps"], "prefetch_steps", c.prefetchSteps)) &&
            readList(r, j, "levels", readLevel, c.levels) && readList(r, j, "stages", readStage, c.stages);
  if (!ok) error = r.error;
  return ok;
}

} // namespace mdh::ll
