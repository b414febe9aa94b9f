// `poslsh bench operators`: the O(n + #blocks) mask-mean product of MATH §6
// against the dense-equivalent O(n s) product (every hash's block sums formed
// position by position), and the O(n) ALiBi product, measured side by side.
#include <fmt/format.h>
#include <poslsh/alibi_kernel.h>
#include <poslsh/error_operator.h>
#include <poslsh/hash_parameters.h>
#include <poslsh/mask_mean.h>
#include <poslsh/rng.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <memory>

#include "experiments/bench_timing.h"
#include "experiments/experiment.h"
#include "runner/cli_common.h"

namespace poslsh {

namespace {

// The O(n s) product: for every hash, every block's sum is accumulated
// element by element and added to each of its positions (what a direct
// implementation without shared prefix sums costs; a stored dense M~ would be
// O(n^2)).
void mask_mean_product_per_position(std::int64_t n, const MaskMean& m, const double* x, double* y) {
  std::fill(y, y + n, 0.0);
  for (std::int64_t k = 0; k < m.num_hashes(); ++k) {
    const auto st = m.blocks(k);
    for (std::size_t b = 0; b + 1 < st.size(); ++b) {
      double sum = 0;
      for (std::int64_t i = st[b]; i < st[b + 1]; ++i) sum += x[i];
      for (std::int64_t i = st[b]; i < st[b + 1]; ++i) y[i] += sum;
    }
  }
  const double inv = 1.0 / static_cast<double>(m.num_hashes());
  for (std::int64_t i = 0; i < n; ++i) y[i] *= inv;
}

Action add_operators_bench(CLI::App& bench) {
  struct Options {
    std::int64_t n = 1 << 20, s = 64;
    double sigma = 16;
    std::uint64_t seed = 0;
    int repeats = 5;
  };
  auto o = std::make_shared<Options>();
  auto* cmd = bench.add_subcommand("operators",
                                   "Time M~ x (O(n + #blocks)) vs the O(n s) product, and L* x");
  cmd->add_option("--n", o->n, "Context length")->capture_default_str();
  cmd->add_option("--sigma", o->sigma, "ALiBi scale")->capture_default_str();
  cmd->add_option("--s", o->s, "Number of hashes")->capture_default_str();
  cmd->add_option("--seed", o->seed, "Random seed")->capture_default_str();
  cmd->add_option("--repeats", o->repeats, "Timed repetitions (best kept)")->capture_default_str();
  return [o] {
    const HashParameters hash(o->n, o->sigma, o->s);  // the one check of n, sigma, s
    require_at_least("--repeats", o->repeats, 1);
    const auto hashes = draw_hashes(o->seed, 0, hash);
    const MaskMean m(o->n, hashes);
    const AlibiKernel l(o->n, o->sigma);
    Eigen::VectorXd x(o->n), fast(o->n), slow(o->n), lx(o->n);
    Stream rng(o->seed, 0, 0, StreamPurpose::kLanczosStart);
    for (auto& v : x) v = rng.normal();

    const double t_fast = best_time(o->repeats, [&] { m.perform_op(x.data(), fast.data()); });
    const double t_slow = best_time(
        o->repeats, [&] { mask_mean_product_per_position(o->n, m, x.data(), slow.data()); });
    const double t_alibi = best_time(o->repeats, [&] { l.perform_op(x.data(), lx.data()); });
    const double rel = (fast - slow).norm() / slow.norm();

    fmt::print("bench operators: n={} sigma={} s={} blocks={} (best of {})\n", o->n, o->sigma, o->s,
               m.num_blocks(), o->repeats);
    fmt::print("  M~ x, prefix sums + difference array  O(n + #blocks): {:10.6f} s\n", t_fast);
    fmt::print("  M~ x, block sums per position          O(n s):         {:10.6f} s\n", t_slow);
    fmt::print("  L* x, two recursions                   O(n):           {:10.6f} s\n", t_alibi);
    fmt::print("  ratio O(n s) / O(n + #blocks): {:.1f}x; the two agree to {:.1e} (relative)\n",
               t_slow / t_fast, rel);
    // The error operator E x as the spectral solver uses it: one vector, and
    // interleaved lanes (independent Lanczos starts), per vector.
    const ErrorOperator e(o->n, hashes, o->sigma);
    std::vector<double> xl(static_cast<std::size_t>(o->n * 8)), yl(xl.size());
    for (std::size_t i = 0; i < xl.size(); ++i) xl[i] = x[static_cast<Eigen::Index>(i / 8)];
    const double t_e = best_time(o->repeats, [&] { e.perform_op(x.data(), fast.data()); });
    fmt::print("  E x, one vector:                                       {:10.6f} s\n", t_e);
    for (int lanes : {1, 2, 4, 8}) {
      const double t =
          best_time(o->repeats, [&] { e.perform_op_lanes(xl.data(), yl.data(), lanes); });
      fmt::print("  E X, {} interleaved lanes: {:10.6f} s, {:.2f}x one vector per vector\n", lanes,
                 t, t / lanes / t_e);
    }
    return rel < 1e-10 ? 0 : 1;
  };
}

const bool registered_operators_bench = register_experiment({
    .name = "operators",
    .summary = "Matrix-free operator products",
    .add_command = nullptr,
    .add_bench = add_operators_bench,
    .checker = {},
});

}  // namespace

}  // namespace poslsh
