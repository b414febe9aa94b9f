#include "cli_common.h"

#include <fmt/format.h>

#include <cmath>
#include <cstdio>

#include "input_error.h"

namespace poslsh {

void require_positive_finite(const std::string& option, double value) {
  if (!std::isfinite(value) || !(value > 0))
    throw UsageError(fmt::format("{} must be a finite number > 0 (got {})", option, value));
}

void require_positive_finite(const std::string& option, const std::vector<double>& values) {
  for (double v : values) require_positive_finite(option, v);
}

void require_at_least(const std::string& option, std::int64_t value, std::int64_t min) {
  if (value < min)
    throw UsageError(fmt::format("{} must be an integer >= {} (got {})", option, min, value));
}

void require_at_least(const std::string& option, const std::vector<std::int64_t>& values,
                      std::int64_t min) {
  for (auto v : values) require_at_least(option, v, min);
}

void require_open_unit(const std::string& option, double value) {
  if (!(value > 0 && value < 1))
    throw UsageError(fmt::format("{} must be a number in (0, 1) (got {})", option, value));
}

void require_nonempty(const std::string& option, std::size_t size) {
  if (size == 0) throw UsageError(fmt::format("{} needs at least one value", option));
}

std::vector<double> alibi_head_sigmas(int heads) {
  if (heads < 1)
    throw UsageError(fmt::format("--alibi-heads must be an integer >= 1 (got {})", heads));
  std::vector<double> sigmas;
  for (int h = 1; h <= heads; ++h) sigmas.push_back(std::exp2(8.0 * h / heads));
  return sigmas;
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

std::string format_double(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  return fmt::format("{}", value);
}

std::string single_line(std::string text) {
  for (char& c : text)
    if (c == '\n' || c == '\r') c = ' ';
  while (!text.empty() && text.back() == ' ') text.pop_back();
  return text;
}

int run_reporting_errors(const std::string& who, const std::function<int()>& action) {
  try {
    return action();
  } catch (const UsageError& e) {
    std::fprintf(stderr, "%s: error: %s\n", who.c_str(), single_line(e.what()).c_str());
    return 2;
  } catch (const InputError& e) {
    std::fprintf(stderr, "%s: error: %s\n", who.c_str(), single_line(e.what()).c_str());
    return 2;
  } catch (const std::logic_error& e) {
    std::fprintf(stderr,
                 "%s: internal error: %s (a bug in poslsh, not in your input: please report it "
                 "with the command line and the output of `poslsh --version`)\n",
                 who.c_str(), single_line(e.what()).c_str());
    return 3;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: failed: %s\n", who.c_str(), single_line(e.what()).c_str());
    return 1;
  }
}

}  // namespace poslsh
