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

namespace {

// The blocks of length >= 2 of every hash, ordered by decreasing length
// (counting sort), so the blocks longer than t are a prefix of the list:
// first[L] is the index of the first block of length L, and
// longer_than(t) = first[t + 1] + count_by_len[t + 1] counts them.
struct BlocksByLength {
  std::vector<std::int64_t> count_by_len, first, start, length;
  std::int64_t longer_than(std::int64_t t) const { return first[t + 1] + count_by_len[t + 1]; }
};

BlocksByLength blocks_by_length(const MaskMean& mask, std::int64_t big) {
  const std::int64_t s = mask.num_hashes();
  BlocksByLength by;
  by.count_by_len.assign(static_cast<std::size_t>(big + 2), 0);
  for (std::int64_t k = 0; k < s; ++k) {
    const auto st = mask.blocks(k);
    for (std::size_t b = 0; b + 1 < st.size(); ++b) ++by.count_by_len[st[b + 1] - st[b]];
  }
  by.first.assign(static_cast<std::size_t>(big + 2), 0);
  for (std::int64_t len = big - 1; len >= 2; --len)
    by.first[len] = by.first[len + 1] + by.count_by_len[len + 1];
  const std::int64_t num_long = big >= 2 ? by.first[2] + by.count_by_len[2] : 0;
  by.start.resize(static_cast<std::size_t>(num_long));
  by.length.resize(static_cast<std::size_t>(num_long));
  std::vector<std::int64_t> pos(by.first);
  for (std::int64_t k = 0; k < s; ++k) {
    const auto st = mask.blocks(k);
    for (std::size_t b = 0; b + 1 < st.size(); ++b) {
      const std::int64_t len = st[b + 1] - st[b];
      if (len < 2) continue;
      by.start[pos[len]] = st[b];
      by.length[pos[len]] = len;
      ++pos[len];
    }
  }
  return by;
}

// The offsets [t_begin, t_end) of E one chunk covers: its entries' row sums
// and their largest |entry|.
struct OffsetChunk {
  std::int64_t t_begin, t_end;
  std::vector<double> row;
  double max_error = 0.0;
};

// The offsets t < t_shared (blocks may be shared) split into two chunks of
// about equal work (n - t + blocks longer than t each), always the same two
// for the same mask: each chunk adds its entries to its own row sums, and the
// chunks' sums are added in a fixed order, so the results are the same whether
// the chunks run on one thread or two.
std::int64_t balanced_offset_split(const BlocksByLength& by, std::int64_t n,
                                   std::int64_t t_shared) {
  const auto work = [&](std::int64_t t) {
    return static_cast<double>(n - t) + static_cast<double>(by.longer_than(t));
  };
  double total = 0.0;
  for (std::int64_t t = 1; t < t_shared; ++t) total += work(t);
  std::int64_t t_mid = 1;
  for (double half = 0.0; t_mid < t_shared && half + work(t_mid) <= 0.5 * total; ++t_mid)
    half += work(t_mid);
  return t_mid;
}

// Adds the entries of the chunk's offsets to its row sums and maximum.
void add_offset_entries(OffsetChunk& chunk, const BlocksByLength& by, std::int64_t n,
                        std::int64_t s, double sigma, bool causal) {
  const double ds = static_cast<double>(s);
  chunk.row.assign(static_cast<std::size_t>(n), 0.0);
  // Counts change by at most s per position: 32 bits hold the differences
  // (s < 2^31 is checked by entrywise_error) and halve the bytes streamed per
  // offset.
  std::vector<std::int32_t> diff(static_cast<std::size_t>(n + 1));
  // |c / s - r^t| for every count c = 0..s at this offset: the same
  // expression as the dense oracle, looked up instead of divided per entry.
  std::vector<double> entry(static_cast<std::size_t>(s + 1));
  for (std::int64_t t = chunk.t_begin; t < chunk.t_end; ++t) {
    const std::int64_t active = by.longer_than(t);  // blocks of length > t
    std::fill(diff.begin(), diff.begin() + (n - t) + 1, 0);
    for (std::int64_t q = 0; q < active; ++q) {
      ++diff[by.start[q]];
      --diff[by.start[q] + by.length[q] - t];
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
}

// Runs `run` on both chunks, on two threads when `two_threads`.
template <class Run>
void run_offset_chunks(OffsetChunk (&chunks)[2], bool two_threads, const Run& run) {
  if (!two_threads) {
    run(chunks[0]);
    run(chunks[1]);
    return;
  }
  std::exception_ptr error;
  std::thread second([&] {
    try {
      run(chunks[1]);
    } catch (...) {
      error = std::current_exception();
    }
  });
  run(chunks[0]);
  second.join();
  if (error) std::rethrow_exception(error);
}

// entrywise_error with sigma checked by the caller.
EntrywiseError mask_errors(const MaskMean& mask, double sigma, int threads) {
  check::at_least("threads", threads, 1);
  // Co-binning counts are differenced in 32 bits; s is the caller's choice.
  if (mask.num_hashes() >= (std::int64_t{1} << 31))
    throw ArgumentError("s", "must be an integer < 2^31 for the entrywise errors",
                        std::to_string(mask.num_hashes()));
  const std::int64_t n = mask.rows();
  const std::int64_t s = mask.num_hashes();
  const std::int64_t big = mask.largest_block();
  const bool causal = mask.form() == Form::kCausal;
  EntrywiseError out;
  out.largest_block = big;
  if (n == 1) return out;

  const BlocksByLength by = blocks_by_length(mask, big);
  const std::int64_t t_shared = std::min(big, n);
  const std::int64_t t_mid = balanced_offset_split(by, n, t_shared);
  OffsetChunk chunks[2] = {{1, t_mid, {}, 0.0}, {t_mid, t_shared, {}, 0.0}};
  run_offset_chunks(chunks, threads >= 2 && t_mid < t_shared, [&](OffsetChunk& chunk) {
    add_offset_entries(chunk, by, n, s, sigma, causal);
  });
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

}  // namespace

EntrywiseError entrywise_error(const MaskMean& mask, double sigma, int threads) {
  check::positive_finite("sigma", sigma);
  return mask_errors(mask, sigma, threads);
}

EntrywiseError entrywise_error(const ErrorOperator& error, int threads) {
  return mask_errors(error.mask(), error.sigma(), threads);
}

}  // namespace poslsh
