#include "experiments/frontier/frontier.h"

#include <fmt/format.h>
#include <poslsh/positional_hash.h>

#include <algorithm>
#include <cmath>

#include <CLI/CLI.hpp>
#include <functional>
#include <memory>

#include "experiments/attention/attention.h"
#include "experiments/frontier/frontier_checks.h"
#include "experiments/kernel_option.h"
#include "runner/cli_common.h"
#include "runner/swept_experiment.h"
#include "runner/text_format.h"

namespace poslsh {

const std::vector<std::string>& frontier_columns() {
  static const std::vector<std::string> columns = {
      "kernel", "sigma", "n", "d", "head", "rows", "trial", "method", "s", "half_width",
      "keys_per_query", "rel_error", "max_error"};
  return columns;
}

std::vector<std::int64_t> frontier_queries(std::int64_t n, std::int64_t rows) {
  std::vector<std::int64_t> queries;
  const std::int64_t r = std::min(rows, n);
  for (std::int64_t i = 0; i < r; ++i) queries.push_back((2 * i + 1) * n / (2 * r));
  return queries;
}

std::uint64_t frontier_qkv_seed(std::uint64_t seed, std::int64_t trial) {
  return seed * 0x9e3779b97f4a7c15ULL + static_cast<std::uint64_t>(trial) + 1;
}

namespace frontier_detail {

// One query's weights e_j = e^{l_j - max l} over every key, and their prefix
// sums with and without v: a block's sums are two differences, O(d) per hash
// whatever its size (heavy-tailed kernels have blocks of about n).
struct QueryWeights {
  Eigen::VectorXd e;     // n
  RowMatrix<double> pv;  // (n + 1) x d: sum of e_j v_j over j < row
  Eigen::VectorXd pe;    // n + 1: sum of e_j over j < index

