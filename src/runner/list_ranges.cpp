#include "runner/list_ranges.h"

#include <fmt/format.h>
#include <poslsh/input_error.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <optional>

#include "internal/printable.h"
#include "runner/cli_common.h"

namespace poslsh {
namespace {

using i128 = __int128;
using u128 = unsigned __int128;
constexpr i128 kI128Max = static_cast<i128>(~u128{0} >> 1);

struct Parts {
  std::string_view a, b, k;
  char step;  // 'x' or '+'
};

class RangeParser {
 public:
  RangeParser(std::string_view token, RangeKind kind, std::string_view option)
      : token_(token), kind_(kind), option_(option) {}

  [[noreturn]] void fail(const std::string& why) const {
    throw UsageError(fmt::format("{}: bad range '{}' ({}); ranges are {}", option_,
                                 detail::printable(token_, 60), why, range_syntax(kind_)));
  }

  Parts split() const {
    const auto c1 = token_.find(':');
    const auto c2 = c1 == std::string_view::npos ? c1 : token_.find(':', c1 + 1);
    if (c2 == std::string_view::npos || token_.find(':', c2 + 1) != std::string_view::npos)
      fail("expected three fields A:B:xK or A:B:+K");
    Parts p{token_.substr(0, c1), token_.substr(c1 + 1, c2 - c1 - 1), token_.substr(c2 + 1), 0};
    if (p.k.empty() || (p.k[0] != 'x' && p.k[0] != '+')) fail("the third field must be xK or +K");
    p.step = p.k[0];
    p.k.remove_prefix(1);
    return p;
  }

  std::int64_t integer(std::string_view field, const char* what) const {
    std::string_view digits = field;
    if (digits.size() > 1 && digits[0] == '+' && digits[1] != '-') digits.remove_prefix(1);
    std::int64_t v = 0;
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
    if (ec == std::errc::result_out_of_range && end == digits.data() + digits.size())
      fail(fmt::format("{} '{}' does not fit a 64-bit integer", what, detail::printable(field)));
    if (ec != std::errc() || end != digits.data() + digits.size() || digits.empty())
      fail(fmt::format("{} '{}' is not an integer", what, detail::printable(field)));
    return v;
  }

  // value = m * 10^e, m without trailing zeros (m = 0: e = 0).
  struct Decimal {
    i128 m = 0;
    int e = 0;
  };

  Decimal decimal(std::string_view field, const char* what) const {
    const auto bad = [&] { fail(fmt::format("{} '{}' is not a number", what, detail::printable(field))); };
    std::size_t i = 0;
    bool negative = false;
    if (i < field.size() && (field[i] == '+' || field[i] == '-')) negative = field[i++] == '-';
    Decimal d;
    int digits = 0, significant = 0, fraction = 0;
    bool point = false;
    for (; i < field.size(); ++i) {
      const char c = field[i];
      if (c == '.' && !point) {
        point = true;
        continue;
      }
      if (c < '0' || c > '9') break;
      ++digits;
      if (point) ++fraction;
      if (d.m == 0 && c == '0') continue;  // leading zeros are not significant
      if (++significant > 36)
        fail(fmt::format("{} '{}' has more than 36 significant digits", what, detail::printable(field)));
      d.m = d.m * 10 + (c - '0');
    }
    if (digits == 0) bad();
    long exponent = 0;
    if (i < field.size() && (field[i] == 'e' || field[i] == 'E')) {
      ++i;
      bool exp_negative = false;
      if (i < field.size() && (field[i] == '+' || field[i] == '-'))
        exp_negative = field[i++] == '-';
      const std::size_t start = i;
      for (; i < field.size() && field[i] >= '0' && field[i] <= '9'; ++i)
        if ((exponent = exponent * 10 + (field[i] - '0')) > 100000)
          fail(fmt::format("{} '{}' is out of range for a double", what, detail::printable(field)));
      if (i == start) bad();
      if (exp_negative) exponent = -exponent;
    }
    if (i != field.size()) bad();
    if (negative) d.m = -d.m;
    d.e = d.m == 0 ? 0 : static_cast<int>(exponent - fraction);
    while (d.m != 0 && d.m % 10 == 0) {
      d.m /= 10;
      ++d.e;
    }
    const double v = to_double(d);
    if (!std::isfinite(v) || (v == 0 && d.m != 0))
      fail(fmt::format("{} '{}' is out of range for a double", what, detail::printable(field)));
    return d;
  }

