#include <poslsh/argument_error.h>
#include <poslsh/attention_bounds.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "internal/attention_work.h"

namespace poslsh {
namespace {

// B~ = M~ (or M~ ⊙ T): row i's window is the union of the blocks containing i,
// values by a difference array over that window.
class MaskRows {
 public:
  explicit MaskRows(const MaskMean& mask) : mask_(mask) {}
  // Fills vals with B~[i, lo .. hi) and returns [lo, hi).
  std::pair<Eigen::Index, Eigen::Index> row(Eigen::Index i, std::vector<double>& vals) const {
    const std::int64_t s = mask_.num_hashes();
    blocks_.resize(static_cast<std::size_t>(s));
    Eigen::Index lo = i, hi = i + 1;
    for (std::int64_t h = 0; h < s; ++h) {
      const auto st = mask_.blocks(h);
      const auto it = std::upper_bound(st.begin(), st.end(), static_cast<std::int64_t>(i));
      const Eigen::Index a = *(it - 1), e = *it;
      blocks_[static_cast<std::size_t>(h)] = {a, e};
      lo = std::min(lo, a);
      hi = std::max(hi, e);
    }
    if (mask_.form() == Form::kCausal) hi = i + 1;
    vals.assign(static_cast<std::size_t>(hi - lo + 1), 0.0);
    for (const auto& [a, e] : blocks_) {
      vals[static_cast<std::size_t>(a - lo)] += 1.0;
      vals[static_cast<std::size_t>(std::min(e, hi) - lo)] -= 1.0;
    }
    double acc = 0.0;
    const double inv_s = 1.0 / static_cast<double>(s);
    for (Eigen::Index c = 0; c < hi - lo; ++c) {
      acc += vals[static_cast<std::size_t>(c)];
      vals[static_cast<std::size_t>(c)] = acc * inv_s;
    }
    vals.resize(static_cast<std::size_t>(hi - lo));
    return {lo, hi};
  }
  Eigen::Index n() const { return mask_.rows(); }
  Form form() const { return mask_.form(); }

 private:
  const MaskMean& mask_;
  mutable std::vector<std::pair<Eigen::Index, Eigen::Index>> blocks_;
};

// B~ = L* on |i - j| <= w (form applied), 0 beyond.
class BandRows {
 public:
  BandRows(Eigen::Index n, double sigma, std::int64_t w, Form form)
      : n_(n), sigma_(sigma), w_(w), form_(form) {}
  std::pair<Eigen::Index, Eigen::Index> row(Eigen::Index i, std::vector<double>& vals) const {
    const Eigen::Index lo = std::max<Eigen::Index>(0, i - w_);
    const Eigen::Index hi = form_ == Form::kCausal ? i + 1 : std::min<Eigen::Index>(n_, i + w_ + 1);
    vals.resize(static_cast<std::size_t>(hi - lo));
    for (Eigen::Index j = lo; j < hi; ++j)
      vals[static_cast<std::size_t>(j - lo)] =
          std::exp(-static_cast<double>(std::abs(i - j)) / sigma_);
    return {lo, hi};
  }
  Eigen::Index n() const { return n_; }
  Form form() const { return form_; }

