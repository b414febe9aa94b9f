// Entrywise error measures of the estimator, exact and matrix-free (MATH §5-§6):
//   max error  max_{i,j} |E[i,j]|          (E = M~ - L*, or T ⊙ (M~ - L*))
//   inf error  max_i Σ_j |E[i,j]|          (largest absolute row sum; MATH §7's
//                                           uniform attention bound needs it)
// Algorithm. Diagonal entries are exact (both matrices have ones there), and
// E[i,i+t] = c_t(i)/s - r^t with c_t(i) the number of hashes putting i and i+t
// in one block. Only blocks longer than t contribute to c_t, each with the
// interval of i in [a, b - t): for every offset t < B (B the largest block) one
// difference array over the blocks longer than t gives c_t for all i, hence the
// extreme entries at offset t and their contribution to every row sum, in O(n)
// plus O(#blocks longer than t). Beyond B no pair shares a block, so the entries
// are -r^t: the max is r^B (at t = B), and each row's part is a geometric sum in
// closed form. Total O(B n + n s) time, O(n + #blocks) memory; M~ and L* are
// never formed. The entries are computed with the same expressions as the dense
// oracle (count / s - exp(-t / sigma)), so the results agree to rounding of the
// row sums. The offsets are split into two chunks of equal work that one or
// two threads run; the results do not depend on the thread count.
#pragma once

#include <poslsh/error_operator.h>
#include <poslsh/mask_mean.h>

#include <cstdint>

namespace poslsh {

struct EntrywiseError {
  double max_error = 0.0;          // max |E[i,j]| (0 when n = 1)
  double inf_error = 0.0;          // max_i Σ_j |E[i,j]|
  std::int64_t largest_block = 0;  // B
};

// Form (symmetric or causal) is the mask's. Throws ArgumentError unless
// sigma is finite and > 0 and threads >= 1 (more than 2 are not used).
EntrywiseError entrywise_error(const MaskMean& mask, double sigma, int threads = 1);
// The operator's mask and sigma, which its construction checked: only
// threads is checked here.
EntrywiseError entrywise_error(const ErrorOperator& error, int threads = 1);

}  // namespace poslsh
