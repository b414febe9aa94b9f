// Validators of option values: each throws UsageError("--opt must be ... (got
// ...)") unless the value is acceptable, with the core's checks and wording
// (poslsh/argument_error.h), so an option and the core argument it sets are
// refused in the same words.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace poslsh {

void require_positive_finite(const std::string& option, double value);
void require_positive_finite(const std::string& option, const std::vector<double>& values);
void require_at_least(const std::string& option, std::int64_t value, std::int64_t min);
void require_at_least(const std::string& option, const std::vector<std::int64_t>& values,
                      std::int64_t min);
void require_open_unit(const std::string& option, double value);  // 0 < value < 1
// Each value finite and in [lo, hi]: "--opt must be a number in [lo, hi] (got v)".
void require_in_range(const std::string& option, const std::vector<double>& values, double lo,
                      double hi);
// Numbers of hashes: each an integer in [1, kMaxHashes] (check::hash_count).
void require_hash_count(const std::string& option, const std::vector<std::int64_t>& values);
void require_nonempty(const std::string& option, std::size_t size);

// "K/N" with 1 <= K <= N; throws UsageError naming --shard otherwise.
struct Shard {
  int index = 1;  // K, 1-based
  int count = 1;  // N
};
Shard parse_shard(const std::string& text);

}  // namespace poslsh
