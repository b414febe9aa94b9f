// The estimator itself, checked inside the run: sampled rows of the fast
// positional-LSH attention and of the mask-mean product recomputed from
// their definitions, on the hashes the run drew.
//
// The error-law lines compare the tested sampler with a control sampler
// through the same estimator (MaskMean, lsh_attention), so an estimator
// defect moves both arms and is invisible to them; the certificate has
// 6-12x slack. Here query row i is computed as the definition reads,
//   T~_i = sum_j c_ij e^(q_i.k_j / sqrt d) v_j / sum_j c_ij e^(q_i.k_j / sqrt d),
//   (M~ x)_i = (1/s) sum_j c_ij x_j,
// with c_ij the number of the s hashes that put i and j in one block (causal:
// j <= i too), each block taken from PositionalHash::bin through block_begin
// and block_end, not from MaskMean's block lists or lsh_attention's tiles. The
// rows sampled are those on both sides of every query-tile edge (64 rows) and
// hence of every 256-row chunk, and one inside each tile: a block that
// crosses a key tile is met by the rows beside the edge. The deviation is the
// largest |fast - definition| over those rows, in units of max |v| (max |x|
// for the product); a sound estimator leaves rounding only (about 1e-15 at
// these sizes), the table's rounding_allowance (1e-12 max |v|) bounds it.
#pragma once

#include <poslsh/mask_mean.h>
#include <poslsh/positional_hash.h>
#include <poslsh/types.h>

#include <cstdint>
#include <span>
#include <vector>

namespace poslsh {

// The query rows probed at n: 63, 64, 127, 128, ... (every tile edge, both
// sides) and the middle row of every 64-row tile, in increasing order.
std::vector<std::int64_t> estimator_probe_rows(std::int64_t n);

// max over the probed rows of |fast_i - definition_i| / max |v| for the
// attention output `fast` (n x dv) of (q, k, v) under `hashes` in `form`.
double attention_estimator_deviation(const ConstRowMatrixRef<double>& q,
                                     const ConstRowMatrixRef<double>& k,
                                     const ConstRowMatrixRef<double>& v,
                                     std::span<const PositionalHash> hashes, Form form,
                                     const RowMatrix<double>& fast);

// The same for the mask-mean product y = M~ x of `mask` (x of length n).
double mask_product_deviation(const MaskMean& mask, std::span<const PositionalHash> hashes,
                              const Eigen::VectorXd& x);

}  // namespace poslsh
