#include "experiments/attention/estimator_probe.h"

#include <poslsh/attention_options.h>

#include <algorithm>
#include <cmath>

#include "experiments/oracles/reference_blocks.h"

namespace poslsh {

std::vector<std::int64_t> estimator_probe_rows(std::int64_t n) {
  std::vector<std::int64_t> rows;
  for (std::int64_t edge = 0; edge < n; edge += kQueryTile) {
    if (edge > 0) rows.push_back(edge - 1);
    rows.push_back(edge);
    const std::int64_t middle = edge + kQueryTile / 2;
    if (middle < n) rows.push_back(middle);
  }
  if (rows.back() != n - 1) rows.push_back(n - 1);
  return rows;
}

namespace estimator_probe {

// c_ij for query i over keys [lo, hi): the number of hashes whose block
// holding i holds j (causal: j <= i only), from the definition's blocks
// (reference_blocks.h: no code shared with the library's binning).
struct RowCounts {
  std::int64_t lo = 0, hi = 0;
  std::vector<double> count;  // count[j - lo]
};

RowCounts row_counts(std::span<const PositionalHash> hashes, std::int64_t n, std::int64_t i,
                     Form form) {
  RowCounts c{i, i + 1, {}};
  std::vector<std::pair<std::int64_t, std::int64_t>> blocks;
  for (const auto& h : hashes) {
    const std::int64_t b = reference_block_begin(h, i);
    const std::int64_t e = form == Form::kCausal ? i + 1 : reference_block_end(h, i, n);
    blocks.emplace_back(b, e);
    c.lo = std::min(c.lo, b);
    c.hi = std::max(c.hi, e);
  }
  c.count.assign(static_cast<std::size_t>(c.hi - c.lo), 0.0);
  for (const auto& [b, e] : blocks)
    for (std::int64_t j = b; j < e; ++j) c.count[static_cast<std::size_t>(j - c.lo)] += 1;
  return c;
}

double max_abs(const Eigen::Ref<const Eigen::MatrixXd>& m) {
  return m.size() == 0 ? 0.0 : m.cwiseAbs().maxCoeff();
}

}  // namespace estimator_probe

double attention_estimator_deviation(const ConstRowMatrixRef<double>& q,
                                     const ConstRowMatrixRef<double>& k,
                                     const ConstRowMatrixRef<double>& v,
                                     std::span<const PositionalHash> hashes, Form form,
                                     const RowMatrix<double>& fast) {
  const std::int64_t n = q.rows();
  const double scale = 1.0 / std::sqrt(static_cast<double>(q.cols()));
  const double v_max = std::max(estimator_probe::max_abs(v), 1e-300);
  double worst = 0;
  for (const std::int64_t i : estimator_probe_rows(n)) {
    const auto c = estimator_probe::row_counts(hashes, n, i, form);
    const Eigen::VectorXd logits = k.middleRows(c.lo, c.hi - c.lo) * q.row(i).transpose() * scale;
    const double top = logits.maxCoeff();
    Eigen::RowVectorXd num = Eigen::RowVectorXd::Zero(v.cols());
    double den = 0;
    for (std::int64_t j = c.lo; j < c.hi; ++j) {
      const double w = c.count[static_cast<std::size_t>(j - c.lo)] * std::exp(logits(j - c.lo) - top);
      num += w * v.row(j);
      den += w;
    }
    worst = std::max(worst, (fast.row(i) - num / den).cwiseAbs().maxCoeff() / v_max);
  }
  return worst;
}

double mask_product_deviation(const MaskMean& mask, std::span<const PositionalHash> hashes,
                              const Eigen::VectorXd& x) {
  const std::int64_t n = mask.rows();
  Eigen::VectorXd y(n);
  mask.perform_op(x.data(), y.data());
  const double x_max = std::max(estimator_probe::max_abs(x), 1e-300);
  const auto s = static_cast<double>(hashes.size());
  double worst = 0;
  for (const std::int64_t i : estimator_probe_rows(n)) {
    const auto c = estimator_probe::row_counts(hashes, n, i, mask.form());
    double sum = 0;
    for (std::int64_t j = c.lo; j < c.hi; ++j) sum += c.count[static_cast<std::size_t>(j - c.lo)] * x(j);
    worst = std::max(worst, std::abs(y(i) - sum / s) / x_max);
  }
  return worst;
}

}  // namespace poslsh
