// `poslsh bench attention`: wall time of exact, certified band-exact,
// positional-LSH and sliding-window attention in float32 across n, side by
// side in one run, with each method's error against float64 exact ALiBi
// attention (and the band's certificate: its error in real arithmetic, which
// float32 rounding of the output, as for dense exact, comes on top of; so the
// float64 band's worst error/certificate ratio over the sampled rows is
// reported too, err/cert64, which must be <= 1).
//
// The window's half-width is chosen to cost the same as the LSH instance: its
// keys per query (2w + 1) match Σ_k Σ_blocks b² / n of the hashes used. Errors
// are measured on evenly spaced tiles of query rows (--reference-rows, 64-row
// tiles), since the float64 reference costs O(rows · n · d); max_error is the
// maximum over those rows.
#include <fmt/format.h>
#include <poslsh/band_attention.h>
#include <poslsh/baseline_attention.h>
#include <poslsh/lsh_attention.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>

#include "experiments/attention/attention.h"
#include "experiments/bench_timing.h"
#include "internal/attention_work.h"
#include "runner/atomic_file.h"
#include "runner/cli_common.h"
#include "runner/csv_writer.h"
#include "stats/least_squares.h"

namespace poslsh {
// A named namespace, not an anonymous one: the runner is a unity build.
namespace attention_bench {

struct AttentionBenchOptions {
  std::vector<std::int64_t> n = {4096, 8192, 16384, 32768, 65536, 131072};
  std::int64_t d = 64, s = 8, repeats = 3, reference_rows = 1024, exact_max_n = 131072;
  double sigma = 16.0;
  std::uint64_t seed = 0;
  int threads = 0;
  std::string out = "attention_bench.csv";
};

// Slow runs (> 5 s) are timed once: their relative noise is small.
template <class F>
double timed(std::int64_t repeats, F&& f) {
  return best_time(repeats, std::forward<F>(f), 5.0);
}

// The options, checked once; (n, sigma, s) per --n value as the HashParameters
// the measurements draw from.
std::vector<HashParameters> validate_attention_bench(const AttentionBenchOptions& o) {
  require_nonempty("--n", o.n.size());
  require_at_least("--n", o.n, 2);
  require_at_least("--d", o.d, 1);
  require_at_least("--repeats", o.repeats, 1);
  require_at_least("--reference-rows", o.reference_rows, 1);
  std::vector<HashParameters> hashes;
  for (const std::int64_t n : o.n) hashes.emplace_back(n, o.sigma, o.s);
  return hashes;
}

// The measurements at one n (NaN: not measured).
struct Row {
  std::int64_t n = 0;
  double exact_s = NAN, lsh_s = NAN, window_s = NAN, exact_err = NAN, lsh_err = NAN,
         window_err = NAN, kpq = NAN, band_s = NAN, band_err = NAN, band_cert = NAN, band_kpq = NAN,
         band_ratio64 = NAN;
  std::int64_t w = 0, band_w = 0;
  std::int64_t ref_rows = 0;  // query rows the errors are measured on
};

// One row of float64 exact ALiBi attention (symmetric) from its definition,
// independent of the kernels it measures: softmax over every key of
// q_i·k_j / sqrt(d) - |i - j| / sigma, weights on v.
Eigen::RowVectorXd exact_row(const QkvData& data, Eigen::Index i, double sigma) {
  const Eigen::Index n = data.k.data.rows();
  const double scale = 1.0 / std::sqrt(static_cast<double>(data.q.data.cols()));
  Eigen::ArrayXd logit = (data.k.data * data.q.data.row(i).transpose()).array() * scale;
  for (Eigen::Index j = 0; j < n; ++j) logit[j] -= static_cast<double>(std::abs(i - j)) / sigma;
  const Eigen::ArrayXd w = (logit - logit.maxCoeff()).exp();
  return (w.matrix().transpose() * data.v.data) / w.sum();
}

// The float64 reference on evenly spaced 64-row tiles of query rows.
struct Reference {
  std::vector<std::int64_t> tiles;  // tile indices
  RowMatrix<double> output;         // rows outside the tiles left unset
  std::int64_t rows = 0;            // query rows covered

  Reference(const QkvData& data, std::int64_t n, std::int64_t d, double sigma,
            std::int64_t reference_rows, int threads)
      : output(n, d) {
    const std::int64_t tiles_total = (n + kQueryTile - 1) / kQueryTile;
    const std::int64_t count =
        std::min<std::int64_t>(tiles_total, (reference_rows + kQueryTile - 1) / kQueryTile);
    for (std::int64_t t = 0; t < count; ++t) tiles.push_back(t * tiles_total / count);
    for_each_unit(count, threads, [&](std::int64_t u, int) {
      const Eigen::Index q0 = tiles[u] * kQueryTile,
                         q1 = std::min<Eigen::Index>(n, q0 + kQueryTile);
      for (Eigen::Index i = q0; i < q1; ++i) output.row(i) = exact_row(data, i, sigma);
    });
    for (auto t : tiles) rows += std::min<std::int64_t>(n, (t + 1) * kQueryTile) - t * kQueryTile;
  }