  void add_block(std::int64_t a, std::int64_t b, Eigen::RowVectorXd& num, double& den) const {
    num += pv.row(b) - pv.row(a);
    den += pe[b] - pe[a];
  }
};

// Fills w for query i, reusing its buffers (a prefix table is n x d: one
// allocation per trial, not per query).
void fill_query_weights(const ConstRowMatrixRef<double>& q, const ConstRowMatrixRef<double>& k,
                        const ConstRowMatrixRef<double>& v, std::int64_t i, QueryWeights& w) {
  w.e.noalias() = k * q.row(i).transpose() / std::sqrt(static_cast<double>(q.cols()));
  w.e = (w.e.array() - w.e.maxCoeff()).exp().matrix();
  w.pv.resize(k.rows() + 1, v.cols());
  w.pe.resize(k.rows() + 1);
  w.pv.row(0).setZero();
  w.pe[0] = 0;
  for (Eigen::Index j = 0; j < k.rows(); ++j) {
    w.pv.row(j + 1) = w.pv.row(j) + w.e[j] * v.row(j);
    w.pe[j + 1] = w.pe[j] + w.e[j];
  }
}

// Per (method, s): the squared errors and reference norms summed over the
// queries, and the largest entry error.
struct ErrorSums {
  double err2 = 0, ref2 = 0, max_abs = 0;
  void add(const Eigen::RowVectorXd& out, const Eigen::RowVectorXd& ref) {
    err2 += (out - ref).squaredNorm();
    ref2 += ref.squaredNorm();
    max_abs = std::max(max_abs, (out - ref).cwiseAbs().maxCoeff());
  }
  double relative() const { return ref2 > 0 ? std::sqrt(err2 / ref2) : std::sqrt(err2); }
};

// The block of hash h holding i: [starts[b], starts[b + 1]).
std::pair<std::int64_t, std::int64_t> block_of(const std::vector<std::int64_t>& starts,
                                               std::int64_t i) {
  const auto it = std::upper_bound(starts.begin(), starts.end(), i);
  return {*(it - 1), *it};
}

// Keys per query of the first h + 1 hashes, h = 0 .. s_max - 1: the sum over
// hashes of the query's block size, averaged over all n queries (the core's
// lsh_keys_per_query of the symmetric MaskMean, for every prefix in one pass).
std::vector<double> keys_per_query(const std::vector<std::vector<std::int64_t>>& blocks,
                                   std::int64_t n) {
  std::vector<double> out;
  double pairs = 0;
  for (const auto& starts : blocks) {
    for (std::size_t b = 0; b + 1 < starts.size(); ++b) {
      const double len = static_cast<double>(starts[b + 1] - starts[b]);
      pairs += len * len;
    }
    out.push_back(pairs / static_cast<double>(n));
  }
  return out;
}

// The largest half-width whose 2w + 1 keys are at most `keys` (and < n). Not
// the core's equal_cost_half_width, which rounds to the nearest and may give
// the window one key more than LSH: here the window never costs more.
std::int64_t half_width_within(double keys, std::int64_t n) {
  const auto w = static_cast<std::int64_t>(std::floor((keys - 1) / 2));
  return std::clamp<std::int64_t>(w, 0, n - 1);
}

// Kernel-weighted outputs of query i over the keys within each half-width
// (non-decreasing), then over every key (the exact output, last): one pass
// outward from i, summed directly (a window's error can be far below the
// rounding of a prefix-sum difference).
std::vector<Eigen::RowVectorXd> window_outputs(const std::vector<double>& kernel,
                                               const Eigen::VectorXd& e,
                                               const ConstRowMatrixRef<double>& v, std::int64_t i,
                                               const std::vector<std::int64_t>& half_widths) {
  const auto n = static_cast<std::int64_t>(e.size());
  std::vector<Eigen::RowVectorXd> out;
  Eigen::RowVectorXd num = e[i] * v.row(i);
  double den = e[i];
  std::size_t next = 0;
  for (std::int64_t t = 0;; ++t) {
    if (t > 0) {
      const double kt = kernel[static_cast<std::size_t>(t)];
      for (const std::int64_t j : {i - t, i + t})
        if (j >= 0 && j < n) {
          num += kt * e[j] * v.row(j);
          den += kt * e[j];
        }
    }
    for (; next < half_widths.size() && half_widths[next] == t; ++next) out.push_back(num / den);
    if (t >= std::max(i, n - 1 - i)) break;
  }
  for (; next < half_widths.size(); ++next) out.push_back(num / den);  // wider than the context
  out.push_back(num / den);
  return out;
}

struct TrialErrors {
  std::vector<ErrorSums> lsh, window;  // per s
  std::vector<double> kpq;
  std::vector<std::int64_t> half_width;
};

TrialErrors trial_errors(const std::vector<double>& kernel, const FrontierSettings& o,
                         const QkvData& data, const std::vector<std::vector<std::int64_t>>& blocks) {
  const ConstRowMatrixRef<double> q = data.q.head(o.head), k = data.k.head(o.head),
                                  v = data.v.head(o.head);
  TrialErrors t{std::vector<ErrorSums>(o.s.size()), std::vector<ErrorSums>(o.s.size()), {}, {}};
  const std::vector<double> kpq = keys_per_query(blocks, o.n);
  for (const auto s : o.s) {
    t.kpq.push_back(kpq[static_cast<std::size_t>(s - 1)]);
    t.half_width.push_back(half_width_within(t.kpq.back(), o.n));
  }
  QueryWeights w;
  for (const std::int64_t i : frontier_queries(o.n, o.rows)) {
    fill_query_weights(q, k, v, i, w);
    const std::vector<Eigen::RowVectorXd> windows = window_outputs(kernel, w.e, v, i, t.half_width);
    const Eigen::RowVectorXd& exact = windows.back();
    Eigen::RowVectorXd lsh_num = Eigen::RowVectorXd::Zero(o.d);
    double lsh_den = 0;
    std::size_t next = 0;  // index into o.s
    for (std::size_t h = 0; h < blocks.size() && next < o.s.size(); ++h) {
      const auto [a, b] = block_of(blocks[h], i);
      w.add_block(a, b, lsh_num, lsh_den);
      if (static_cast<std::int64_t>(h + 1) != o.s[next]) continue;
      t.lsh[next].add(lsh_num / lsh_den, exact);
      t.window[next].add(windows[next], exact);
      ++next;
    }
  }
  return t;
}

}  // namespace frontier_detail

std::vector<CsvRow> frontier_cell_rows(const Kernel& kernel, double sigma,
                                       const FrontierSettings& o) {
  using namespace frontier_detail;
  const std::int64_t s_max = *std::max_element(o.s.begin(), o.s.end());
  std::vector<double> values(static_cast<std::size_t>(o.n));
  for (std::int64_t t = 0; t < o.n; ++t) values[static_cast<std::size_t>(t)] = kernel(t);
  const std::string spec = kernel.spec();
  std::vector<CsvRow> rows;
  for (std::int64_t trial = 0; trial < o.trials; ++trial) {
    const QkvData data = o.data ? QkvData{}
                                : synthetic_qkv(frontier_qkv_seed(o.seed, trial), o.n, o.d, o.qk_scale);
    std::vector<std::vector<std::int64_t>> blocks;
    for (const auto& h :
         draw_kernel_hashes(kernel, o.seed, static_cast<std::uint64_t>(trial), s_max))
      blocks.push_back(block_starts(h, o.n));
    const TrialErrors e = trial_errors(values, o, o.data ? *o.data : data, blocks);
    for (std::size_t i = 0; i < o.s.size(); ++i) {
      const auto row = [&](const char* method, std::int64_t half_width, const ErrorSums& err) {
        rows.push_back({spec, format_value(sigma), std::to_string(o.n), std::to_string(o.d),
                        std::to_string(o.head), std::to_string(std::min(o.rows, o.n)), std::to_string(trial), method,
                        std::to_string(o.s[i]),
                        half_width < 0 ? std::string() : std::to_string(half_width),
                        format_value(half_width < 0 ? e.kpq[i] : 2.0 * half_width + 1),
                        format_value(err.relative()), format_value(err.max_abs)});
      };
      row("lsh", -1, e.lsh[i]);
      row("window", e.half_width[i], e.window[i]);
    }
  }
  return rows;
}

// A named namespace, not an anonymous one: the runner is a unity build.
namespace frontier_experiment {

struct FrontierCell {
  Kernel kernel;
  double sigma;
  std::int64_t n;
  std::int64_t head;  // of the --qkv files (0: synthetic)
};

class Frontier : public SweptExperiment<FrontierCell> {
 public:
  void declare_options(CLI::App& cmd) override {
    cmd.add_option("--kernel", kernels_, std::string(kKernelHelp) + " (list)")
        ->delimiter(',')
        ->capture_default_str();
    cmd.add_option("--sigma", sigma_, "Kernel scales sigma (list, > 0)")
        ->delimiter(',')
        ->capture_default_str();
    cmd.add_option("--n", n_, "Context lengths n (list, >= 2)")->delimiter(',')->capture_default_str();
    cmd.add_option("--s", o_.s, "Numbers of hashes (increasing list, >= 1)")
        ->delimiter(',')
        ->capture_default_str();
    cmd.add_option("--d", o_.d, "Head dimension (>= 1)")->capture_default_str();
    cmd.add_option("--rows", o_.rows, "Query rows measured, evenly spaced (>= 1)")
        ->capture_default_str();
    cmd.add_option("--trials", o_.trials, "Trials, each with its own Q, K, V and hashes (>= 1)")
        ->capture_default_str();
    cmd.add_option("--qk-scale", o_.qk_scale,
                   "Standard deviation of the logits q·k/sqrt(d) of the synthetic Q, K (> 0)")
        ->capture_default_str();
    cmd.add_option("--seed", o_.seed, "Random seed")->capture_default_str();
    cmd.add_option("--qkv", qkv_,
                   "'synthetic', or a directory of q.npy, k.npy, v.npy ((n, d) or (H, n, d), "
                   "e.g. a trained model's, as `poslsh lm` exports them): every head measured, "
                   "n and d the files'; each trial draws its own hashes")
        ->capture_default_str();
  }

