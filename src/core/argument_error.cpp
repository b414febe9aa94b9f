#include <poslsh/argument_error.h>

#include <charconv>
#include <cmath>

namespace poslsh {

namespace {

std::string message(std::string_view name, const std::string& requirement, const std::string& got) {
  std::string text = std::string(name) + " " + requirement;
  if (!got.empty()) text += " (got " + got + ")";
  return text;
}

}  // namespace

ArgumentError::ArgumentError(std::string argument, std::string requirement, std::string got)
    : InputError(message(argument, requirement, got)),
      argument_(std::move(argument)),
      requirement_(std::move(requirement)),
      got_(std::move(got)) {}

std::string ArgumentError::message_for(std::string_view name) const {
  return message(name, requirement_, got_);
}

std::string format_value(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  // As fmt's "{}" (what the CLI printed before): the shortest digits, in
  // fixed notation for exponents in [-4, 16), else scientific.
  char buffer[400];
  const auto sci =
      std::to_chars(buffer, buffer + sizeof buffer, value, std::chars_format::scientific).ptr;
  const std::string scientific(buffer, sci);
  const int exponent = std::stoi(scientific.substr(scientific.find('e') + 1));
  if (exponent < -4 || exponent >= 16) return scientific;
  const auto fixed =
      std::to_chars(buffer, buffer + sizeof buffer, value, std::chars_format::fixed).ptr;
  return std::string(buffer, fixed);
}

namespace check {

void positive_finite(std::string_view argument, double value) {
  if (!std::isfinite(value) || !(value > 0))
    throw ArgumentError(std::string(argument), "must be a finite number > 0", format_value(value));
}

void at_least(std::string_view argument, std::int64_t value, std::int64_t min) {
  if (value < min)
    throw ArgumentError(std::string(argument), "must be an integer >= " + std::to_string(min),
                        std::to_string(value));
}

void hash_count(std::string_view argument, std::int64_t value) {
  if (value < 1 || value > kMaxHashes)
    throw ArgumentError(std::string(argument), "must be an integer in [1, 2^31 - 1]",
                        std::to_string(value));
}

void open_unit(std::string_view argument, double value) {
  if (!(value > 0 && value < 1))
    throw ArgumentError(std::string(argument), "must be a number in (0, 1)", format_value(value));
}

}  // namespace check

}  // namespace poslsh
