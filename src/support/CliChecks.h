/** \file
 * Range checks of numeric command-line options (CLI11 validators) whose
 * messages read like the rest of the tools': `--seconds: must be at least 1,
 * not -1`, instead of CLI11's range with the largest double spelt out.
 * A value that is not a number is left to the option's own conversion error.
 */
#pragma once

#include <CLI/CLI.hpp>

#include <string>

namespace mdh {

/// A validator accepting numbers >= `minimum` (an integer bound: counts,
/// seeds, seconds).
inline CLI::Validator atLeast(long long minimum) {
  return CLI::Validator(
      [minimum](std::string &value) -> std::string {
        try {
          size_t used = 0;
          const long double v = std::stold(value, &used);
          if (used == value.size() && v < static_cast<long double>(minimum))
            return "must be at least " + std::to_string(minimum) + ", not " + value;
        } catch (const std::exception &) {
        }
        return std::string();
      },
      ">= " + std::to_string(minimum));
}

/// A validator accepting numbers > `bound` (fractional values allowed: timeouts).
inline CLI::Validator above(double bound) {
  return CLI::Validator(
      [bound](std::string &value) -> std::string {
        try {
          size_t used = 0;
          const double v = std::stod(value, &used);
          if (used == value.size() && !(v > bound)) return "must be above " + CLI::detail::to_string(bound) + ", not " + value;
        } catch (const std::exception &) {
        }
        return std::string();
      },
      "> " + CLI::detail::to_string(bound));
}

} // namespace mdh