  static std::string digits(i128 m) {
    u128 u = m < 0 ? u128(0) - u128(m) : u128(m);
    std::string s;
    do {
      s.insert(s.begin(), static_cast<char>('0' + int(u % 10)));
      u /= 10;
    } while (u != 0);
    return std::string(m < 0 ? "-" : "") + s;
  }

  // The decimal as a user would type it: 0.125, 3000, 1e-40.
  static std::string text(i128 m, int e) {
    while (m != 0 && m % 10 == 0) {
      m /= 10;
      ++e;
    }
    if (m == 0) return "0";
    std::string s = digits(m);
    const bool negative = m < 0;
    if (negative) s.erase(0, 1);
    if (e >= 0 && e <= 30) {
      s.append(static_cast<std::size_t>(e), '0');
    } else if (e < 0 && e >= -30) {
      const std::size_t point = static_cast<std::size_t>(-e);
      if (s.size() <= point) s = std::string(point - s.size() + 1, '0') + s;
      const std::size_t whole = s.size() - point;
      s = s.substr(0, whole) + "." + s.substr(whole);
    } else {
      s += 'e';
      s += std::to_string(e);
    }
    return std::string(negative ? "-" : "") + s;
  }

  static double to_double(const Decimal& d) {
    return std::strtod((digits(d.m) + "e" + std::to_string(d.e)).c_str(), nullptr);
  }

  // m * 10^(from - to) for to <= from, or nothing on overflow.
  static std::optional<i128> scale(i128 m, int from, int to) {
    for (int i = to; i < from; ++i) {
      if (m > kI128Max / 10 || m < -kI128Max / 10) return std::nullopt;
      m *= 10;
    }
    return m;
  }

  void check_count(long double count) const {
    if (!(count <= static_cast<long double>(kMaxRangeValues)))
      fail(fmt::format("more than {} values", kMaxRangeValues));
  }

  // x < y exactly (in double when the exponents are too far apart to align,
  // where the doubles differ anyway).
  static bool less(const Decimal& x, const Decimal& y) {
    const int e = std::min(x.e, y.e);
    const auto xs = scale(x.m, x.e, e), ys = scale(y.m, y.e, e);
    return xs && ys ? *xs < *ys : to_double(x) < to_double(y);
  }

  std::vector<std::int64_t> integers() const {
    const Parts p = split();
    const std::int64_t a = integer(p.a, "start"), b = integer(p.b, "end"),
                       k = integer(p.k, p.step == 'x' ? "factor" : "step");
    if (b < a) fail(fmt::format("end {} is below start {}", b, a));
    std::vector<std::int64_t> out;
    if (p.step == 'x') {
      if (k < 2) fail(fmt::format("factor {} must be >= 2", k));
      if (a < 1) fail(fmt::format("start {} must be >= 1 with a factor", a));
      for (std::int64_t v = a;; v *= k) {  // v <= b throughout: no overflow
        out.push_back(v);
        if (v > b / k) break;
      }
      return out;
    }
    if (k < 1) fail(fmt::format("step {} must be >= 1", k));
    const u128 count = (u128(i128(b) - i128(a))) / u128(k) + 1;
    check_count(static_cast<long double>(count));
    for (u128 i = 0; i < count; ++i) out.push_back(static_cast<std::int64_t>(a + i128(i) * k));
    return out;
  }

