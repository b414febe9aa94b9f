// Command-line conventions shared by every subcommand: one exception type for
// bad input (exit code 2, one line naming the option and what it accepts) and
// the validators that produce it.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace poslsh {

// Bad input from the user: printed as one line, exit code 2, no output written.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Throw UsageError("--opt must be ... (got ...)") unless the value is acceptable.
void require_positive_finite(const std::string& option, double value);
void require_positive_finite(const std::string& option, const std::vector<double>& values);
void require_at_least(const std::string& option, std::int64_t value, std::int64_t min);
void require_at_least(const std::string& option, const std::vector<std::int64_t>& values,
                      std::int64_t min);
void require_open_unit(const std::string& option, double value);  // 0 < value < 1
void require_nonempty(const std::string& option, std::size_t size);

// The standard ALiBi scales of H heads: sigma_h = 2^(8h/H), h = 1..H (slopes 2^(-8h/H)).
std::vector<double> alibi_head_sigmas(int heads);

// "K/N" with 1 <= K <= N; throws UsageError naming --shard otherwise.
struct Shard {
  int index = 1;  // K, 1-based
  int count = 1;  // N
};
Shard parse_shard(const std::string& text);

// Shortest decimal that reads back to the same double (fmt's round-trip
// format). Deterministic across platforms; "nan"/"inf" for non-finite values.
std::string format_double(double value);

}  // namespace poslsh
