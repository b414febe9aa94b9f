#include "experiments/attention/attention_paths.h"

#include <poslsh/alibi_heads.h>
#include <poslsh/argument_error.h>
#include <poslsh/attention_bounds.h>
#include <poslsh/attention_options.h>
#include <poslsh/band_attention.h>
#include <poslsh/exact_attention.h>
#include <poslsh/lsh_attention.h>
#include <poslsh/mask_mean.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <type_traits>
#include <utility>

#include "experiments/attention/attention.h"
#include "experiments/oracles/reference_blocks.h"

namespace poslsh {

double path_unit_roundoff(bool float32) { return float32 ? 0x1p-24 : 0x1p-53; }

double path_rounding_allowance(double unit, std::int64_t n, std::int64_t d, double beta) {
  return 2 * unit *
         ((static_cast<double>(d) + 2) * (beta + 1) + static_cast<double>(n) + 8);
}

LogPrior alibi_prior(double sigma, Form form) {
  return [sigma, form](std::int64_t i, std::int64_t j) {
    if (form == Form::kCausal && j > i) return -std::numeric_limits<double>::infinity();
    return -static_cast<double>(std::abs(i - j)) / sigma;
  };
}

LogPrior band_prior(double sigma, Form form, std::vector<std::int64_t> tile_half_width) {
  return [alibi = alibi_prior(sigma, form), widths = std::move(tile_half_width)](std::int64_t i,
                                                                                std::int64_t j) {
    const std::int64_t q0 = i / kQueryTile * kQueryTile;
    const std::int64_t w = widths.at(static_cast<std::size_t>(i / kQueryTile));
    if (j < q0 - w || j >= q0 + kQueryTile + w) return -std::numeric_limits<double>::infinity();
    return alibi(i, j);
  };
}

LogPrior lsh_prior(std::span<const PositionalHash> hashes, std::int64_t n, Form form) {
  // Per row i, the block of each hash that holds it (causal: cut at i), from
  // the definition (reference_blocks.h), not the library's binning.
  std::vector<std::pair<std::int64_t, std::int64_t>> blocks;
  blocks.reserve(static_cast<std::size_t>(n) * hashes.size());
  for (std::int64_t i = 0; i < n; ++i)
    for (const auto& h : hashes)
      blocks.emplace_back(reference_block_begin(h, i),
                          form == Form::kCausal ? i + 1 : reference_block_end(h, i, n));
  const std::size_t s = hashes.size();
  return [blocks = std::move(blocks), s](std::int64_t i, std::int64_t j) {
    int count = 0;
    for (std::size_t h = 0; h < s; ++h) {
      const auto& [b, e] = blocks[static_cast<std::size_t>(i) * s + h];
      count += b <= j && j < e;
    }
    return count ? std::log(static_cast<double>(count)) : -std::numeric_limits<double>::infinity();
  };
}

RowMatrix<double> attention_oracle(const ConstRowMatrixRef<double>& q,
                                   const ConstRowMatrixRef<double>& k,
                                   const ConstRowMatrixRef<double>& v, const LogPrior& prior) {
  using Long = long double;
  const std::int64_t n = q.rows(), d = q.cols(), dv = v.cols();
  const Long scale = 1.0L / std::sqrt(static_cast<Long>(d));
  RowMatrix<double> out(n, dv);
  std::vector<Long> logit(static_cast<std::size_t>(n)), acc(static_cast<std::size_t>(dv));
  for (std::int64_t i = 0; i < n; ++i) {
    Long top = -std::numeric_limits<Long>::infinity();
    for (std::int64_t j = 0; j < n; ++j) {
      Long& l = logit[static_cast<std::size_t>(j)];
      const double p = prior(i, j);
      l = p;
      if (std::isinf(p)) continue;
      Long dot = 0;
      for (std::int64_t c = 0; c < d; ++c) dot += static_cast<Long>(q(i, c)) * k(j, c);
      l = dot * scale + p;
      top = std::max(top, l);
    }
    Long den = 0;
    std::fill(acc.begin(), acc.end(), 0.0L);
    for (std::int64_t j = 0; j < n; ++j) {
      const Long l = logit[static_cast<std::size_t>(j)];
      if (std::isinf(l)) continue;
      const Long w = std::exp(l - top);
      den += w;
      for (std::int64_t c = 0; c < dv; ++c) acc[static_cast<std::size_t>(c)] += w * v(j, c);
    }
    for (std::int64_t c = 0; c < dv; ++c)
      out(i, c) = static_cast<double>(acc[static_cast<std::size_t>(c)] / den);
  }
  return out;
}

// A named namespace, not an anonymous one: the experiments are a unity build.
namespace attention_paths {

enum class Est { kExact, kBand, kLsh };
struct Path {
  Est est;
  bool multi_head;
  bool independent = false;  // lsh: each head its own draw (independent_head_seed)
};
// The library has no multi-head band overload: a user loops over heads.
constexpr Path kPaths[] = {{Est::kExact, false}, {Est::kExact, true}, {Est::kBand, false},
                           {Est::kLsh, false},   {Est::kLsh, true},   {Est::kLsh, true, true}};

const char* layout_of(Path path) {
  return path.independent ? "independent-heads" : path.multi_head ? "multi-head" : "single-head";
}

const char* name_of(Est e) {
  return e == Est::kExact ? "path-exact" : e == Est::kBand ? "path-band" : "path-lsh";
}

// The probe's problem, its inputs in double (what float32 rounds).
struct Problem {
  std::int64_t n = 0;
  std::vector<double> sigmas;
  std::vector<std::vector<PositionalHash>> hashes;  // per head: one draw rescaled
  std::vector<std::vector<PositionalHash>> independent;  // per head: its own draw
  HeadStack<double> q, k, v;
};

// The seed of head h's own draw: independent_head_seed, or under
// kSharedHeadSeeds the run's seed for every head.
std::uint64_t own_head_seed(const PathSpec& spec, std::int64_t h) {
  if (spec.defect.estimator_bug == EstimatorBug::kSharedHeadSeeds) return spec.seed;
  return independent_head_seed(spec.seed, static_cast<std::size_t>(h));
}

// The digest of head h's own draw at sigma = 1 (the standardized hashes, so
// heads of one seed share it): drawn afresh at each call, so two calls agree
// only if the draw is reproducible.
std::string own_draw_digest(const PathSpec& spec, std::int64_t h) {
  return hash_digest(draw_hashes(own_head_seed(spec, h), spec.defect, 0, kPathHashes, 1.0));
}

// The heads' scales as the library gives them (alibi_head_sigmas), or under
// kSlopeInterleave as code that ignores Press et al.'s interleave would.
std::vector<double> head_sigmas(EstimatorBug bug) {
  if (bug != EstimatorBug::kSlopeInterleave) return alibi_head_sigmas(kPathHeads);
  std::vector<double> sigmas;
  for (int h = 1; h <= kPathHeads; ++h) sigmas.push_back(std::exp2(8.0 * h / kPathHeads));
  return sigmas;
}

Problem make_problem(const PathSpec& spec) {
  Problem p;
  p.n = spec.n;
  p.sigmas = head_sigmas(spec.defect.estimator_bug);
  QkvData data = synthetic_qkv(spec.seed, spec.n * kPathHeads, kPathD, kPathQkScale);
  p.q = {kPathHeads, std::move(data.q.data)};
  p.k = {kPathHeads, std::move(data.k.data)};
  const RowMatrix<double> v = data.v.data.leftCols(kPathDv);
  p.v = {kPathHeads, v / v.cwiseAbs().maxCoeff()};  // max |v| = 1
  for (std::int64_t h = 0; h < kPathHeads; ++h) {
    const double sigma = p.sigmas[static_cast<std::size_t>(h)];
    p.hashes.push_back(draw_hashes(spec.seed, spec.defect, 0, kPathHashes, sigma));
    p.independent.push_back(
        draw_hashes(own_head_seed(spec, h), spec.defect, 0, kPathHashes, sigma));
  }
  return p;
}

// The inputs in precision S, and the same values in double (exactly).
template <typename S>
struct Inputs {
  HeadStack<S> q, k, v;
  HeadStack<double> qd, kd, vd;
  explicit Inputs(const Problem& p)
      : q{kPathHeads, p.q.data.cast<S>()},
        k{kPathHeads, p.k.data.cast<S>()},
        v{kPathHeads, p.v.data.cast<S>()},
        qd{kPathHeads, q.data.template cast<double>()},
        kd{kPathHeads, k.data.template cast<double>()},
        vd{kPathHeads, v.data.template cast<double>()} {}
};

// One path's output, heads stacked, and what band reports per head.
template <typename S>
struct Output {
  RowMatrix<S> out;
  std::vector<std::vector<std::int64_t>> band_widths;
  std::vector<double> band_certificate, band_keys;
};

LogPrior prior_of(const Problem& p, Est e, std::size_t h, Form form,
                  const std::vector<std::vector<std::int64_t>>& band_widths) {
  if (e == Est::kExact) return alibi_prior(p.sigmas[h], form);
  if (e == Est::kBand) return band_prior(p.sigmas[h], form, band_widths[h]);
  return lsh_prior(p.hashes[h], p.n, form);
}

template <typename S>
void run_band(const Problem& p, const Inputs<S>& in, Form form, Output<S>& r) {
  BandAttentionOptions band;
  band.attention.threads = kPathWorkers;
  for (std::int64_t h = 0; h < kPathHeads; ++h) {
    auto res = band_exact_attention<S>(in.q.head(h), in.k.head(h), in.v.head(h),
                                       p.sigmas[static_cast<std::size_t>(h)], form, band);
    r.out.middleRows(h * p.n, p.n) = res.output;
    r.band_widths.push_back(res.tile_half_width);
    r.band_certificate.push_back(res.certificate());
    r.band_keys.push_back(res.keys_per_query);
  }
}

// The inputs a path is called with: `in`, or under kLogitScaleFromValueWidth
// q scaled by sqrt(d / dv), so that the kernel's q k^T / sqrt(d) is
// q k^T / sqrt(dv). The oracle reads in.qd, the sound q.
template <typename S>
Inputs<S> called_inputs(const Inputs<S>& in, EstimatorBug bug) {
  Inputs<S> used = in;
  if (bug == EstimatorBug::kLogitScaleFromValueWidth)
    used.q.data *= static_cast<S>(std::sqrt(static_cast<double>(kPathD) / kPathDv));
  return used;
}

// The path as a user calls it, with `bug` planted (estimator_defect.h).
template <typename S>
Output<S> run_path(const Problem& p, const Inputs<S>& sound, Path path, Form form,
                   const std::vector<MaskMean>& masks, EstimatorBug bug) {
  const Inputs<S> in = called_inputs(sound, bug);
  const AttentionOptions opts{.threads = kPathWorkers};
  const std::int64_t n = p.n;
  Output<S> r;
  r.out.resize(kPathHeads * n, in.v.d());
  if (path.est == Est::kBand) {
    run_band(p, in, form, r);
  } else if (path.multi_head) {
    r.out = path.est == Est::kExact
                ? exact_alibi_attention<S>(in.q, in.k, in.v, multi_head_sigmas(p.sigmas, bug),
                                           form, opts)
                      .data
                : lsh_attention<S>(in.q, in.k, in.v, multi_head_masks(masks, bug), opts).data;
  } else {
    for (std::int64_t h = 0; h < kPathHeads; ++h)
      r.out.middleRows(h * n, n) =
          path.est == Est::kExact
              ? exact_alibi_attention<S>(in.q.head(h), in.k.head(h), in.v.head(h),
                                         p.sigmas[static_cast<std::size_t>(h)], form, opts)
              : lsh_attention<S>(in.q.head(h), in.k.head(h), in.v.head(h),
                                 masks[static_cast<std::size_t>(h)], opts);
  }
  if constexpr (std::is_same_v<S, float>) {
    if (bug == EstimatorBug::kFloat32Flush)
      for (std::int64_t h = 0; h < kPathHeads; ++h)
        r.out.middleRows(h * n, n) = flushing_float32_attention(
            in.q.head(h), in.k.head(h), in.v.head(h),
            prior_of(p, path.est, static_cast<std::size_t>(h), form, r.band_widths));
  }
  skip_partial_tile(r.out, n, bug);
  return r;
}

// What one (path, precision, head) row reports.
struct HeadResult {
  double deviation = 0, max_error = 0, rel = 0, certificate = 0, uniform = 0, keys = 0;
  double beta = 0, allowance = 0;
  std::int64_t width = -1, largest = -1;
};

// The exact keys per query of the form, for the exact rows' cost.
double exact_keys(std::int64_t n, Form form) {
  return form == Form::kCausal ? (static_cast<double>(n) + 1) / 2 : static_cast<double>(n);
}

// Certificate, uniform bound and cost of path `e` at head h in the table's
// form (lsh: lsh_attention_bounds on exact attention's row statistics).
template <typename S>
void fill_bounds(const Problem& p, const Inputs<S>& in, Est e, std::int64_t h, Form form,
                 const MaskMean& mask, const Output<S>& o, HeadResult& r) {
  const auto hs = static_cast<std::size_t>(h);
  if (e == Est::kExact) {
    r.keys = exact_keys(p.n, form);
  } else if (e == Est::kBand) {
    r.certificate = r.uniform = o.band_certificate[hs];
    r.keys = o.band_keys[hs];
    r.width = *std::max_element(o.band_widths[hs].begin(), o.band_widths[hs].end());
  } else {
    const AttentionOptions opts{.threads = kPathWorkers};
    SoftmaxRowStats stats;
    exact_alibi_attention<double>(in.qd.head(h), in.kd.head(h), in.vd.head(h), p.sigmas[hs], form,
                                  opts, &stats);
    const auto b = lsh_attention_bounds(in.qd.head(h), in.kd.head(h), in.vd.head(h), p.sigmas[hs],
                                        mask, stats, opts);
    r.certificate = b.certificate;
    r.uniform = b.uniform_bound;
    r.keys = lsh_keys_per_query(mask);
    r.largest = mask.largest_block();
  }
}

using Results = std::map<std::pair<std::size_t, std::int64_t>, HeadResult>;  // (path, head)

// Every path of precision S in one form, against the definitions; the
// errors against exact attention and the bounds in the table's form only.
template <typename S>
void probe_form(const Problem& p, const Inputs<S>& in, Form form, bool table_form,
                EstimatorBug bug, BinningBug binning, Results& results) {
  std::vector<MaskMean> masks, own_masks;
  std::vector<RowMatrix<double>> exact, lsh, own_lsh;
  for (std::int64_t h = 0; h < kPathHeads; ++h) {
    const auto hs = static_cast<std::size_t>(h);
    masks.push_back(estimator_mask(p.n, p.hashes[hs], form, bug, binning));
    own_masks.push_back(estimator_mask(p.n, p.independent[hs], form, bug, binning));
    const auto q = in.qd.head(h), k = in.kd.head(h), v = in.vd.head(h);
    exact.push_back(attention_oracle(q, k, v, alibi_prior(p.sigmas[hs], form)));
    lsh.push_back(attention_oracle(q, k, v, lsh_prior(p.hashes[hs], p.n, form)));
    own_lsh.push_back(attention_oracle(q, k, v, lsh_prior(p.independent[hs], p.n, form)));
  }
  for (std::size_t path = 0; path < std::size(kPaths); ++path) {
    const Est e = kPaths[path].est;
    const bool own = kPaths[path].independent;
    const Output<S> o = run_path(p, in, kPaths[path], form, own ? own_masks : masks, bug);
    for (std::int64_t h = 0; h < kPathHeads; ++h) {
      const auto hs = static_cast<std::size_t>(h);
      const RowMatrix<double> out = o.out.middleRows(h * p.n, p.n).template cast<double>();
      const RowMatrix<double> def =
          e == Est::kExact ? exact[hs]
          : e == Est::kLsh ? (own ? own_lsh[hs] : lsh[hs])
                           : attention_oracle(in.qd.head(h), in.kd.head(h), in.vd.head(h),
                                              prior_of(p, e, hs, form, o.band_widths));
      HeadResult& r = results[{path, h}];
      r.deviation = std::max(r.deviation, (out - def).cwiseAbs().maxCoeff());
      if (!table_form) continue;
      r.max_error = (out - exact[hs]).cwiseAbs().maxCoeff();
      r.rel = (out - exact[hs]).norm() / exact[hs].norm();
      fill_bounds(p, in, e, h, form, own ? own_masks[hs] : masks[hs], o, r);
    }
  }
}

// The row of one (path, precision, head), in attention_columns() order.
std::vector<std::string> row_of(const Problem& p, const PathSpec& spec, Path path, bool float32,
                                std::int64_t h, const HeadResult& r) {
  const bool lsh = path.est == Est::kLsh;
  const std::map<std::string, std::string> cells = {
      {"n", std::to_string(p.n)},
      {"d", std::to_string(kPathD)},
      {"sigma", format_value(p.sigmas[static_cast<std::size_t>(h)])},
      {"head", std::to_string(h)},
      {"form", spec.form == Form::kCausal ? "causal" : "symmetric"},
      {"s", lsh ? std::to_string(kPathHashes) : ""},
      {"trial", lsh ? "0" : ""},
      {"estimator", name_of(path.est)},
      {"width", r.width >= 0 ? std::to_string(r.width) : ""},
      {"keys_per_query", format_value(r.keys)},
      {"largest_block", r.largest >= 0 ? std::to_string(r.largest) : ""},
      {"max_error", format_value(r.max_error)},
      {"rel_frobenius_error", format_value(r.rel)},
      {"certificate", format_value(r.certificate)},
      {"uniform_bound", format_value(r.uniform)},
      {"rounding_allowance", format_value(r.allowance)},
      {"max_abs_logit", format_value(r.beta)},
      {"reference_bound", "0"},  // the long-double oracle's own error is below 1e-15
      {"estimator_deviation", format_value(r.deviation)},
      {"hash_digest", path.independent ? own_draw_digest(spec, h) : ""},
      {"precision", float32 ? "float32" : "float64"},
      {"layout", layout_of(path)}};
  std::vector<std::string> row;
  for (const auto& c : attention_columns()) {
    const auto it = cells.find(c);
    row.push_back(it == cells.end() ? std::string() : it->second);
  }
  return row;
}

template <typename S>
Results probe_precision(const Problem& p, const PathSpec& spec) {
  const Inputs<S> in(p);
  const Form other = spec.form == Form::kCausal ? Form::kSymmetric : Form::kCausal;
  const EstimatorBug bug = spec.defect.estimator_bug;
  Results results;
  probe_form(p, in, spec.form, true, bug, spec.defect.binning_bug, results);
  probe_form(p, in, other, false, bug, spec.defect.binning_bug, results);
  const double unit = path_unit_roundoff(std::is_same_v<S, float>);
  for (auto& [key, r] : results) {
    const auto q = in.qd.head(key.second), k = in.kd.head(key.second);
    r.beta = (q * k.transpose()).cwiseAbs().maxCoeff() / std::sqrt(static_cast<double>(kPathD));
    r.allowance = path_rounding_allowance(unit, p.n, kPathD, r.beta);
  }
  return results;
}

}  // namespace attention_paths

std::vector<std::vector<std::string>> attention_path_rows(const PathSpec& spec) {
  using namespace attention_paths;
  const Problem p = make_problem(spec);
  const Results by_precision[2] = {probe_precision<float>(p, spec),
                                   probe_precision<double>(p, spec)};
  std::vector<std::vector<std::string>> rows;
  for (std::size_t path = 0; path < std::size(kPaths); ++path)
    for (const bool float32 : {true, false})
      for (std::int64_t h = 0; h < kPathHeads; ++h)
        rows.push_back(row_of(p, spec, kPaths[path], float32, h,
                              by_precision[float32 ? 0 : 1].at({path, h})));
  return rows;
}

}  // namespace poslsh