  void validate(CLI::App& cmd, const SweepOptions&) override {
    require_nonempty("--kernel", kernels_.size());
    require_nonempty("--sigma", sigma_.size());
    require_nonempty("--n", n_.size());
    require_nonempty("--s", o_.s.size());
    require_at_least("--n", n_, 2);
    require_hash_count("--s", o_.s);
    if (!std::is_sorted(o_.s.begin(), o_.s.end(), std::less_equal<>()))
      throw UsageError("--s must be an increasing list (each s reuses the hashes of the one before)");
    require_at_least("--d", o_.d, 1);
    require_at_least("--rows", o_.rows, 1);
    require_at_least("--trials", o_.trials, 1);
    require_positive_finite("--qk-scale", o_.qk_scale);
    std::vector<std::pair<std::int64_t, std::int64_t>> problems;  // (n, head)
    if (qkv_ == "synthetic") {
      for (const auto n : n_) problems.push_back({n, 0});
    } else {
      if (cmd.count("--n") || cmd.count("--d"))
        throw UsageError("--n and --d come from the .npy files with --qkv DIR; drop them");
      data_ = std::make_shared<QkvData>(load_qkv_dir(qkv_));
      if (data_->q.n() < 2) throw UsageError("--qkv: the files need n >= 2 positions");
      for (std::int64_t h = 0; h < std::max({data_->q.heads, data_->k.heads, data_->v.heads}); ++h)
        problems.push_back({data_->q.n(), h});
    }
    cells_.clear();
    for (const auto& spec : kernels_)
      for (const double sigma : sigma_) {
        const Kernel kernel = parse_kernel(spec, sigma);  // checks sigma and the spec, once
        for (const auto& [n, head] : problems) cells_.push_back({kernel, sigma, n, head});
      }
  }

