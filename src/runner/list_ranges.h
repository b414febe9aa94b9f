// Ranges in numeric list options: `--s 1:256:x2` instead of
// `--s 1,2,4,8,16,32,64,128,256`. A pure parser; apps/poslsh.cpp expands the
// ranges of every numeric list option on the command line and in --config
// files before CLI11 converts the values.
//
//   A:B:xK   A, A*K, A*K^2, ... while <= B   (geometric; A > 0, K > 1)
//   A:B:+K   A, A+K, A+2K, ... while <= B   (linear; K > 0)
//
// B need not be hit: 1:100:x2 is 1, 2, ..., 64. A = B gives A alone.
//
// Integer options (CLI11 type INT or UINT): A, B and K are 64-bit integers
// (no decimal point, no exponent), K >= 2 for x and K >= 1 for +; every value
// is computed in exact integer arithmetic.
//
// Real options (FLOAT, e.g. --sigma): A, B and K are decimal numbers (1.5,
// 0.125, 1e3). Ranges are allowed and exact wherever that is possible: a
// linear range and a geometric range with an integer factor are computed in
// exact decimal arithmetic (0:1:+0.1 is 0, 0.1, 0.2, ..., 1 as if typed, not
// 0.30000000000000004; 0.5:8:x2 ends at 8 exactly), and each value is the
// decimal a user would type, which CLI11 then rounds to double like any
// other. A geometric range with a non-integer factor (1:10:x1.5) is computed
// in double precision as A*K^i; its end point B is included when the last
// value lies within a relative 1e-9 of B, and is then B itself.
//
// Errors (UsageError, one line naming the option and both syntaxes): not
// three fields, a field that is not a number of the option's kind, B < A,
// K out of range (x1, x0, +0), A <= 0 for x, a field that overflows (a
// 64-bit integer; for reals, over 36 significant digits or beyond a double's
// range), and ranges of more than kMaxRangeValues values.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace poslsh {

inline constexpr std::size_t kMaxRangeValues = 1'000'000;

enum class RangeKind { kInteger, kReal };

// A token of a numeric list is a range attempt when it holds a ':' (no number
// does); it is then expanded or refused, never passed on.
bool is_range(std::string_view token);

// The values of a range; `option` (e.g. "--s") starts every error message.
std::vector<std::int64_t> expand_integer_range(std::string_view token, std::string_view option);
std::vector<double> expand_real_range(std::string_view token, std::string_view option);

// The values as decimal text for CLI11 to convert: integers in full, reals as
// the exact decimal (or, for a non-integer factor, the shortest text that
// reads back to the double computed).
std::vector<std::string> expand_range_text(std::string_view token, RangeKind kind,
                                           std::string_view option);

// "A:B:xK (A, A*K, A*K^2, ... up to B; integer K >= 2) or A:B:+K (...)": the
// accepted syntax, as error messages state it.
std::string range_syntax(RangeKind kind);

}  // namespace poslsh
