// `poslsh bench convergence`: the speed claims of the convergence experiment,
// measured side by side in one run (ratios, not absolute times, are the result).
#include <fmt/format.h>
#include <poslsh/max_error.h>
#include <poslsh/spectral_error.h>
#include <sys/resource.h>
#include <unistd.h>

#include <Eigen/Dense>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <vector>

#include "experiments/bench_timing.h"
#include "experiments/convergence/convergence.h"
#include "runner/child_process.h"
#include "runner/cli_common.h"
#include "runner/data_files.h"

namespace poslsh {

// A named namespace, not an anonymous one: the runner is a unity build.
namespace convergence_bench {

// A convergence row's cell by column name.
const std::string& cell(const CsvRow& row, const std::string& name) {
  const auto& cols = convergence_columns();
  return row[static_cast<std::size_t>(std::find(cols.begin(), cols.end(), name) - cols.begin())];
}

// Whole rows at n_large, one per seed (trial 0), then their median and worst.
void time_rows_over_seeds(const ConvergenceBenchOptions& o) {
  fmt::print(
      "# whole rows at n={} sigma={} s={} over {} seeds (trial 0): spectral (tolerance "
      "1e-6, certified width <= 1e-2 at q = 1e-6), max-norm and row-sum errors; {} thread(s)\n",
      o.n_large, o.sigma, o.s, o.row_seeds.size(), o.threads);
  fmt::print("{:>6} {:>10} {:>8} {:>10} {:>12} {:>14} {:>12} {:>9}\n", "seed", "seconds", "steps",
             "matvecs", "accuracy", "spectral", "width", "status");
  std::vector<double> secs;
  for (std::uint64_t seed : o.row_seeds) {
    const auto hashes = draw_hashes(seed, 0, o.s, o.sigma);
    ConvergenceSettings settings;
    settings.seed = seed;
    settings.threads = o.threads;
    const double t0 = now_seconds();
    const CsvRow row = convergence_row(o.n_large, o.sigma, 0, hashes, settings);
    const double sec = now_seconds() - t0;
    secs.push_back(sec);
    const auto at = [&](const char* c) { return cell(row, c); };
    const double lower = std::stod(at("spectral_lower")), upper = std::stod(at("spectral_upper"));
    fmt::print("{:>6} {:>10.3f} {:>8} {:>10} {:>12.2e} {:>14.10g} {:>12.2e} {:>9}\n", seed, sec,
               at("lanczos_iterations"), at("lanczos_matvecs"), std::stod(at("spectral_accuracy")),
               lower, upper / lower - 1, at("status"));
    std::fflush(stdout);
  }
  std::vector<double> sorted = secs;
  std::sort(sorted.begin(), sorted.end());
  const std::size_t m = sorted.size();
  const double median = m % 2 ? sorted[m / 2] : 0.5 * (sorted[m / 2 - 1] + sorted[m / 2]);
  fmt::print("rows: median {:.3f} s, worst {:.3f} s, peak RSS {:.0f} MiB\n", median, sorted.back(),
             peak_rss_mib());
}

// scipy's eigsh (ARPACK) on a numpy operator of the same cost, against a whole
// poslsh row on one thread, per seed at n_scipy: scripts/bench_scipy_eigsh.py,
// run as a child on the same hashes (it exports them with `poslsh sample`).
// Skipped with a line saying why when the script or scipy is missing.
void scipy_rows(const ConvergenceBenchOptions& o) {
  namespace fs = std::filesystem;
  const fs::path relative = fs::path("scripts") / "bench_scipy_eigsh.py";
  const auto data = find_data_dir(relative);
  const fs::path script = data ? *data / relative : relative;
  fmt::print(
      "# scipy eigsh baseline (ARPACK, tol 1e-8, numpy operator) vs a whole poslsh row on 1 "
      "thread, n={} sigma={} s={}: {} {}\n",
      o.n_scipy, o.sigma, o.s, o.python, script.string());
  if (!data) {
    fmt::print("  skipped: the script is not installed beside this binary (share/poslsh)\n");
    return;
  }
  fmt::print("{:>6} {:>12} {:>9} {:>12} {:>8} {:>16} {:>16} {:>10}\n", "seed", "eigsh_s", "matvecs",
             "poslsh_s", "ratio", "eigsh_value", "poslsh_value", "rel_diff");
  for (std::uint64_t seed : o.scipy_seeds) {
    const fs::path csv =
        fs::temp_directory_path() / fmt::format("poslsh-bench-scipy-{}-{}.csv", ::getpid(), seed);
    const int code = run_child(
        {o.python, script.string(), "--n", std::to_string(o.n_scipy), "--sigma",
         format_value(o.sigma), "--s", std::to_string(o.s), "--seed", std::to_string(seed),
         "--trials", "1", "--poslsh", self_executable(), "--csv", csv.string()},
        true);
    if (code != 0 || !fs::exists(csv)) {
      std::error_code ignored;
      fs::remove(csv, ignored);  // whatever a failed script left
      fmt::print(
          "{:>6}  failed (exit {}): needs {} with numpy and scipy (--python); run the script by "
          "hand to see why\n",
          seed, code, o.python);
      continue;
    }
    const CsvTable t = CsvTable::read(csv.string());
    fs::remove(csv);
    const auto at = [&](const char* c) { return std::stod(t.row(0)[t.column(c)]); };
    const double a = at("eigsh_value"), b = at("poslsh_value");
    fmt::print("{:>6} {:>12.3f} {:>9.0f} {:>12.3f} {:>7.1f}x {:>16.10g} {:>16.10g} {:>10.2e}\n",
               seed, at("eigsh_seconds"), at("eigsh_matvecs"), at("poslsh_row_seconds"),
               at("ratio"), a, b, std::abs(a - b) / a);
    std::fflush(stdout);
  }
}

// One line of the timing table.
void line(const std::string& what, std::int64_t n, std::uint64_t trial, double sec,
          std::int64_t matvecs, double acc, double value) {
  fmt::print("{:<34} {:>8} {:>6} {:>10.3f} {:>10} {:>9.0f} {:>12.2e} {:>14.10g}\n", what, n, trial,
             sec, matvecs, peak_rss_mib(), acc, value);
  std::fflush(stdout);
}

std::string with_threads(const std::string& what, int t) {
  return fmt::format("{} ({} thread{})", what, t, t == 1 ? "" : "s");
}

// Prints the speed-up of `threads` over one thread; returns whether the
// results were the same bits.
bool compare_threads(int threads, double sec1, double secn, bool same) {
  fmt::print("  {} threads / 1 thread: {:.2f}x faster; results bit-identical: {}\n", threads,
             sec1 / secn, same ? "yes" : "NO");
  return same;
}

// Large n: the operator build, the spectral error (default accuracy) and the
// max/row-sum errors, each on one thread and on o.threads side by side: the
// ratio is the threads' speed-up, and the results must be the same bits.
// Returns false when they differ (a defect).
bool time_large_n(const ConvergenceBenchOptions& o, std::uint64_t trial) {
  const auto hashes = draw_hashes(o.seed, trial, o.s, o.sigma);
  double t0 = now_seconds();
  const ErrorOperator e(o.n_large, hashes, o.sigma);
  line("operator build", o.n_large, trial, now_seconds() - t0, 0, 0, 0);
  const int threads[2] = {1, o.threads};
  SpectralErrorResult r[2];
  double sec[2];
  for (int pass = 0; pass < 2; ++pass) {
    t0 = now_seconds();
    r[pass] = spectral_error(e, {.seed = o.seed, .trial = trial, .threads = threads[pass]});
    sec[pass] = now_seconds() - t0;
    line(with_threads(fmt::format("spectral error, {}", to_string(r[pass].status)), threads[pass]),
         o.n_large, trial, sec[pass], r[pass].matvecs, r[pass].accuracy, r[pass].lower);
  }
  fmt::print("  certified upper end {:.10g} (relative width {:.2e}, q = 1e-6)\n", r[1].upper,
             r[1].upper / r[1].lower - 1);
  bool same =
      compare_threads(o.threads, sec[0], sec[1],
                      r[0].lower == r[1].lower && r[0].upper == r[1].upper &&
                          r[0].accuracy == r[1].accuracy && r[0].iterations == r[1].iterations);
  EntrywiseError m[2];
  for (int pass = 0; pass < 2; ++pass) {
    t0 = now_seconds();
    m[pass] = entrywise_error(e, threads[pass]);
    sec[pass] = now_seconds() - t0;
    line(with_threads("max + row-sum error", threads[pass]), o.n_large, trial, sec[pass], 0, 0,
         m[pass].max_error);
  }
  return compare_threads(o.threads, sec[0], sec[1],
                         m[0].max_error == m[1].max_error && m[0].inf_error == m[1].inf_error) &&
         same;
}

// A whole convergence row at n_row, and the Spectra reference on it.
void time_whole_row(const ConvergenceBenchOptions& o, std::uint64_t trial) {
  const auto hashes = draw_hashes(o.seed, trial, o.s, o.sigma);
  ConvergenceSettings settings;
  settings.seed = o.seed;
  settings.threads = o.threads;
  double t0 = now_seconds();
  const CsvRow row = convergence_row(o.n_row, o.sigma, trial, hashes, settings);
  const double row_sec = now_seconds() - t0;
  line("whole row (" + cell(row, "status") + ")", o.n_row, trial, row_sec,
       std::stoll(cell(row, "lanczos_matvecs")), std::stod(cell(row, "spectral_accuracy")),
       std::stod(cell(row, "spectral_lower")));
  if (o.no_spectra) return;
  const ErrorOperator e(o.n_row, hashes, o.sigma);
  t0 = now_seconds();
  const SpectralErrorResult ref =
      spectral_error_spectra(e, 1e-10, 40, 100000, true, {.seed = o.seed, .trial = trial});
  const double sec = now_seconds() - t0;
  line("Spectra reference (tol 1e-10)", o.n_row, trial, sec, ref.matvecs, ref.accuracy, ref.value);
  const double lanczos = std::stod(cell(row, "spectral_lower"));
  fmt::print(
      "  measured relative error of the row's value vs reference: {:.3e} (reported "
      "accuracy {})\n",
      std::abs(ref.value - lanczos) / ref.value, cell(row, "spectral_accuracy"));
}

// Dense symmetric eigensolver at n_dense vs the matrix-free solve, same run.
void time_dense_comparison(const ConvergenceBenchOptions& o, std::uint64_t trial) {
  const auto hashes = draw_hashes(o.seed, trial, o.s, o.sigma);
  const ErrorOperator e(o.n_dense, hashes, o.sigma);
  double t0 = now_seconds();
  const SpectralErrorResult r = spectral_error(e, {.seed = o.seed, .trial = trial});
  const double lanczos_sec = now_seconds() - t0;
  t0 = now_seconds();
  const Eigen::MatrixXd d = e.dense();
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es(d, Eigen::EigenvaluesOnly);
  const double dense_value = es.eigenvalues().cwiseAbs().maxCoeff();
  const double dense_sec = now_seconds() - t0;
  line("spectral error, matrix-free", o.n_dense, trial, lanczos_sec, r.matvecs, r.accuracy,
       r.lower);
  line("spectral error, dense Eigen", o.n_dense, trial, dense_sec, 0, 0, dense_value);
  fmt::print("  dense / matrix-free time ratio: {:.1f}; relative difference {:.3e}\n",
             dense_sec / lanczos_sec, std::abs(dense_value - r.lower) / dense_value);
}

}  // namespace convergence_bench

int run_convergence_bench(const ConvergenceBenchOptions& o) {
  using namespace convergence_bench;
  bool differs = false;  // a threaded result that is not the one-thread result's bits
  if (!o.row_seeds.empty()) time_rows_over_seeds(o);
  if (!o.scipy_seeds.empty()) scipy_rows(o);
  fmt::print("# poslsh bench convergence: sigma={} s={} seed={} trials={}\n", o.sigma, o.s, o.seed,
             o.trials);
  fmt::print("{:<34} {:>8} {:>6} {:>10} {:>10} {:>9} {:>12} {:>14}\n", "what", "n", "trial",
             "seconds", "matvecs", "rss_MiB", "accuracy", "value");
  for (std::uint64_t trial = 0; trial < static_cast<std::uint64_t>(o.trials); ++trial) {
    if (!time_large_n(o, trial)) differs = true;
    time_whole_row(o, trial);
    time_dense_comparison(o, trial);
  }
  if (differs) {
    std::fprintf(stderr,
                 "poslsh bench convergence: error: a threaded result differs from the one-thread "
                 "result (see the NO lines); please report it with `poslsh --version`\n");
    return 1;
  }
  return 0;
}

}  // namespace poslsh