  // Largest |out - reference| over the tiles' rows.
  double error(const RowMatrix<float>& out) const {
    const Eigen::Index n = output.rows();
    double e = 0;
    for (auto t : tiles) {
      const Eigen::Index q0 = t * kQueryTile, len = std::min<Eigen::Index>(n, q0 + kQueryTile) - q0;
      e = std::max(e, (out.middleRows(q0, len).cast<double>() - output.middleRows(q0, len))
                          .cwiseAbs()
                          .maxCoeff());
    }
    return e;
  }

  // The certificate is about real arithmetic; float32 rounding (~1e-6, as
  // for dense exact) comes on top of it. In float64 the rounding is ~1e-16,
  // so there the error must be below each row's own bound: the worst ratio
  // over the sampled rows (<= 1; not timed).
  double worst_ratio_to_bound(const BandAttentionResult<double>& band64) const {
    const Eigen::Index n = output.rows();
    double ratio = 0;
    for (auto t : tiles)
      for (Eigen::Index i = t * kQueryTile; i < std::min<Eigen::Index>(n, (t + 1) * kQueryTile);
           ++i) {
        const double err = (band64.output.row(i) - output.row(i)).cwiseAbs().maxCoeff();
        const double bound = band64.row_bound[i];
        ratio = std::max(ratio, bound > 0 ? err / bound : err > 0 ? INFINITY : 0.0);
      }
    return ratio;
  }
};

// Times every method at one n and measures its error against the reference.
Row measure(const AttentionBenchOptions& o, const HashParameters& hash, int threads) {
  const std::int64_t n = hash.n();
  const QkvData data = synthetic_qkv(o.seed, n, o.d, 1.0);
  const RowMatrix<float> q = data.q.data.cast<float>(), k = data.k.data.cast<float>(),
                         v = data.v.data.cast<float>();
  const MaskMean mask(n, draw_hashes(o.seed, 0, hash), Form::kSymmetric);
  const AttentionOptions opts{.threads = threads};
  Row row;
  row.n = n;
  row.kpq = lsh_keys_per_query(mask);
  row.w = equal_cost_half_width(row.kpq, Form::kSymmetric);
  const Reference ref(data, n, o.d, o.sigma, o.reference_rows, threads);
  row.ref_rows = ref.rows;
  RowMatrix<float> out;
  if (n <= o.exact_max_n) {
    row.exact_s = timed(o.repeats, [&] {
      out = exact_alibi_attention<float>(q, k, v, o.sigma, Form::kSymmetric, opts);
    });
    row.exact_err = ref.error(out);
  }
  BandAttentionResult<float> band;
  const BandAttentionOptions band_opts{.attention = opts};
  row.band_s = timed(o.repeats, [&] {
    band = band_exact_attention<float>(q, k, v, o.sigma, Form::kSymmetric, band_opts);
  });
  row.band_err = ref.error(band.output);
  row.band_cert = band.certificate();
  row.band_kpq = band.keys_per_query;
  row.band_w = *std::max_element(band.tile_half_width.begin(), band.tile_half_width.end());
  row.band_ratio64 = ref.worst_ratio_to_bound(band_exact_attention<double>(
      data.q.data, data.k.data, data.v.data, o.sigma, Form::kSymmetric, band_opts));
  row.lsh_s = timed(o.repeats, [&] { out = lsh_attention<float>(q, k, v, mask, opts); });
  row.lsh_err = ref.error(out);
  row.window_s = timed(o.repeats, [&] {
    out = sliding_window_attention<float>(q, k, v, o.sigma, row.w, Form::kSymmetric, opts);
  });
  row.window_err = ref.error(out);
  return row;
}

// The four table rows (one per method) of one n; a method not timed (NaN) has none.
void write_rows(CsvWriter& table, const Row& row, std::int64_t d, int threads) {
  const std::int64_t n = row.n, ref_rows = row.ref_rows;
  auto line = [&](const char* method, double secs, double err, double kpq, std::int64_t w,
                  double gflops, double certificate = NAN, double ratio = NAN) {
    if (std::isnan(secs)) return;
    // Empty fields: what does not apply to the method.
    const auto unless_nan = [](double x) { return std::isnan(x) ? "" : csv_cell(x); };
    table.row_of(n, method, secs, err, ref_rows, kpq, w < 0 ? "" : csv_cell(w), unless_nan(gflops),
                 threads, unless_nan(certificate), unless_nan(ratio));
  };
  const double exact_gflops = exact_attention_flops(n, d, Form::kSymmetric) / row.exact_s / 1e9;
  line("exact", row.exact_s, row.exact_err, static_cast<double>(n), -1, exact_gflops);
  line("band", row.band_s, row.band_err, row.band_kpq, row.band_w, NAN, row.band_cert,
       row.band_ratio64);
  line("lsh", row.lsh_s, row.lsh_err, row.kpq, -1, NAN);
  line("window", row.window_s, row.window_err, window_keys_per_query(n, row.w, Form::kSymmetric),
       row.w, NAN);
}

// The table on stdout, and the slopes of log time against log n.
void print_summary(const AttentionBenchOptions& o, const std::vector<Row>& rows, int threads) {
  fmt::print(bench_report(o.out), 
      "bench attention: float32, d={}, sigma={}, s={}, threads={}, symmetric; errors vs "
      "float64 exact on {} sampled rows\n",
      o.d, format_value(o.sigma), o.s, threads,
      std::min<std::int64_t>(o.reference_rows, o.n.back()));
  fmt::print(bench_report(o.out), 
      "{:>7} {:>10} {:>10} {:>10} {:>10} {:>10} {:>9} {:>7} {:>10} {:>10} {:>10} {:>11} {:>10} "
      "{:>10} {:>8}\n",
      "n", "exact_s", "band_s", "lsh_s", "window_s", "exact/band", "exact/lsh", "w", "err_exact",
      "err_band", "cert_band", "err/cert64", "err_lsh", "err_window", "GFLOP/s");
  std::vector<double> ln_n, ln_e, ln_l, ln_w, ln_ne, ln_b;
  for (const auto& r : rows) {
    fmt::print(bench_report(o.out), 
        "{:>7} {:>10.4g} {:>10.4g} {:>10.4g} {:>10.4g} {:>10.1f} {:>9.1f} {:>7} {:>10.3g} "
        "{:>10.3g} {:>10.3g} {:>11.3g} {:>10.3g} {:>10.3g} {:>8.1f}\n",
        r.n, r.exact_s, r.band_s, r.lsh_s, r.window_s, r.exact_s / r.band_s, r.exact_s / r.lsh_s,
        r.w, r.exact_err, r.band_err, r.band_cert, r.band_ratio64, r.lsh_err, r.window_err,
        exact_attention_flops(r.n, o.d, Form::kSymmetric) / r.exact_s / 1e9);
    ln_n.push_back(std::log(double(r.n)));
    ln_b.push_back(std::log(r.band_s));
    ln_l.push_back(std::log(r.lsh_s));
    ln_w.push_back(std::log(r.window_s));
    if (!std::isnan(r.exact_s)) {
      ln_ne.push_back(std::log(double(r.n)));
      ln_e.push_back(std::log(r.exact_s));
    }
  }
  auto slope = [](const std::vector<double>& x, const std::vector<double>& y) {
    return x.size() >= 2 ? fmt::format("{:.3f}", stats::least_squares_slope(x, y)) : std::string("n/a");
  };
  fmt::print(bench_report(o.out), "slope of log time vs log n: exact {}, band {}, lsh {}, window {}\n",
             slope(ln_ne, ln_e), slope(ln_n, ln_b), slope(ln_n, ln_l), slope(ln_n, ln_w));
}

int run_attention_bench(const AttentionBenchOptions& o) {
  const std::vector<HashParameters> hashes = validate_attention_bench(o);
  const int threads = resolve_threads(o.threads);
  AtomicFile file(o.out, "--out");
  CsvWriter table({"n", "method", "seconds", "max_error", "error_rows", "keys_per_query",
                   "half_width", "gflops", "threads", "certificate", "error_over_certificate"});
  std::vector<Row> rows;
  for (const HashParameters& hash : hashes) {
    rows.push_back(measure(o, hash, threads));
    write_rows(table, rows.back(), o.d, threads);
    std::fprintf(stderr, "bench attention: n=%lld done\n", static_cast<long long>(hash.n()));
  }
  file.write(table.take());
  file.commit();
  print_summary(o, rows, threads);
  fmt::print(bench_report(o.out), "wrote {}\n", o.out);
  return 0;
}

}  // namespace attention_bench

Action add_attention_bench(CLI::App& bench_parent) {
  auto o = std::make_shared<attention_bench::AttentionBenchOptions>();
  auto* cmd = bench_parent.add_subcommand(
      "attention",
      "Time exact, certified band-exact, positional-LSH and equal-cost sliding-window attention "
      "(float32)");
  cmd->add_option("--n", o->n, "Context lengths (list)")->delimiter(',')->capture_default_str();
  cmd->add_option("--d", o->d, "Head dimension")->capture_default_str();
  cmd->add_option("--sigma", o->sigma, "ALiBi scale")->capture_default_str();
  cmd->add_option("--s", o->s, "Number of hashes")->capture_default_str();
  cmd->add_option("--seed", o->seed, "Random seed")->capture_default_str();
  cmd->add_option("--threads", o->threads, "Threads (0: all hardware threads)")
      ->capture_default_str();
  cmd->add_option("--repeats", o->repeats, "Timed repetitions, best kept (runs over 5 s: one)")
      ->capture_default_str();
  cmd->add_option("--reference-rows", o->reference_rows,
                  "Query rows (in 64-row tiles) on which errors vs float64 are measured")
      ->capture_default_str();
  cmd->add_option("--exact-max-n", o->exact_max_n, "Largest n at which exact attention is timed")
      ->capture_default_str();
  cmd->add_option("--out", o->out, "Output CSV")->capture_default_str();
  return [o] { return attention_bench::run_attention_bench(*o); };
}

}  // namespace poslsh