 private:
  Eigen::Index n_;
  double sigma_;
  std::int64_t w_;
  Form form_;
};

// Σ_{j=0}^{m-1} r^j = (1 - r^m) / (1 - r), accurate for r near 1.
double geometric_sum(double m, double sigma) {
  if (m <= 0) return 0.0;
  return std::expm1(-m / sigma) / std::expm1(-1.0 / sigma);
}

// Σ_j L*[i,j] over j outside [lo, hi) (form applied): closed-form tails.
double alibi_tails(Eigen::Index i, Eigen::Index lo, Eigen::Index hi, Eigen::Index n, double sigma,
                   Form form) {
  // Left: j = 0 .. lo-1, distances i-lo+1 .. i.
  double t = std::exp(-static_cast<double>(i - lo + 1) / sigma) * geometric_sum(lo, sigma);
  if (form == Form::kSymmetric)
    t += std::exp(-static_cast<double>(hi - i) / sigma) * geometric_sum(n - hi, sigma);
  return t;
}

template <typename Rows>
double inf_norm_error_impl(const Rows& rows, double sigma) {
  std::vector<double> vals;
  double best = 0.0;
  for (Eigen::Index i = 0; i < rows.n(); ++i) {
    const auto [lo, hi] = rows.row(i, vals);
    double sum = alibi_tails(i, lo, hi, rows.n(), sigma, rows.form());
    for (Eigen::Index j = lo; j < hi; ++j)
      sum += std::abs(vals[static_cast<std::size_t>(j - lo)] -
                      std::exp(-static_cast<double>(std::abs(i - j)) / sigma));
    best = std::max(best, sum);
  }
  return best;
}

template <typename Rows>
AttentionBounds bounds_impl(const ConstRowMatrixRef<double>& q, const ConstRowMatrixRef<double>& k,
                            const ConstRowMatrixRef<double>& v, double sigma, const Rows& rows,
                            const SoftmaxRowStats& exact, const AttentionOptions& options) {
  validate_attention_shapes(q.rows(), q.cols(), k.rows(), k.cols(), v.rows(), v.cols());
  const Eigen::Index n = q.rows();
  if (rows.n() != n)
    throw std::logic_error(
        "attention bounds: the approximation has n = " + std::to_string(rows.n()) +
        " but q, k, v have " + std::to_string(n) + " rows");
  if (exact.row_max.size() != n || exact.row_sum.size() != n ||
      (exact.row_sum_slack.size() != 0 && exact.row_sum_slack.size() != n))
    throw std::logic_error("attention bounds: exact row statistics must have n entries");
  AttentionBounds out;
  out.v_max = v.cwiseAbs().maxCoeff();
  out.rounding_allowance = kRoundingAllowance * out.v_max;
  out.max_abs_logit = exact.max_abs_logit;
  out.row_bound.resize(n);
  const double scale = 1.0 / std::sqrt(static_cast<double>(q.cols()));
  const std::int64_t units = (n + kQueryTile - 1) / kQueryTile;
  const int workers =
      static_cast<int>(std::min<std::int64_t>(resolve_threads(options.threads), units));
  struct Scratch {
    std::vector<std::vector<double>> vals;
    std::vector<std::pair<Eigen::Index, Eigen::Index>> windows;
    RowMatrix<double> tile;
  };
  std::vector<Scratch> scratch(static_cast<std::size_t>(workers));
  std::vector<Rows> row_makers(static_cast<std::size_t>(workers), rows);  // own scratch each
  for_each_unit(units, workers, [&](std::int64_t unit, int worker) {
    auto& sc = scratch[static_cast<std::size_t>(worker)];
    const auto& maker = row_makers[static_cast<std::size_t>(worker)];
    const Eigen::Index i0 = unit * kQueryTile, i1 = std::min<Eigen::Index>(n, i0 + kQueryTile);
    sc.vals.resize(static_cast<std::size_t>(kQueryTile));
    sc.windows.resize(static_cast<std::size_t>(kQueryTile));
    Eigen::Index kmin = n, kmax = 0;
    for (Eigen::Index i = i0; i < i1; ++i) {
      const auto w = maker.row(i, sc.vals[static_cast<std::size_t>(i - i0)]);
      sc.windows[static_cast<std::size_t>(i - i0)] = w;
      kmin = std::min(kmin, w.first);
      kmax = std::max(kmax, w.second);
    }
    sc.tile.noalias() = q.middleRows(i0, i1 - i0) * k.middleRows(kmin, kmax - kmin).transpose();
    for (Eigen::Index i = i0; i < i1; ++i) {
      const auto [lo, hi] = sc.windows[static_cast<std::size_t>(i - i0)];
      const auto& vals = sc.vals[static_cast<std::size_t>(i - i0)];
      const double m = exact.row_max[i];
      // Σ_j A |B~ - L*| = Σ_j A L* + Σ_{window} A (|B~ - L*| - L*), all scaled
      // by e^{-m}; |b - l| - l is -b (b < l) or b - 2l (b >= l).
      double corr = 0.0;
      for (Eigen::Index j = lo; j < hi; ++j) {
        const double dist = static_cast<double>(std::abs(i - j)) / sigma;
        const double l = std::exp(-dist);
        const double b = vals[static_cast<std::size_t>(j - lo)];
        if (b == 0.0) continue;  // |0 - L*| - L* = 0
        const double qk = sc.tile(i - i0, j - kmin) * scale;
        corr += b < l ? -b * std::exp(qk - m) : b * std::exp(qk - m) - 2 * std::exp(qk - dist - m);
      }
      // ratio = 1 + corr / D with D the full row sum; D is known up to its
      // slack (row_sum_slack: D in [d, d (1 + r)]), so take the end of that
      // interval that makes the ratio largest: a bound for every D in it.
      const double d_star = exact.row_sum[i];
      const double slack = exact.row_sum_slack.size() ? exact.row_sum_slack[i] : 0.0;
      const double d_worst = corr >= 0 ? d_star : d_star * (1 + slack);
      const double ratio = std::max(0.0, d_worst + corr) / d_worst;
      out.row_bound[i] = 2.0 * out.v_max * ratio;
    }
  });
  out.certificate = out.row_bound.maxCoeff();
  out.inf_norm_error = inf_norm_error_impl(rows, sigma);
  out.uniform_bound = 2.0 * std::exp(2.0 * out.max_abs_logit) * out.v_max * out.inf_norm_error /
                      min_alibi_row_sum(n, sigma, rows.form());
  return out;
}

}  // namespace

double min_alibi_row_sum(std::int64_t n, double sigma, Form form) {
  return form == Form::kCausal ? 1.0 : geometric_sum(static_cast<double>(n), sigma);
}

double inf_norm_error(const MaskMean& mask, double sigma) {
  check::positive_finite("sigma", sigma);
  return inf_norm_error_impl(MaskRows(mask), sigma);
}

AttentionBounds lsh_attention_bounds(const ConstRowMatrixRef<double>& q,
                                     const ConstRowMatrixRef<double>& k,
                                     const ConstRowMatrixRef<double>& v, double sigma,
                                     const MaskMean& mask, const SoftmaxRowStats& exact,
                                     const AttentionOptions& options) {
  check::positive_finite("sigma", sigma);
  return bounds_impl(q, k, v, sigma, MaskRows(mask), exact, options);
}

AttentionBounds window_attention_bounds(const ConstRowMatrixRef<double>& q,
                                        const ConstRowMatrixRef<double>& k,
                                        const ConstRowMatrixRef<double>& v, double sigma,
                                        std::int64_t half_width, Form form,
                                        const SoftmaxRowStats& exact,
                                        const AttentionOptions& options) {
  check::positive_finite("sigma", sigma);
  check::at_least("half_width", half_width, 0);
  return bounds_impl(q, k, v, sigma, BandRows(q.rows(), sigma, half_width, form), exact, options);
}

}  // namespace poslsh
