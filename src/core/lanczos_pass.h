// The first pass of a Lanczos step (Paige's ordering) on kLanes interleaved
// lanes: w -= beta v_prev, then alpha = v . w, per lane. The operators fuse
// it into their last pass over w (lanczos_op.h); the
// solver runs it after any other product. Both must give the same bits, so
// the operations are explicit fused multiply-adds (not left to the
// compiler's contraction, which differs between files and vector widths) and
// the dot product is summed from the last entry to the first, the order of
// the operators' backward recursion.
#pragma once

#include <cmath>
#include <cstdint>

namespace poslsh::detail {

inline double lanczos_pass_entry(double w, double beta, double v_prev, double v, double& alpha) {
  const double out = std::fma(-beta, v_prev, w);
  alpha = std::fma(v, out, alpha);
  return out;
}

template <int kLanes>
void lanczos_first_pass(std::int64_t n, const double* beta, const double* __restrict v,
                        const double* __restrict v_prev, double* __restrict w, double* alpha) {
  double a[kLanes] = {}, bt[kLanes];
  for (int l = 0; l < kLanes; ++l) bt[l] = beta[l];
  for (std::int64_t i = n - 1; i >= 0; --i)
    for (int l = 0; l < kLanes; ++l) {
      const std::int64_t e = i * kLanes + l;
      w[e] = lanczos_pass_entry(w[e], bt[l], v_prev[e], v[e], a[l]);
    }
  for (int l = 0; l < kLanes; ++l) alpha[l] = a[l];
}

}  // namespace poslsh::detail
