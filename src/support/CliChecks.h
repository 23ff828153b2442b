/** \file
 * Range checks of numeric command-line options (CLI11 validators) whose
 * messages read like the rest of the tools': `--seconds: must be at least 0,
 * not -1`, instead of CLI11's range with the largest double spelt out.
 * A value that is not a number is left to the option's own conversion error;
 * a whole number past 2^64 - 1 is refused (CLI11 would clamp it).
 * nonEmpty() refuses an empty path (`-o ""`), which would otherwise be
 * joined with file names into paths under the file-system root.
 */
#pragma once

#include <CLI/CLI.hpp>

#include <cerrno>
#include <cstdlib>
#include <string>

namespace mdh {

/// A validator that refuses a number for which `accept` is false, saying
/// "must be <relation> <bound>, not <value>".
template <class Accept>
CLI::Validator numberCheck(Accept accept, const std::string &relation, const std::string &bound) {
  return CLI::Validator(
      [=](std::string &value) -> std::string {
        // CLI11 clamps a whole number past 2^64 - 1 into a 64-bit unsigned option
        // (every larger seed was the same seed): no option takes such a number.
        if (!value.empty() && value.find_first_not_of("0123456789") == std::string::npos) {
          errno = 0;
          (void)std::strtoull(value.c_str(), nullptr, 10);
          if (errno == ERANGE) return "must be at most 18446744073709551615, not " + value;
        }
        try {
          size_t used = 0;
          const long double v = std::stold(value, &used);
          if (used == value.size() && !accept(v)) return "must be " + relation + " " + bound + ", not " + value;
        } catch (const std::exception &) {
        }
        return std::string();
      },
      relation + " " + bound);
}

/// Numbers >= `minimum` (an integer bound: counts, seeds, seconds).
inline CLI::Validator atLeast(long long minimum) {
  return numberCheck([minimum](long double v) { return v >= static_cast<long double>(minimum); }, "at least",
                     std::to_string(minimum));
}

/// Numbers > `bound`, fractions allowed (timeouts).
inline CLI::Validator above(double bound) {
  return numberCheck([bound](long double v) { return v > static_cast<long double>(bound); }, "above",
                     CLI::detail::to_string(bound));
}

/// A non-empty value (paths); `hint` says what to do instead.
inline CLI::Validator nonEmpty(const std::string &hint) {
  return CLI::Validator(
      [=](std::string &value) -> std::string { return value.empty() ? "must not be empty; " + hint : std::string(); },
      "");
}

} // namespace mdh
