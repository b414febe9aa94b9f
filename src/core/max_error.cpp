#include <poslsh/argument_error.h>
#include <poslsh/max_error.h>

#include <algorithm>
#include <cmath>
#include <exception>
#include <stdexcept>
#include <thread>
#include <vector>

namespace poslsh {

namespace {

// Σ_{t = t0}^{t0 + m - 1} exp(-t / sigma), m >= 0.
double geometric_sum(std::int64_t t0, std::int64_t m, double sigma) {
  if (m <= 0) return 0.0;
  return std::exp(-static_cast<double>(t0) / sigma) * std::expm1(-static_cast<double>(m) / sigma) /
         std::expm1(-1.0 / sigma);
}

}  // namespace

EntrywiseError entrywise_error(const MaskMean& mask, double sigma, int threads) {
  check::positive_finite("sigma", sigma);
  check::at_least("threads", threads, 1);
  if (mask.num_hashes() >= (std::int64_t{1} << 31))
    throw std::invalid_argument("entrywise_error: at most 2^31 - 1 hashes");
  const std::int64_t n = mask.rows();
  const std::int64_t s = mask.num_hashes();
  const std::int64_t big = mask.largest_block();
  const bool causal = mask.form() == Form::kCausal;
  EntrywiseError out;
  out.largest_block = big;
  if (n == 1) return out;

  // Blocks of length >= 2, ordered by decreasing length (counting sort), so the
  // blocks longer than t are a prefix of the list.
  std::vector<std::int64_t> count_by_len(big + 2, 0);
  for (std::int64_t k = 0; k < s; ++k) {
    const auto st = mask.blocks(k);
    for (std::size_t b = 0; b + 1 < st.size(); ++b) ++count_by_len[st[b + 1] - st[b]];
  }
  // first[L] = index of the first block of length L in the list.
  std::vector<std::int64_t> first(big + 2, 0);
  for (std::int64_t len = big - 1; len >= 2; --len)
    first[len] = first[len + 1] + count_by_len[len + 1];
  const std::int64_t num_long = big >= 2 ? first[2] + count_by_len[2] : 0;
  std::vector<std::int64_t> start(num_long), length(num_long);
  {
    std::vector<std::int64_t> pos(first);
    for (std::int64_t k = 0; k < s; ++k) {
      const auto st = mask.blocks(k);
      for (std::size_t b = 0; b + 1 < st.size(); ++b) {
        const std::int64_t len = st[b + 1] - st[b];
        if (len < 2) continue;
        start[pos[len]] = st[b];
        length[pos[len]] = len;
        ++pos[len];
      }
    }
  }

  // The offsets t < t_shared (blocks may be shared) are split into two chunks
  // of about equal work (n - t + blocks longer than t each), always the same
  // two for the same mask: each chunk adds its entries to its own row sums,
  // and the chunks' sums are added in a fixed order, so the results are the
  // same whether the chunks run on one thread or two.
  const std::int64_t t_shared = std::min(big, n);
  const auto work = [&](std::int64_t t) {
    return static_cast<double>(n - t) + static_cast<double>(first[t + 1] + count_by_len[t + 1]);
  };
  double total = 0.0;
  for (std::int64_t t = 1; t < t_shared; ++t) total += work(t);
  std::int64_t t_mid = 1;
  for (double half = 0.0; t_mid < t_shared && half + work(t_mid) <= 0.5 * total; ++t_mid)
    half += work(t_mid);
  struct Chunk {
    std::int64_t t_begin, t_end;
    std::vector<double> row;
    double max_error = 0.0;
  };
  Chunk chunks[2] = {{1, t_mid, {}, 0.0}, {t_mid, t_shared, {}, 0.0}};
  const double ds = static_cast<double>(s);
  const auto run_chunk = [&](Chunk& chunk) {
    chunk.row.assign(static_cast<std::size_t>(n), 0.0);
    // Counts change by at most s per position: 32 bits hold the differences
    // (s < 2^31 is checked above) and halve the bytes streamed per offset.
    std::vector<std::int32_t> diff(static_cast<std::size_t>(n + 1));
    // |c / s - r^t| for every count c = 0..s at this offset: the same
    // expression as the dense oracle, looked up instead of divided per entry.
    std::vector<double> entry(static_cast<std::size_t>(s + 1));
    for (std::int64_t t = chunk.t_begin; t < chunk.t_end; ++t) {
      const std::int64_t active = first[t + 1] + count_by_len[t + 1];  // blocks of length > t
      std::fill(diff.begin(), diff.begin() + (n - t) + 1, 0);
      for (std::int64_t q = 0; q < active; ++q) {
        ++diff[start[q]];
        --diff[start[q] + length[q] - t];
      }
      const double rt = std::exp(-static_cast<double>(t) / sigma);
      for (std::int64_t c = 0; c <= s; ++c)
        entry[static_cast<std::size_t>(c)] = std::abs(static_cast<double>(c) / ds - rt);
      std::int64_t c = 0, cmin = s, cmax = 0;
      double* row = chunk.row.data();
      const double* e_of = entry.data();
      // Entry (i+t, i) of the lower triangle; (i, i+t) too when symmetric.
      if (causal) {
        for (std::int64_t i = 0; i < n - t; ++i) {
          c += diff[i];
          cmin = std::min(cmin, c);
          cmax = std::max(cmax, c);
          row[i + t] += e_of[c];
        }
      } else {
        for (std::int64_t i = 0; i < n - t; ++i) {
          c += diff[i];
          cmin = std::min(cmin, c);
          cmax = std::max(cmax, c);
          const double e = e_of[c];
          row[i + t] += e;
          row[i] += e;
        }
      }
      chunk.max_error = std::max({chunk.max_error, std::abs(static_cast<double>(cmax) / ds - rt),
                                  std::abs(static_cast<double>(cmin) / ds - rt)});
    }
  };
  if (threads >= 2 && t_mid < t_shared) {
    std::exception_ptr error;
    std::thread second([&] {
      try {
        run_chunk(chunks[1]);
      } catch (...) {
        error = std::current_exception();
      }
    });
    run_chunk(chunks[0]);
    second.join();
    if (error) std::rethrow_exception(error);
  } else {
    run_chunk(chunks[0]);
    run_chunk(chunks[1]);
  }
  std::vector<double>& row = chunks[0].row;
  for (std::int64_t i = 0; i < n; ++i) row[i] += chunks[1].row[i];
  double max_error = std::max(chunks[0].max_error, chunks[1].max_error);
  // Offsets t >= t0 = max(B, 1): entries -exp(-t/sigma), largest at t = t0.
  const std::int64_t t0 = std::max<std::int64_t>(big, 1);
  if (t0 < n) max_error = std::max(max_error, std::exp(-static_cast<double>(t0) / sigma));
  double inf_error = 0.0;
  for (std::int64_t i = 0; i < n; ++i) {
    double r = row[i] + geometric_sum(t0, i - t0 + 1, sigma);  // j = i - t, t in [t0, i]
    if (!causal) r += geometric_sum(t0, n - i - t0, sigma);    // j = i + t, t in [t0, n-1-i]
    inf_error = std::max(inf_error, r);
  }
  out.max_error = max_error;
  out.inf_error = inf_error;
  return out;
}

}  // namespace poslsh
