#include <poslsh/argument_error.h>
#include <poslsh/block_size.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <stdexcept>
#include <string>

namespace poslsh {

namespace {

using i128 = __int128;

// Interiors with at most this many bins are simply measured bin by bin.
constexpr std::int64_t kSmallInterior = 16;

class BinMeter {
 public:
  BinMeter(const PositionalHash& h, std::int64_t n) : h_(h), n_(n) {}

  // Smallest position i in [0, n] with bin(i) >= k (n if none). The grid gives
  // ceil(a_k), off by at most two positions; bin() has the last word.
  std::int64_t first_position(std::int64_t k) {
    const double edge = h_.shift + static_cast<double>(k) * h_.pitch;
    const double c = std::ceil(edge);
    std::int64_t i =
        c <= 0 ? 0 : (c >= static_cast<double>(n_) ? n_ : static_cast<std::int64_t>(c));
    while (i > 0 && h_.bin(i - 1) >= k) --i;
    while (i < n_ && h_.bin(i) < k) ++i;
    return i;
  }

  // Number of positions of bin k (bins strictly inside [0, n)).
  std::int64_t size(std::int64_t k) {
    ++measured_;
    return first_position(k + 1) - first_position(k);
  }

  // Largest bin of [ka, kb].
  std::int64_t largest(std::int64_t ka, std::int64_t kb) {
    std::int64_t best = 0;
    if (ka > kb) return best;
    std::int64_t left = first_position(ka);
    for (std::int64_t k = ka; k <= kb; ++k) {
      const std::int64_t right = first_position(k + 1);
      best = std::max(best, right - left);
      left = right;
    }
    measured_ += kb - ka + 1;
    return best;
  }

  std::int64_t measured() const { return measured_; }

