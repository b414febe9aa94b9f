#include "block_size.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace poslsh {

namespace {

// Interiors with at most this many bins are simply measured bin by bin.
constexpr std::int64_t kSmallInterior = 16;
// Landings examined before falling back to measuring every interior bin.
constexpr int kMaxLandings = 64;

class BinMeter {
 public:
  BinMeter(const PositionalHash& h, std::int64_t n) : h_(h), n_(n) {}

  // Smallest position i in [0, n] with bin(i) >= k (n if none). The grid gives
  // ceil(a_k), off by at most one position; bin() has the last word.
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

  // Alignment x_k = ceil(a_k) - a_k of bin k, accurate to (n + delta) 2^-52.
  double alignment(std::int64_t k) const {
    const double a = h_.shift + static_cast<double>(k) * h_.pitch;
    return std::ceil(a) - a;
  }

  std::int64_t measured() const { return measured_; }

 private:
  const PositionalHash& h_;
  std::int64_t n_;
  std::int64_t measured_ = 0;
};

// Generic fractional part: the largest interior block is m or m + 1; look for
// an m + 1 block around successive landings. Returns -1 when the fallback is
// needed.
std::int64_t largest_interior_generic(BinMeter& meter, std::int64_t ka, std::int64_t kb,
                                      std::int64_t m, double f) {
  std::int64_t best = 0;
  // Every landing has been examined, so no block has m + 1 positions; confirm
  // that some block has m (rounding may shorten the few measured ones).
  const auto exhausted = [&]() -> std::int64_t {
    for (std::int64_t k = ka; best < m && k <= std::min(kb, ka + 4); ++k) {
      best = std::max(best, meter.size(k));
    }
    return best == m ? m : -1;
  };
  std::int64_t k = ka;
  for (int landings = 0; landings < kMaxLandings; ++landings) {
    if (k > kb) return exhausted();
    // x / f <= 1 / f <= 2^48 / n: exact enough and far inside int64.
    const std::int64_t land = k + static_cast<std::int64_t>(std::floor(meter.alignment(k) / f));
    if (land - 2 > kb) return exhausted();
    // The computed landing is within one bin of the real one, and an m + 1 block
    // made by rounding sits next to a real landing: measure land - 2 .. land + 2.
    for (std::int64_t w = std::max(ka, land - 2); w <= std::min(kb, land + 2); ++w) {
      best = std::max(best, meter.size(w));
    }
    if (best >= m + 1) return best;
    k = land + 1;
  }
  return -1;
}

// Pitch within 4 eps of an integer: x_{ka + j} = frac(x0 + j d), |d| < g.
// Measure every bin whose alignment is within w of an integer (padded by two
// bins); all others have the real size, m (f tiny, d = -f) or m + 1 (f close
// to 1, d = 1 - f).
std::int64_t largest_interior_near_integer(BinMeter& meter, std::int64_t ka, std::int64_t kb,
                                           std::int64_t m, bool pitch_above_integer, double d,
                                           double w, bool& full_scan) {
  const double x0 = meter.alignment(ka);
  const std::int64_t last = kb - ka;  // j in [0, last]
  const std::int64_t unmeasured_size = pitch_above_integer ? m : m + 1;
  const auto near_integer = [](double x, double width) {
    return x - std::floor(x) < width || std::ceil(x) - x < width;
  };
  if (d == 0) {
    if (near_integer(x0, w)) {
      full_scan = true;
      return meter.largest(ka, kb);
    }
    return unmeasured_size;
  }
  // dist(x0 + j d, Z) = dist(y0 + j step, Z) with step = |d| > 0.
  const double y0 = d > 0 ? x0 : -x0;
  const double step = std::abs(d);
  const double t_lo = std::floor(y0 - w);
  const double t_hi = std::ceil(y0 + static_cast<double>(last) * step + w);
  std::int64_t best = 0, covered = 0, cursor = 0;
  const auto clamp_index = [last](double j) {
    return j <= 0 ? std::int64_t{0}
                  : (j >= static_cast<double>(last) ? last : static_cast<std::int64_t>(j));
  };
  for (double t = t_lo; t <= t_hi; t += 1.0) {
    const double jlo = std::ceil((t - w - y0) / step) - 2;
    const double jhi = std::floor((t + w - y0) / step) + 2;
    if (jhi < 0 || jlo > static_cast<double>(last)) continue;
    const std::int64_t a = std::max(clamp_index(jlo), cursor);
    const std::int64_t b = clamp_index(jhi);
    if (a > b) continue;
    best = std::max(best, meter.largest(ka + a, ka + b));
    covered += b - a + 1;
    cursor = b + 1;
  }
  if (covered < last + 1) best = std::max(best, unmeasured_size);
  return best;
}

}  // namespace

LargestBlockScan scan_largest_block(const PositionalHash& h, std::int64_t n) {
  if (n < 1 || n > (std::int64_t{1} << 50))
    throw std::invalid_argument("n must be an integer in [1, 2^50], got " + std::to_string(n));
  if (!std::isfinite(h.pitch) || !(h.pitch > 0))
    throw std::invalid_argument("hash pitch must be a finite number > 0");
  if (!std::isfinite(h.shift) || h.shift < 0 || h.shift > h.pitch)
    throw std::invalid_argument("hash shift must lie in [0, pitch]");

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
    const double m_real = std::floor(h.pitch);
    const auto m = static_cast<std::int64_t>(m_real);
    const double f = h.pitch - m_real;  // exact
    const double eps = (static_cast<double>(n) + h.pitch) * 0x1.0p-50;
    const double g = 4 * eps;
    std::int64_t interior = -1;
    bool full_scan = false;
    if (f >= g && f <= 1 - g) {
      out.path = LargestBlockScan::Path::kLandings;
      interior = largest_interior_generic(meter, ka, kb, m, f);
    } else {
      // d: alignment step; 1 - f is exact for f in [1/2, 1).
      const bool above = f < g;
      const double d = above ? -f : 1.0 - f;
      out.path = LargestBlockScan::Path::kNearInteger;
      interior = largest_interior_near_integer(meter, ka, kb, m, above, d, 2 * g, full_scan);
    }
    if (interior < 0 || full_scan) out.path = LargestBlockScan::Path::kFullScan;
    if (interior < 0) {
      interior = meter.largest(ka, kb);
    }
    best = std::max(best, interior);
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
