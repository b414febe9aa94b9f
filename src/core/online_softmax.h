// The tiled online-softmax kernel shared by every attention routine (exact
// ALiBi, positional-LSH, fixed blocks, sliding window).
//
// Attention over any multiset of keys is one running state per query row: the
// largest logit seen so far m, the sum l of exp(logit - m), and the output
// numerator o = Σ exp(logit - m) v. Adding keys never needs the n×n matrix: a
// tile of logits (at most kQueryTile × kKeyTile) is formed with one matrix
// product, the state is rescaled by exp(m_old - m_new), and one more product
// adds the tile's contribution. Memory is O(rows · d + tile²).
//
// Which keys a query sees is a LogitRule: an ALiBi slope, a causal mask and a
// band. Masks are contiguous per row, so masked entries are never exponentiated
// (vectorised exp of -inf is not guaranteed to give exactly 0) but set to 0.
#pragma once

#include <poslsh/attention_options.h>
#include <poslsh/types.h>

#include <Eigen/Dense>
#include <cstdint>
#include <functional>

#include "internal/attention_work.h"

namespace poslsh::detail {

// logit(i, j) = q_i·k_j / sqrt(d) - slope |i - j| for keys j the rule keeps:
// j <= i when causal, |i - j| <= band when band >= 0.
struct LogitRule {
  double slope = 0.0;
  bool causal = false;
  std::int64_t band = -1;
};



template <typename Scalar>
class OnlineSoftmax {
 public:
  using Vector = Eigen::Matrix<Scalar, Eigen::Dynamic, 1>;

  // State for `rows` query rows of dimension d (value dimension dv).
  OnlineSoftmax(Eigen::Index rows, Eigen::Index d, Eigen::Index dv);

  // Empties the state for the query rows [row0, row0 + rows()).
  void reset(Eigen::Index row0);
  Eigen::Index rows() const { return m_.size(); }
  Eigen::Index row0() const { return row0_; }

  // Adds keys [k0, k1) for queries [q0, q1) (global indices; the query range
  // must lie in the state's rows) under `rule`. Key tiles are visited in
  // increasing order.
  void accumulate(const ConstRowMatrixRef<Scalar>& q, const ConstRowMatrixRef<Scalar>& k,
                  const ConstRowMatrixRef<Scalar>& v, Eigen::Index q0, Eigen::Index q1,
                  Eigen::Index k0, Eigen::Index k1, const LogitRule& rule);

  // Adds keys [ka, kb) for queries [qa, qb) with integer multiplicities and no
  // positional bias: weight(i, j) = mult(r, c) exp(q_i·k_j / sqrt(d)) for the
  // columns c in [lo[r], hi[r]) of row r = i - qa (c = j - ka; mult >= 1
  // there), 0 elsewhere. mult is row-major with row stride mult_stride. At
  // most kQueryTile rows and kKeyTile keys; one matrix product forms every
  // row's logits, however the rows' key ranges differ. (Positional-LSH
  // attention: the hashes whose block holds i and j, counted once.)
  void accumulate_weighted(const ConstRowMatrixRef<Scalar>& q, const ConstRowMatrixRef<Scalar>& k,
                           const ConstRowMatrixRef<Scalar>& v, Eigen::Index qa, Eigen::Index qb,
                           Eigen::Index ka, Eigen::Index kb, const Scalar* mult,
                           Eigen::Index mult_stride, const Eigen::Index* lo,
                           const Eigen::Index* hi);

  // Writes o / l of the state's first `count` rows into out rows
  // [row0, row0 + count) (out indexed globally). A row that saw no key
  // (impossible for the rules used here) is written as 0.
  void write_output(Eigen::Ref<RowMatrix<Scalar>> out, Eigen::Index count) const;

  // Also track max |q_i·k_j| / sqrt(d) over the keys the rule keeps (the
  // β_qk of MATH §7's uniform bound).
  void track_max_abs_logit(bool on) { track_beta_ = on; }
  Scalar max_abs_logit() const { return beta_; }
  const Vector& row_max() const { return m_; }
  const Vector& row_sum() const { return l_; }

 private:
  void accumulate_tile(const ConstRowMatrixRef<Scalar>& q, const ConstRowMatrixRef<Scalar>& k,
                       const ConstRowMatrixRef<Scalar>& v, Eigen::Index q0, Eigen::Index q1,
                       Eigen::Index k0, Eigen::Index k1, const LogitRule& rule);

  Eigen::Index row0_ = 0;
  Vector m_, l_;
  RowMatrix<Scalar> o_;
  RowMatrix<Scalar> s_;                           // logit / weight tile scratch
  Eigen::Array<Scalar, Eigen::Dynamic, 1> ramp_;  // slope * c, c = 0 .. kKeyTile-1
  Scalar ramp_slope_ = 0;
  bool track_beta_ = false;
  Scalar beta_ = 0;
};

extern template class OnlineSoftmax<float>;
extern template class OnlineSoftmax<double>;


}  // namespace poslsh::detail
