// `poslsh frontier`: where positional LSH could pay, per kernel (docs/MATH.md
// §10). For a relative-position kernel k, n and random Q, K, V, the output
// error of kernel-biased attention (weights k(|i - j|) e^{q_i·k_j / sqrt d})
// computed three ways on a sample of query rows, against keys per query:
//   exact   every key, the reference;
//   lsh     the mean of s block masks of the kernel's grids in place of k
//           (the attention poslsh's lsh_attention computes for ALiBi), s the
//           first hashes of the trial; cost: its keys per query, sum over the
//           hashes of the query's block size, averaged over all n queries;
//   window  the exact weights of the keys within half-width w of the query,
//           w the largest with 2w + 1 at most the lsh row's keys per query
//           (equal cost or less).
// One row per (trial, method, s); a trial draws its own Q, K, V and hashes,
// or, with Q, K, V from files (a trained model's, `--qkv DIR`), its own
// hashes on the head's Q, K, V.
// The check (frontier_checks.h) says per (kernel, sigma, n) which wins at
// equal cost.
#pragma once

#include <poslsh/kernel.h>

#include <cstdint>
#include <vector>

#include "runner/sweep.h"

namespace poslsh {

const std::vector<std::string>& frontier_columns();

struct QkvData;

struct FrontierSettings {
  std::int64_t n = 4096, d = 16, rows = 128, trials = 12;
  std::vector<std::int64_t> s = {1, 4, 16, 64};
  double qk_scale = 1.0;
  std::uint64_t seed = 0;
  // Q, K, V from files (n and d are theirs) and the head measured; null:
  // synthetic, drawn per trial.
  const QkvData* data = nullptr;
  std::int64_t head = 0;
};

// The rows of one (kernel, n) cell in table order: trial, then s, then lsh
// before window. `sigma` is the kernel's scale as the table shows it.
std::vector<CsvRow> frontier_cell_rows(const Kernel& kernel, double sigma,
                                       const FrontierSettings& settings);

// The query rows a cell measures: `rows` evenly spaced over [0, n).
std::vector<std::int64_t> frontier_queries(std::int64_t n, std::int64_t rows);

// The seed of trial t's Q, K, V (synthetic_qkv); its hashes are
// draw_kernel_hashes(kernel, seed, t, s).
std::uint64_t frontier_qkv_seed(std::uint64_t seed, std::int64_t trial);

}  // namespace poslsh