  std::vector<std::string> columns() const override { return frontier_columns(); }
  std::vector<FrontierCell> cells() const override { return cells_; }

  std::vector<CsvRow> rows(const FrontierCell& cell) const override {
    FrontierSettings o = o_;
    o.n = cell.n;
    o.head = cell.head;
    o.data = data_.get();
    if (data_) o.d = data_->q.d();
    return frontier_cell_rows(cell.kernel, cell.sigma, o);
  }

  std::string label(const FrontierCell& cell) const override {
    return fmt::format("{} sigma={} n={} head={}", cell.kernel.spec(), format_value(cell.sigma),
                       cell.n, cell.head);
  }

  double cost(const FrontierCell& cell) const override { return static_cast<double>(cell.n); }
  std::uint64_t seed() const override { return o_.seed; }

 private:
  std::vector<std::string> kernels_ = {"laplace"};
  std::vector<double> sigma_ = {8};
  std::vector<std::int64_t> n_ = {4096};
  FrontierSettings o_;
  std::string qkv_ = "synthetic";
  std::shared_ptr<const QkvData> data_;
  std::vector<FrontierCell> cells_;
};

const char* const kSummary = "Attention error against keys per query: LSH and the window, per kernel";

const bool registered_frontier = register_experiment({
    .name = "frontier",
    .summary = kSummary,
    .add_command =
        [](CLI::App& parent) {
          return swept_command(parent, "frontier", kSummary, std::make_shared<Frontier>());
        },
    .add_bench = {},
    .checker = {.required_columns = frontier_columns(),
                .run = [](const CsvTable& t, double alpha) { return check_frontier_table(t, alpha); }},
    .figures = {{.script = "frontier", .title = "Where positional LSH could pay: LSH and the window at equal keys, per kernel"}},
});

}  // namespace frontier_experiment

}  // namespace poslsh