  std::vector<std::string> reals() const {
    const Parts p = split();
    const Decimal a = decimal(p.a, "start"), b = decimal(p.b, "end"),
                  k = decimal(p.k, p.step == 'x' ? "factor" : "step");
    if (less(b, a)) fail(fmt::format("end {} is below start {}", text(b.m, b.e), text(a.m, a.e)));
    const double ad = to_double(a), bd = to_double(b), kd = to_double(k);
    std::vector<std::string> out;
    if (p.step == 'x') {
      if (!less(Decimal{1, 0}, k)) fail(fmt::format("factor {} must be > 1", text(k.m, k.e)));
      if (a.m <= 0) fail(fmt::format("start {} must be > 0 with a factor", text(a.m, a.e)));
      // An integer factor: exact, at the finer exponent of A and B.
      const int e = std::min(a.e, b.e);
      const auto kk = k.e >= 0 ? scale(k.m, k.e, 0) : std::nullopt;
      const auto aa = scale(a.m, a.e, e), bb = scale(b.m, b.e, e);
      if (kk && aa && bb) {
        for (i128 v = *aa;; v *= *kk) {  // v <= B throughout: no overflow
          out.push_back(text(v, e));
          if (v > *bb / *kk) break;
        }
        return out;
      }
      // Otherwise A*K^i in double; B within a relative 1e-9 counts as B.
      check_count(std::log(static_cast<long double>(bd) / ad) / std::log1p(kd - 1.0L) / 1.001L);
      const double tol = 1e-9 * bd;
      for (int i = 0;; ++i) {
        const double v = ad * std::pow(kd, i);
        if (v > bd + tol) break;
        out.push_back(std::abs(v - bd) <= tol ? text(b.m, b.e) : format_value(v));
      }
      check_count(static_cast<long double>(out.size()));
      return out;
    }
    if (k.m <= 0) fail(fmt::format("step {} must be > 0", text(k.m, k.e)));
    // Exact at the finest exponent of A, B and K.
    const int e = std::min({a.e, b.e, k.e});
    const auto aa = scale(a.m, a.e, e), bb = scale(b.m, b.e, e), kk = scale(k.m, k.e, e);
    if (aa && bb && kk) {
      const u128 count = (u128(*bb) - u128(*aa)) / u128(*kk) + 1;
      check_count(static_cast<long double>(count));
      for (u128 i = 0; i < count; ++i) out.push_back(text(*aa + i128(i) * *kk, e));
      return out;
    }
    // Otherwise A + i*K in double; B within a relative 1e-9 counts as B.
    check_count((static_cast<long double>(bd) - ad) / kd / 1.001L);
    const double tol = 1e-9 * std::max(std::abs(ad), std::abs(bd));
    for (std::size_t i = 0;; ++i) {
      const double v = ad + static_cast<double>(i) * kd;
      if (v > bd + tol) break;
      out.push_back(std::abs(v - bd) <= tol ? text(b.m, b.e) : format_value(v));
    }
    check_count(static_cast<long double>(out.size()));
    return out;
  }

 private:
  std::string_view token_;
  RangeKind kind_;
  std::string_view option_;
};

}  // namespace

bool is_range(std::string_view token) { return token.find(':') != std::string_view::npos; }

std::string range_syntax(RangeKind kind) {
  return kind == RangeKind::kInteger
             ? "A:B:xK (A, A*K, A*K^2, ... up to B; integers, A >= 1, K >= 2) or A:B:+K (A, A+K, "
               "A+2K, ... up to B; integers, K >= 1)"
             : "A:B:xK (A, A*K, A*K^2, ... up to B; A > 0, K > 1) or A:B:+K (A, A+K, A+2K, ... up "
               "to B; K > 0)";
}

std::vector<std::int64_t> expand_integer_range(std::string_view token, std::string_view option) {
  return RangeParser(token, RangeKind::kInteger, option).integers();
}

std::vector<double> expand_real_range(std::string_view token, std::string_view option) {
  std::vector<double> out;
  for (const std::string& t : RangeParser(token, RangeKind::kReal, option).reals())
    out.push_back(std::strtod(t.c_str(), nullptr));
  return out;
}

std::vector<std::string> expand_range_text(std::string_view token, RangeKind kind,
                                           std::string_view option) {
  const RangeParser parser(token, kind, option);
  if (kind == RangeKind::kReal) return parser.reals();
  std::vector<std::string> out;
  for (const std::int64_t v : parser.integers()) out.push_back(std::to_string(v));
  return out;
}

}  // namespace poslsh
