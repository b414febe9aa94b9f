// The error type for an argument outside what a poslsh function accepts, and
// the checks that throw it. The argument is named by its meaning ("sigma",
// "n", "band_tol"), never by how a front end spells it: the CLI reports it as
// its flag (--sigma), the Python module as its parameter, each with the same
// requirement text, so the three never word one mistake differently.
#pragma once

#include <poslsh/input_error.h>

#include <cstdint>
#include <string>
#include <string_view>

namespace poslsh {

class ArgumentError : public InputError {
 public:
  // what() is "<argument> <requirement> (got <got>)", without the parenthesis
  // when `got` is empty.
  ArgumentError(std::string argument, std::string requirement, std::string got);

  // The argument's name by meaning, e.g. "sigma".
  const std::string& argument() const noexcept { return argument_; }
  // What it must be, e.g. "must be a finite number > 0".
  const std::string& requirement() const noexcept { return requirement_; }
  // The offending value as text, e.g. "-1" (may be empty).
  const std::string& got() const noexcept { return got_; }

  // The same message naming the argument as a front end spells it:
  // message_for("--sigma") == "--sigma must be a finite number > 0 (got -1)".
  std::string message_for(std::string_view name) const;

 private:
  std::string argument_, requirement_, got_;
};

// The shortest text that reads back to the same double; "nan", "inf", "-inf".
std::string format_value(double value);

// The most hashes one draw may hold: a hash index is an int32 in code that
// stores positions and block ids in 32 bits, and more would not fit in memory.
inline constexpr std::int64_t kMaxHashes = (std::int64_t{1} << 31) - 1;

// Each throws ArgumentError naming `argument` unless the value is acceptable.
namespace check {
void positive_finite(std::string_view argument, double value);                   // finite, > 0
void at_least(std::string_view argument, std::int64_t value, std::int64_t min);  // integer
void open_unit(std::string_view argument, double value);                         // 0 < value < 1
// A number of hashes s: an integer in [1, kMaxHashes].
void hash_count(std::string_view argument, std::int64_t value);
}  // namespace check

}  // namespace poslsh
