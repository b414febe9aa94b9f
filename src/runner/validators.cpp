#include "runner/validators.h"

#include <fmt/format.h>
#include <poslsh/argument_error.h>

#include <stdexcept>

#include "runner/cli_errors.h"

namespace poslsh {

namespace {

// Runs one of the core's checks on an option's value, reporting a refusal as
// the option's UsageError.
template <typename Check>
void check_option(const std::string& option, const Check& check) {
  try {
    check();
  } catch (const ArgumentError& e) {
    throw UsageError(e.message_for(option));
  }
}

}  // namespace

void require_positive_finite(const std::string& option, double value) {
  check_option(option, [&] { check::positive_finite(option, value); });
}

void require_positive_finite(const std::string& option, const std::vector<double>& values) {
  for (double v : values) require_positive_finite(option, v);
}

void require_at_least(const std::string& option, std::int64_t value, std::int64_t min) {
  check_option(option, [&] { check::at_least(option, value, min); });
}

void require_at_least(const std::string& option, const std::vector<std::int64_t>& values,
                      std::int64_t min) {
  for (auto v : values) require_at_least(option, v, min);
}

void require_hash_count(const std::string& option, const std::vector<std::int64_t>& values) {
  for (auto v : values) check_option(option, [&] { check::hash_count(option, v); });
}

void require_open_unit(const std::string& option, double value) {
  check_option(option, [&] { check::open_unit(option, value); });
}

void require_in_range(const std::string& option, const std::vector<double>& values, double lo,
                      double hi) {
  for (const double v : values)
    if (!(v >= lo && v <= hi))  // NaN too
      throw UsageError(fmt::format("{} must be a number in [{}, {}] (got {})", option, lo, hi, v));
}

void require_nonempty(const std::string& option, std::size_t size) {
  if (size == 0) throw UsageError(fmt::format("{} needs at least one value", option));
}

Shard parse_shard(const std::string& text) {
  Shard shard;
  const auto slash = text.find('/');
  const auto bad = [&] {
    return UsageError(
        fmt::format("--shard must be K/N with integers 1 <= K <= N (got '{}')", text));
  };
  if (slash == std::string::npos) throw bad();
  try {
    std::size_t used = 0;
    shard.index = std::stoi(text.substr(0, slash), &used);
    if (used != slash) throw bad();
    const std::string rest = text.substr(slash + 1);
    shard.count = std::stoi(rest, &used);
    if (used != rest.size()) throw bad();
  } catch (const std::logic_error&) {
    throw bad();
  }
  if (shard.index < 1 || shard.count < 1 || shard.index > shard.count) throw bad();
  return shard;
}

}  // namespace poslsh
