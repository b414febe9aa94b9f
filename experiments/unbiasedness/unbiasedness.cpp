#include "experiments/unbiasedness/unbiasedness.h"

#include <fmt/format.h>
#include <poslsh/input_error.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <stdexcept>
#include <tuple>

#include "experiments/unbiasedness/cobinning_checks.h"
#include "experiments/defects/planted_defect.h"
#include "experiments/kernel_option.h"
#include "internal/printable.h"
#include "runner/cli_common.h"
#include "runner/swept_experiment.h"

namespace poslsh {

const std::vector<std::string>& unbiasedness_columns() {
  static const std::vector<std::string> columns = {
      "n",      "sigma", "region",   "anchor",   "t",
      "hashes", "batch", "cobinned", "expected", "batch_cobinned_sumsq"};
  return columns;
}

PositionalHash draw_interleaved(const HashDrawer& draw, std::int64_t k, double sigma) {
  return draw(static_cast<std::uint64_t>(k % kUnbiasednessTrials),
              static_cast<std::uint64_t>(k / kUnbiasednessTrials), sigma);
}

std::vector<CsvRow> unbiasedness_rows(std::int64_t n, const CobinLaw& law, const CobinAnchor& anchor,
                                      const CobinCounts& counts) {
  std::vector<CsvRow> rows;
  const std::string n_text = std::to_string(n), sigma_text = format_value(law.sigma),
                    anchor_text = std::to_string(anchor.position),
                    hashes_text = std::to_string(counts.hashes()),
                    batch_text = std::to_string(counts.batch());
  for (std::size_t j = 0; j < counts.offsets().size(); ++j) {
    const std::int64_t t = counts.offsets()[j];
    rows.push_back(
        {n_text, sigma_text, anchor.label, anchor_text, std::to_string(t), hashes_text, batch_text,
         std::to_string(counts.cobinned()[j]),
         format_value(static_cast<double>(counts.hashes()) * law.probability(t)),
         std::to_string(counts.batch_sumsq()[j])});
    if (law.kernel) rows.back().push_back(law.kernel->spec());
  }
  return rows;
}

std::vector<CsvRow> unbiasedness_rows(std::int64_t n, double sigma, const CobinAnchor& anchor,
                                      const CobinCounts& counts) {
  return unbiasedness_rows(n, CobinLaw{sigma}, anchor, counts);
}

std::vector<CsvRow> unbiasedness_rows(std::int64_t n, double sigma, CobinRegion region,
                                      const CobinCounts& counts) {
  return unbiasedness_rows(n, sigma, parse_cobin_anchor(cobin_region_name(region), n), counts);
}

CobinAnchor parse_cobin_anchor(const std::string& label, std::int64_t n) {
  if (label.rfind("at-", 0) == 0) {
    std::size_t used = 0;
    std::int64_t a = -1;
    try {
      a = std::stoll(label.substr(3), &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used + 3 != label.size() || a < 0 || a >= n)
      throw InputError(fmt::format("region '{}': 'at-' must be followed by a position in [0, {})",
                                   detail::printable(label), n));
    return {label, a, a > n / 2, n};
  }
  const auto colon = label.find(':');
  std::int64_t anchor_n = n;
  if (colon != std::string::npos && label.substr(0, colon) != kFirstHashRegion) {
    const std::string consumer = label.substr(0, colon);
    const auto& all = all_cobin_consumers();
    if (std::none_of(all.begin(), all.end(),
                     [&](CobinConsumer c) { return cobin_consumer_name(c) == consumer; }))
      throw InputError("unknown consumer '" + detail::printable(consumer) + "' (accepted: " +
                       kFirstHashRegion + ", mask, mask-causal, attention, attention-causal)");
    anchor_n = consumer_probe_n(n);
  }
  const CobinRegion region =
      parse_cobin_region(colon == std::string::npos ? label : label.substr(colon + 1));
  return {label, cobin_anchor(region, anchor_n), region == CobinRegion::kEnd, anchor_n};
}

std::vector<CobinAnchor> hash_side_anchors(std::int64_t n) {
  std::vector<CobinAnchor> anchors;
  for (const CobinRegion r : all_cobin_regions())
    anchors.push_back(parse_cobin_anchor(cobin_region_name(r), n));
  for (const std::int64_t a : cobin_large_anchors(n))
    anchors.push_back(parse_cobin_anchor("at-" + std::to_string(a), n));
  return anchors;
}

namespace unbiasedness_cells {

// The run of h at an anchor as code that holds positions in float32 computes
// it: bin(i) = floor((float(i) - shift) / pitch), counted up to `cap`
// positions (runs beyond the largest offset count alike). Exact below 2^24.
std::int64_t float32_run(const PositionalHash& h, const CobinAnchor& a, std::int64_t cap) {
  const auto bin32 = [&](std::int64_t i) {
    return std::floor((static_cast<double>(static_cast<float>(i)) - h.shift) / h.pitch);
  };
  const std::int64_t dir = a.backward ? -1 : 1;
  const double home = bin32(a.position);
  std::int64_t run = 1;
  while (run < cap && bin32(a.position + dir * run) == home) ++run;
  return run;
}

}  // namespace unbiasedness_cells

std::vector<CsvRow> consumer_cell_rows(std::int64_t n, const CobinLaw& law, std::int64_t hashes,
                                       std::int64_t batch, int points, const HashDrawer& draw,
                                       BinningBug bug) {
  const std::int64_t probe_n = consumer_probe_n(n);
  const std::int64_t probed = std::min(hashes, kConsumerHashes) / batch * batch;
  // MaskMean (and so lsh_attention) takes n < 2^32: no consumer reads blocks
  // of a longer context.
  if (probed < batch || n >= kConsumerMaxN) return {};
  const auto offsets = law.offsets(probe_n, points);
  const auto& consumers = all_cobin_consumers();
  std::vector<std::vector<CobinCounts>> counts(consumers.size());
  for (auto& c : counts)
    for (std::size_t r = 0; r < all_cobin_regions().size(); ++r) c.emplace_back(offsets, batch);
  for (std::int64_t k = 0; k < probed; ++k) {
    const PositionalHash h = draw_interleaved(draw, k, law.sigma);
    for (std::size_t c = 0; c < consumers.size(); ++c) {
      const auto cobinned = consumer_cobinned(consumers[c], h, probe_n, offsets, bug);
      for (std::size_t r = 0; r < cobinned.size(); ++r) counts[c][r].add_cobinned(cobinned[r]);
    }
  }
  std::vector<CsvRow> rows;
  for (std::size_t c = 0; c < consumers.size(); ++c)
    for (std::size_t r = 0; r < all_cobin_regions().size(); ++r) {
      const std::string label =
          cobin_consumer_name(consumers[c]) + ":" + cobin_region_name(all_cobin_regions()[r]);
      auto part = unbiasedness_rows(n, law, parse_cobin_anchor(label, n), counts[c][r]);
      rows.insert(rows.end(), part.begin(), part.end());
    }
  return rows;
}

namespace unbiasedness_cells {

// The rows of `anchors` over `count` hashes, hash k being hash_k(k).
template <class HashK>
std::vector<CsvRow> anchor_rows(std::int64_t n, const CobinLaw& law,
                                const std::vector<CobinAnchor>& anchors,
                                const std::vector<std::int64_t>& offsets, std::int64_t count,
                                std::int64_t batch, const HashK& hash_k, BinningBug bug) {
  std::vector<CobinCounts> counts;
  for (std::size_t r = 0; r < anchors.size(); ++r) counts.emplace_back(offsets, batch);
  for (std::int64_t k = 0; k < count; ++k) {
    const PositionalHash h = hash_k(k);
    for (std::size_t r = 0; r < counts.size(); ++r)
      counts[r].add_run(bug == BinningBug::kFloat32Positions
                            ? float32_run(h, anchors[r], offsets.back() + 1)
                            : cobin_run_at(h, anchors[r].position, anchors[r].backward, n));
  }
  std::vector<CsvRow> rows;
  for (std::size_t r = 0; r < counts.size(); ++r) {
    auto part = unbiasedness_rows(n, law, anchors[r], counts[r]);
    rows.insert(rows.end(), part.begin(), part.end());
  }
  return rows;
}

}  // namespace unbiasedness_cells

std::vector<CsvRow> first_hash_cell_rows(std::int64_t n, const CobinLaw& law, std::int64_t hashes,
                                         std::int64_t batch, int points, const HashDrawer& draw,
                                         BinningBug bug) {
  const std::int64_t trials = std::min(hashes, kFirstHashTrials) / batch * batch;
  if (trials < batch) return {};
  std::vector<CobinAnchor> anchors;
  for (const CobinRegion r : all_cobin_regions())
    anchors.push_back(parse_cobin_anchor(kFirstHashRegion + ":" + cobin_region_name(r), n));
  return unbiasedness_cells::anchor_rows(
      n, law, anchors, law.offsets(n, points), trials, batch,
      [&](std::int64_t trial) { return draw(static_cast<std::uint64_t>(trial), 0, law.sigma); }, bug);
}

std::vector<CsvRow> unbiasedness_cell_rows(std::int64_t n, const CobinLaw& law, std::int64_t hashes,
                                           std::int64_t batch, int points, const HashDrawer& draw,
                                           BinningBug bug) {
  std::vector<CsvRow> rows = unbiasedness_cells::anchor_rows(
      n, law, hash_side_anchors(n), law.offsets(n, points), hashes, batch,
      [&](std::int64_t k) { return draw_interleaved(draw, k, law.sigma); }, bug);
  auto first = first_hash_cell_rows(n, law, hashes, batch, points, draw, bug);
  rows.insert(rows.end(), first.begin(), first.end());
  auto consumer = consumer_cell_rows(n, law, hashes, batch, points, draw, bug);
  rows.insert(rows.end(), consumer.begin(), consumer.end());
  return rows;
}

double CobinLaw::probability(std::int64_t t) const {
  return kernel ? cobin_probability(*kernel, t) : cobin_probability(sigma, t);
}

std::vector<std::int64_t> CobinLaw::offsets(std::int64_t n, int points) const {
  return kernel ? cobin_offsets(n, *kernel, points) : cobin_offsets(n, sigma, points);
}

std::vector<CsvRow> first_hash_cell_rows(std::int64_t n, double sigma, std::int64_t hashes,
                                         std::int64_t batch, int points, const HashDrawer& draw,
                                         BinningBug bug) {
  return first_hash_cell_rows(n, CobinLaw{sigma}, hashes, batch, points, draw, bug);
}

std::vector<CsvRow> unbiasedness_cell_rows(std::int64_t n, double sigma, std::int64_t hashes,
                                           std::int64_t batch, int points, const HashDrawer& draw,
                                           BinningBug bug) {
  return unbiasedness_cell_rows(n, CobinLaw{sigma}, hashes, batch, points, draw, bug);
}

std::vector<CsvRow> consumer_cell_rows(std::int64_t n, double sigma, std::int64_t hashes,
                                       std::int64_t batch, int points, const HashDrawer& draw,
                                       BinningBug bug) {
  return consumer_cell_rows(n, CobinLaw{sigma}, hashes, batch, points, draw, bug);
}

namespace unbiasedness_experiment {  // named: the runner is a unity build

struct UnbiasednessCell {
  std::int64_t n;
  double sigma;
};

// Sweep cells are (n, sigma): one co-binning table each, hash side and consumers.
class Unbiasedness : public SweptExperiment<UnbiasednessCell> {
 public:
  void declare_options(CLI::App& cmd) override {
    cmd.add_option("--n", n_,
                   "Context lengths n (4..2^50); anchors at 0, n/2, n-1 and near 2^24, 2^31, 2^32")
        ->required()
        ->delimiter(',');
    cmd.add_option("--sigma", sigma_, "ALiBi scales sigma = 1/slope (> 0)")
        ->required()
        ->delimiter(',');
    cmd.add_option(
           "--hashes", hashes_,
           "Hashes per (n, sigma), half from trial 0 and half from trial 1, interleaved: "
           "hash k is draw_hash(seed, k mod 2, k / 2, sigma), k < H (a multiple of --batch)")
        ->capture_default_str();
    cmd.add_option("--batch", batch_, "Consecutive hashes per batch of the dispersion test (>= 1)")
        ->capture_default_str();
    cmd.add_option("--points", points_, "Offsets t per sigma, spread over [1, 6 sigma] (>= 1)")
        ->capture_default_str();
    cmd.add_option("--seed", seed_, "Random seed")->capture_default_str();
    cmd.add_option("--kernel", kernel_, std::string(kKernelHelp) + " (default: laplace)");
    plant_.declare(cmd);
  }

  void validate(CLI::App&, const SweepOptions&) override {
    require_nonempty("--n", n_.size());
    require_at_least("--n", n_, 4);
    for (const auto n : n_)
      if (n > kMaxUnbiasednessN)
        throw UsageError(fmt::format(
            "--n: at most 2^50 = {} (the sampler's bins are computed in double), got {}",
            kMaxUnbiasednessN, n));
    require_positive_finite("--sigma", sigma_);
    require_at_least("--batch", batch_, 1);
    require_at_least("--points", points_, 1);
    if (hashes_ < batch_ || hashes_ % batch_ != 0)
      throw UsageError(fmt::format("--hashes must be a positive multiple of --batch ({}), got {}",
                                   batch_, hashes_));
    plant_.resolve();
    for (const double sigma : sigma_) {
      const Kernel kernel = parse_kernel(kernel_, sigma);
      if (kernel.family() == KernelFamily::kLaplace) continue;
      if (plant_.defect().sampler != SamplerDefect::kNone ||
          plant_.defect().batched_bug != BatchedBug::kNone)
        throw UsageError("--plant-defect: the planted samplers are ALiBi's; use --kernel laplace");
      kernels_.emplace(sigma, kernel);
    }
  }

  // A kernel's table ends with its spec (CobinLaw); ALiBi's has no such column.
  std::vector<std::string> columns() const override {
    std::vector<std::string> columns = unbiasedness_columns();
    if (!kernels_.empty()) columns.push_back("kernel");
    return columns;
  }

  std::vector<UnbiasednessCell> cells() const override {
    std::vector<UnbiasednessCell> cells;
    for (const auto n : n_)
      for (const auto sigma : sigma_) cells.push_back({n, sigma});
    return cells;
  }

  std::vector<CsvRow> rows(const UnbiasednessCell& x) const override {
    // Every hash from the batched drawer users call (draw_hashes), so a defect
    // in it alone moves these counts too.
    const auto kernel = kernels_.find(x.sigma);
    if (kernel == kernels_.end())
      return unbiasedness_cell_rows(x.n, x.sigma, hashes_, batch_, points_,
                                    drawer_from_batches(batched_drawer(seed_, plant_.defect())),
                                    plant_.defect().binning_bug);
    const Kernel k = kernel->second;
    const std::uint64_t seed = seed_;
    return unbiasedness_cell_rows(
        x.n, CobinLaw{x.sigma, k}, hashes_, batch_, points_,
        drawer_from_batches([k, seed](std::uint64_t trial, std::int64_t s, double) {
          return draw_kernel_hashes(k, seed, trial, s);
        }),
        plant_.defect().binning_bug);
  }

  std::string label(const UnbiasednessCell& x) const override {
    return fmt::format("n={} sigma={}", x.n, format_value(x.sigma));
  }

  std::uint64_t seed() const override { return seed_; }

  // A sound run records no --plant-defect, and an ALiBi run no --kernel (its
  // tables are those made before the option).
  RecordedOptions recorded_options(const CLI::App& cmd) const override {
    RecordedOptions recorded;
    plant_.record(cmd, recorded);
    if (kernels_.empty()) recorded.omitted.insert("kernel");
    return recorded;
  }

 private:
  std::vector<std::int64_t> n_;
  std::vector<double> sigma_;
  std::int64_t hashes_ = std::int64_t{1} << 19, batch_ = 16;
  int points_ = 24;
  std::uint64_t seed_ = 0;
  std::string kernel_ = "laplace";
  std::map<double, Kernel> kernels_;  // by sigma; none for laplace
  PlantDefectOption plant_;
};

Action add_unbiasedness_command(CLI::App& parent) {
  return swept_command(parent, "unbiasedness",
                       "Co-binning counts vs exp(-t/sigma): E[M] = L* tested pair by pair",
                       std::make_shared<Unbiasedness>());
}

const bool registered_unbiasedness = register_experiment({
    .name = "unbiasedness",
    .summary = "Co-binning counts vs exp(-t/sigma): E[M] = L* tested pair by pair",
    .add_command = add_unbiasedness_command,
    .add_bench = {},
    .checker = {.required_columns = unbiasedness_columns(),
                .run = [](const CsvTable& t,
                          double alpha) { return check_unbiasedness_table(t, alpha); }},
});

}  // namespace unbiasedness_experiment

}  // namespace poslsh