 private:
  const PositionalHash& h_;
  std::int64_t n_;
  std::int64_t measured_ = 0;
};

// x = mant 2^exp exactly, mant < 2^53 (mant = 0 for x = 0); x finite, >= 0.
struct Dyadic {
  std::uint64_t mant = 0;
  int exp = 0;
};

Dyadic decompose(double x) {
  if (x == 0) return {};
  int e = 0;
  const double fr = std::frexp(x, &e);  // x = fr 2^e, fr in [1/2, 1)
  return {static_cast<std::uint64_t>(std::ldexp(fr, 53)), e - 53};
}

// floor(mant 2^s) (callers keep it below 2^110).
i128 scaled_floor(std::uint64_t mant, int s) {
  if (s >= 0) return static_cast<i128>(mant) << s;
  if (s <= -64) return 0;
  return static_cast<i128>(mant >> -s);
}

// mant 2^-r rounded to nearest, ties to even (r >= 1): what IEEE subtraction
// does to u on the grid of spacing 2^r ulps of u.
std::uint64_t round_half_even_shift(std::uint64_t mant, int r) {
  if (r >= 54) return 0;  // mant < 2^53 <= 2^(r-1): below one half
  const std::uint64_t q = mant >> r;
  const std::uint64_t rem = mant & ((std::uint64_t{1} << r) - 1);
  const std::uint64_t half = std::uint64_t{1} << (r - 1);
  return (rem > half || (rem == half && (q & 1) != 0)) ? q + 1 : q;
}

i128 floor_div(i128 a, i128 b) {  // b > 0
  const i128 q = a / b;
  return (a % b != 0 && a < 0) ? q - 1 : q;
}

i128 ceil_div(i128 a, i128 b) {  // b > 0
  const i128 q = a / b;
  return (a % b != 0 && a > 0) ? q + 1 : q;
}

// Group a of an edge k >= 1: k in (2^a, 2^(a+1)], where fl(y) >= k <=> y >= k - 2^(a-53).
int group_of(std::int64_t k) { return std::bit_width(static_cast<std::uint64_t>(k - 1)) - 1; }

// Some interior block [ka, kb] has m + 1 positions (`best`, m = floor(pitch)).
// Only the blocks around a binade change B_E = ceil(u + 2^E) with
// f > 1 - 2^(E-52) can have m + 2: the largest of `best` and those.
std::int64_t largest_at_binade_changes(const PositionalHash& h, std::int64_t n, BinMeter& meter,
                                       std::int64_t ka, std::int64_t kb, std::int64_t m,
                                       std::int64_t best) {
  const double f = h.pitch - std::floor(h.pitch);  // exact
  if (f == 0) return best;
  std::int64_t last_k = ka - 1;
  const int e_hi = std::ilogb(static_cast<double>(n));  // i - u < n <= 2^(e_hi+1)
  for (int e = e_hi; e >= -1 && f > 1 - std::ldexp(1.0, e - 52) && best < m + 2; --e) {
    // ceil(u + 2^E) within one position; the block holding B_E - 1 is among these.
    const double b = std::ceil(h.shift + std::ldexp(1.0, e));
    for (double p = b - 2; p <= b + 1; ++p) {
      if (p < 0 || p >= static_cast<double>(n)) continue;
      const std::int64_t k = h.bin(static_cast<std::int64_t>(p));
      if (k < ka || k > kb || k == last_k) continue;
      last_k = k;
      best = std::max(best, meter.size(k));
    }
  }
  return best;
}

// Largest block among the interior bins [ka, kb] (both ends inside [0, n)),
// given that some block already has `known` positions. See block_size.h.
std::int64_t largest_interior(const PositionalHash& h, std::int64_t n, BinMeter& meter,
                              std::int64_t ka, std::int64_t kb, std::int64_t known,
                              std::int64_t& runs) {
  const double m_real = std::floor(h.pitch);
  const auto m = static_cast<std::int64_t>(m_real);
  const double f = h.pitch - m_real;  // exact
  // No block exceeds m + 2 (spread < 1), nor m + 1 when f = 0.
  if (known >= m + 2 || (f == 0 && known >= m + 1)) return 0;
  const int e_delta = std::ilogb(h.pitch);  // in [-1, 46]: 1/2 <= pitch < n / 16
  const auto m_delta = static_cast<std::uint64_t>(std::ldexp(h.pitch, 52 - e_delta));
  const Dyadic u = decompose(h.shift);

  std::int64_t best = 0;
  std::int64_t next = ka;  // blocks ka .. next - 1 are accounted for
  const auto measure_to = [&](std::int64_t last) {
    if (last >= next) {
      best = std::max(best, meter.largest(next, last));
      next = last + 1;
    }
  };
  // Edges k_lo .. k_hi bound the interior blocks; edge 0 (shift > 0) is never
  // in a run, so block 0 is always measured.
  const std::int64_t k_lo = std::max<std::int64_t>(ka, 1), k_hi = kb + 1;
  bool found = false;  // a block of at least m + 1 positions has been seen
  for (int a = group_of(k_lo); a <= group_of(k_hi) && !found; ++a) {
    const std::int64_t g_lo = std::max(k_lo, a < 0 ? 1 : (std::int64_t{1} << a) + 1);
    const std::int64_t g_hi = std::min(k_hi, a < 0 ? 1 : std::int64_t{1} << (a + 1));
    // Units of 2^-q: delta, c_k delta = m_delta, u_E and positions are integers.
    const int q = 105 - a - e_delta;
    const i128 s = i128{1} << q;                            // one position
    const i128 d = static_cast<i128>(m_delta) << (53 - a);  // delta
    const i128 c = static_cast<i128>(m_delta);              // c_k delta
    const i128 frac = d - static_cast<i128>(m) * s;         // f
    const i128 u_floor = scaled_floor(u.mant, u.exp + q);   // floor(u), in units
    for (int e = std::max(2, a + e_delta - 2); e <= a + e_delta + 3 && !found; ++e) {
      i128 ue = 0;  // u_E
      if (u.mant != 0) {
        ue = u.exp >= e - 52
                 ? static_cast<i128>(u.mant) << (u.exp + q)
                 : static_cast<i128>(round_half_even_shift(u.mant, e - 52 - u.exp)) << (e - 52 + q);
      }
      // The run: edges with u + 2^E + 2 < T_E(k) <= u + 2^(E+1) - 2, where
      // T_E(k) = ue + k d - c. Then ceil(T_E(k)) and the position before it lie
      // in binade E, and every earlier position fails bin(i) >= k (its own
      // threshold is within 2^(E-52) of T_E(k)): P(k) = ceil(T_E(k)) exactly.
      const i128 lo = u_floor + 1 + (i128{1} << (e + q)) + 2 * s - ue + c;
      const i128 hi = u_floor + (i128{1} << (e + 1 + q)) - 2 * s - ue + c;
      const i128 k0w = std::max<i128>(ceil_div(lo, d), g_lo);
      const i128 k1w = std::min<i128>(floor_div(hi, d), g_hi);
      if (k0w > k1w) continue;
      const auto k0 = static_cast<std::int64_t>(k0w), k1 = static_cast<std::int64_t>(k1w);
      measure_to(k0 - 1);  // blocks with an edge outside every run
      if (best > m) {
        found = true;
        break;
      }
      ++runs;
      if (k1 > k0) {                       // blocks k0 .. k1 - 1 have both edges in the run
        const i128 t0 = ue + k0 * d - c;   // > 0
        const i128 x0 = (s - t0 % s) % s;  // alignment of edge k0
        if (frac > 0 && x0 / frac <= k1 - 1 - k0) {
          best = std::max(best, m + 1);
          found = true;
          break;
        }
        best = std::max(best, m);
      }
      next = k1;
    }
  }
  if (!found) {  // every run decided: measure what is left
    measure_to(kb);
    return best;
  }
  return largest_at_binade_changes(h, n, meter, ka, kb, m, best);
}

}  // namespace

void check_block_size_length(std::int64_t n) {
  if (n < 1 || n > (std::int64_t{1} << 50))
    throw ArgumentError("n", "must be an integer in [1, 2^50]", std::to_string(n));
}

LargestBlockScan scan_largest_block(const PositionalHash& h, std::int64_t n) {
  check_block_size_length(n);
  validate_hash(h);

  LargestBlockScan out;
  if (h.pitch < 0.5) {  // every block is a single position
    out.size = 1;
    return out;
  }
  BinMeter meter(h, n);
  const std::int64_t k_first = h.bin(0);
  const std::int64_t k_last = h.bin(n - 1);
  if (k_first == k_last) {
    out.size = n;
    return out;
  }
  // End blocks, clipped by 0 and n.
  const std::int64_t first_end = meter.first_position(k_first + 1);
  const std::int64_t last_start = meter.first_position(k_last);
  std::int64_t best = std::max(first_end, n - last_start);

  const std::int64_t ka = k_first + 1, kb = k_last - 1;  // interior bins
  if (kb - ka + 1 <= kSmallInterior) {
    out.path = LargestBlockScan::Path::kSmallInterior;
    best = std::max(best, meter.largest(ka, kb));
  } else {
    out.path = LargestBlockScan::Path::kLandings;
    best = std::max(best, largest_interior(h, n, meter, ka, kb, best, out.runs));
  }
  out.size = best;
  out.bins_measured = meter.measured() + 2;
  return out;
}

std::int64_t largest_block_size(const PositionalHash& h, std::int64_t n) {
  return scan_largest_block(h, n).size;
}

std::int64_t b_max(std::span<const PositionalHash> hashes, std::int64_t n) {
  std::int64_t best = 0;
  for (const auto& h : hashes) best = std::max(best, scan_largest_block(h, n).size);
  return best;
}

}  // namespace poslsh
