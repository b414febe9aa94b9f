#include <poslsh/lsh_attention.h>

#include <algorithm>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>

#include "head_stacks.h"
#include "internal/attention_work.h"
#include "online_softmax.h"

namespace poslsh {

namespace lsh_detail {

// Rows of one work unit. Fixed (not derived from the thread count) so that the
// result is bit-identical for any number of threads.
inline constexpr Eigen::Index kLshRowChunk = 256;

// One worker's state and scratch for lsh_attention (a named namespace: the
// worker lambda of an exported template captures it).
template <typename Scalar>
struct LshScratch {
  explicit LshScratch(Eigen::Index d, Eigen::Index dv, std::int64_t hashes)
      : st(kLshRowChunk, d, dv),
        mult(kQueryTile, kKeyTile + 1),
        cur(static_cast<std::size_t>(hashes)),
        blocks(static_cast<std::size_t>(kQueryTile * hashes)) {}
  detail::OnlineSoftmax<Scalar> st;
  RowMatrix<Scalar> mult;        // multiplicities of one tile, one spare column (difference array)
  std::vector<std::size_t> cur;  // per hash: block of the row
  std::vector<std::pair<Eigen::Index, Eigen::Index>> blocks;  // per (row, hash): its keys
  Eigen::Index row_lo[kQueryTile], row_hi[kQueryTile];        // per row: union of its blocks
  Eigen::Index rel_lo[kQueryTile], rel_hi[kQueryTile];        // the same, in one key tile
};

// The blocks of query rows [qa, qa + rq) in every hash (sc.blocks, from the
// hashes' current blocks sc.cur, advanced), and each row's union of them
// (sc.row_lo, sc.row_hi): one interval, as every block holds the row. Returns
// the keys [k0, k1) any row of the tile sees.
template <typename Scalar>
std::pair<Eigen::Index, Eigen::Index> tile_blocks(const MaskMean& mask, bool causal,
                                                  Eigen::Index qa, Eigen::Index rq,
                                                  LshScratch<Scalar>& sc) {
  const std::int64_t hashes = mask.num_hashes();
  Eigen::Index k0 = mask.rows(), k1 = 0;
  for (Eigen::Index r = 0; r < rq; ++r) {
    const Eigen::Index i = qa + r;
    Eigen::Index lo = i, hi = i + 1;
    for (std::int64_t h = 0; h < hashes; ++h) {
      const auto starts = mask.blocks(h);
      auto& b = sc.cur[static_cast<std::size_t>(h)];
      while (starts[b + 1] <= i) ++b;
      const Eigen::Index a = starts[b], e = causal ? i + 1 : starts[b + 1];
      sc.blocks[static_cast<std::size_t>(r * hashes + h)] = {a, e};
      lo = std::min(lo, a);
      hi = std::max(hi, e);
    }
    sc.row_lo[r] = lo;
    sc.row_hi[r] = hi;
    k0 = std::min(k0, lo);
    k1 = std::max(k1, hi);
  }
  return {k0, k1};
}

// For the key tile [ka, kb): each row's keys in it (sc.rel_lo, sc.rel_hi,
// relative to ka) and, for the rows [ra, rb) whose interval meets it (row
// intervals move right with the row), the multiplicity of each key: the
// number of hashes whose block holds both (sc.mult). Returns [ra, rb), empty
// when no row meets the tile.
template <typename Scalar>
std::pair<Eigen::Index, Eigen::Index> key_tile_multiplicities(std::int64_t hashes, Eigen::Index rq,
                                                              Eigen::Index ka, Eigen::Index kb,
                                                              LshScratch<Scalar>& sc) {
  const Eigen::Index ck = kb - ka;
  Eigen::Index ra = rq, rb = 0;
  for (Eigen::Index r = 0; r < rq; ++r) {
    const Eigen::Index lo = std::max(sc.row_lo[r], ka), hi = std::min(sc.row_hi[r], kb);
    sc.rel_lo[r] = lo - ka;
    sc.rel_hi[r] = std::max(lo, hi) - ka;
    if (lo < hi) {
      ra = std::min(ra, r);
      rb = r + 1;
    }
  }
  for (Eigen::Index r = ra; r < rb; ++r) {
    Scalar* m = sc.mult.row(r).data();
    std::fill(m, m + ck + 1, Scalar(0));
    for (std::int64_t h = 0; h < hashes; ++h) {
      const auto [a, e] = sc.blocks[static_cast<std::size_t>(r * hashes + h)];
      const Eigen::Index x = std::max(a, ka), y = std::min(e, kb);
      if (x >= y) continue;
      m[x - ka] += Scalar(1);
      m[y - ka] -= Scalar(1);
    }
    Scalar acc = 0;  // small integers: exact
    for (Eigen::Index c = 0; c < ck; ++c) m[c] = acc += m[c];
  }
  return {ra, rb};
}

}  // namespace lsh_detail

template <typename Scalar>
RowMatrix<Scalar> lsh_attention(const ConstRowMatrixRef<Scalar>& q,
                                const ConstRowMatrixRef<Scalar>& k,
                                const ConstRowMatrixRef<Scalar>& v, const MaskMean& mask,
                                const AttentionOptions& options) {
  validate_attention_shapes(q.rows(), q.cols(), k.rows(), k.cols(), v.rows(), v.cols());
  const Eigen::Index n = q.rows();
  if (mask.rows() != n)
    throw std::logic_error("lsh_attention: the mask has n = " + std::to_string(mask.rows()) +
                           " but q, k, v have " + std::to_string(n) + " rows");
  const bool causal = mask.form() == Form::kCausal;
  const std::int64_t hashes = mask.num_hashes();
  const std::int64_t units = (n + lsh_detail::kLshRowChunk - 1) / lsh_detail::kLshRowChunk;
  const int workers =
      static_cast<int>(std::min<std::int64_t>(resolve_threads(options.threads), units));
  std::vector<std::unique_ptr<lsh_detail::LshScratch<Scalar>>> scratch;
  for (int w = 0; w < workers; ++w)
    scratch.push_back(std::make_unique<lsh_detail::LshScratch<Scalar>>(q.cols(), v.cols(), hashes));
  RowMatrix<Scalar> out(n, v.cols());
  for_each_unit(units, workers, [&](std::int64_t unit, int worker) {
    const Eigen::Index c0 = unit * lsh_detail::kLshRowChunk;
    const Eigen::Index c1 = std::min<Eigen::Index>(n, c0 + lsh_detail::kLshRowChunk);
    auto& sc = *scratch[static_cast<std::size_t>(worker)];
    sc.st.reset(c0);
    // Per 64-row query tile, the keys a row sees through its s blocks are one
    // interval (every block holds the row), and key j counts as many times as
    // there are hashes whose block holds both: Σ_h of the block-diagonal
    // attentions is attention over that interval with integer multiplicities.
    // One logit tile serves the whole query tile, and a key shared by several
    // hashes is exponentiated once. Each row's operations depend only on n and
    // the hashes, not on the thread that runs it.
    for (Eigen::Index qa = c0; qa < c1; qa += kQueryTile) {
      const Eigen::Index qb = std::min(c1, qa + kQueryTile), rq = qb - qa;
      for (std::int64_t h = 0; h < hashes; ++h) {
        const auto starts = mask.blocks(h);
        const auto it =
            std::upper_bound(starts.begin(), starts.end(), static_cast<std::int64_t>(qa));
        sc.cur[static_cast<std::size_t>(h)] = static_cast<std::size_t>(it - starts.begin()) - 1;
      }
      const auto [k0, k1] = lsh_detail::tile_blocks(mask, causal, qa, rq, sc);
      for (Eigen::Index ka = k0; ka < k1; ka += kKeyTile) {
        const Eigen::Index kb = std::min(k1, ka + kKeyTile);
        const auto [ra, rb] = lsh_detail::key_tile_multiplicities(hashes, rq, ka, kb, sc);
        if (ra >= rb) continue;
        sc.st.accumulate_weighted(q, k, v, qa + ra, qa + rb, ka, kb, sc.mult.row(ra).data(),
                                  sc.mult.cols(), sc.rel_lo + ra, sc.rel_hi + ra);
      }
    }
    sc.st.write_output(out, c1 - c0);
  });
  return out;
}

template <typename Scalar>
HeadStack<Scalar> lsh_attention(const HeadStack<Scalar>& q, const HeadStack<Scalar>& k,
                                const HeadStack<Scalar>& v, std::span<const MaskMean> masks,
                                const AttentionOptions& options) {
  const auto heads = static_cast<std::int64_t>(masks.size());
  if (heads < 1) throw std::logic_error("multi-head LSH attention needs at least one mask");
  detail::validate_head_stacks(q, k, v, heads);
  HeadStack<Scalar> out{heads, RowMatrix<Scalar>(heads * q.n(), v.d())};
  for (std::int64_t h = 0; h < heads; ++h)
    out.head(h) = lsh_attention<Scalar>(q.head(h), k.head(h), v.head(h),
                                        masks[static_cast<std::size_t>(h)], options);
  return out;
}

double lsh_keys_per_query(const MaskMean& mask) {
  double pairs = 0.0;
  for (std::int64_t h = 0; h < mask.num_hashes(); ++h) {
    const auto st = mask.blocks(h);
    for (std::size_t b = 0; b + 1 < st.size(); ++b) {
      const double len = static_cast<double>(st[b + 1] - st[b]);
      pairs += mask.form() == Form::kCausal ? len * (len + 1) / 2 : len * len;
    }
  }
  return pairs / static_cast<double>(mask.rows());
}

template RowMatrix<float> lsh_attention<float>(const ConstRowMatrixRef<float>&,
                                               const ConstRowMatrixRef<float>&,
                                               const ConstRowMatrixRef<float>&, const MaskMean&,
                                               const AttentionOptions&);
template RowMatrix<double> lsh_attention<double>(const ConstRowMatrixRef<double>&,
                                                 const ConstRowMatrixRef<double>&,
                                                 const ConstRowMatrixRef<double>&, const MaskMean&,
                                                 const AttentionOptions&);
template HeadStack<float> lsh_attention<float>(const HeadStack<float>&, const HeadStack<float>&,
                                               const HeadStack<float>&, std::span<const MaskMean>,
                                               const AttentionOptions&);
template HeadStack<double> lsh_attention<double>(const HeadStack<double>&, const HeadStack<double>&,
                                                 const HeadStack<double>&,
                                                 std::span<const MaskMean>,
                                                 const AttentionOptions&);

}  // namespace poslsh
