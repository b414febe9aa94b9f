#include "experiments/frontier/frontier_checks.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

#include "runner/text_format.h"
#include "stats/binomial.h"

namespace poslsh {

namespace frontier_checks {

// One s of one (kernel, sigma, n): the paired errors of each trial.
struct Pairs {
  std::map<std::int64_t, double> lsh, window;  // by trial
  double lsh_keys = 0, window_keys = 0;        // summed over trials
};

using Panel = std::tuple<std::string, std::string, std::int64_t, std::int64_t>;  // kernel, sigma, n, head

std::map<Panel, std::map<std::int64_t, Pairs>> read_pairs(const CsvTable& t) {
  std::map<Panel, std::map<std::int64_t, Pairs>> panels;
  for (std::size_t r = 0; r < t.size(); ++r) {
    const std::string method = t.text(r, "method");
    if (method != "lsh" && method != "window")
      unusable(fmt::format("row {}, column method: expected lsh or window, got '{}'",
                           CsvTable::line_of(r), method));
    const double err = t.number(r, "rel_error"), keys = t.number(r, "keys_per_query");
    if (!std::isfinite(err) || !std::isfinite(keys))
      unusable(fmt::format("row {}: rel_error and keys_per_query must be finite numbers",
                           CsvTable::line_of(r)));
    Pairs& p = panels[{t.text(r, "kernel"), t.text(r, "sigma"), t.integer(r, "n", 1, std::int64_t{1} << 50),
                       t.integer(r, "head", 0, 1 << 20)}][t.integer(r, "s", 1, 1 << 30)];
    const std::int64_t trial = t.integer(r, "trial", 0, std::int64_t{1} << 40);
    (method == "lsh" ? p.lsh : p.window)[trial] = err;
    (method == "lsh" ? p.lsh_keys : p.window_keys) += keys;
  }
  return panels;
}

enum class Winner { kWindow, kLsh, kUndecided };

struct Decision {
  Winner winner = Winner::kUndecided;
  std::size_t trials = 0, window_wins = 0, lsh_wins = 0;
  double lsh_mean = 0, window_mean = 0;
};

Decision decide(const Pairs& p, double level) {
  Decision d;
  for (const auto& [trial, lsh] : p.lsh) {
    const auto it = p.window.find(trial);
    if (it == p.window.end()) continue;
    ++d.trials;
    d.lsh_mean += lsh;
    d.window_mean += it->second;
    d.window_wins += it->second < lsh;
    d.lsh_wins += lsh < it->second;
  }
  if (d.trials == 0) return d;
  d.lsh_mean /= static_cast<double>(d.trials);
  d.window_mean /= static_cast<double>(d.trials);
  const std::size_t m = d.window_wins + d.lsh_wins;  // ties carry no sign
  if (stats::half_binomial_tail(m, d.window_wins) <= level) d.winner = Winner::kWindow;
  if (stats::half_binomial_tail(m, d.lsh_wins) <= level) d.winner = Winner::kLsh;
  return d;
}

std::string s_list(const std::vector<std::int64_t>& s) {
  if (s.empty()) return "none";
  std::string text;
  for (const auto v : s) text += (text.empty() ? "" : ",") + std::to_string(v);
  return text;
}

CheckOutcome panel_line(const Panel& panel, const std::map<std::int64_t, Pairs>& by_s,
                        double level, bool name_head) {
  std::vector<std::int64_t> window, lsh, undecided;
  std::string at_largest;
  std::size_t fewest_trials = SIZE_MAX;
  for (const auto& [s, pairs] : by_s) {
    const Decision d = decide(pairs, level);
    fewest_trials = std::min(fewest_trials, d.trials);
    (d.winner == Winner::kWindow ? window : d.winner == Winner::kLsh ? lsh : undecided).push_back(s);
    at_largest = fmt::format("at s={}: {:.3g} keys, rel error lsh {:.3g}, window {:.3g}", s,
                             pairs.lsh_keys / static_cast<double>(std::max<std::size_t>(1, d.trials)),
                             d.lsh_mean, d.window_mean);
  }
  const auto& [kernel, sigma, n, head] = panel;
  CheckOutcome out{fmt::format("frontier[kernel={},sigma={},n={}{}]", kernel, sigma, n,
                               name_head ? fmt::format(",head={}", head) : std::string()),
                   Verdict::kInfo,
                   fmt::format("window wins at s = {}; LSH wins at s = {}; undecided at s = {} "
                               "(one-sided sign tests over paired trials, each at {:.2g}); {}",
                               s_list(window), s_list(lsh), s_list(undecided), level, at_largest)};
  if (!undecided.empty())  // the fewest that can decide, or twice as many as could not
    out.remedy = fmt::format(
        "use --trials >= {} (a sign test decides when nearly every trial agrees)",
        std::max(stats::sign_test_trials_needed(level), 2 * fewest_trials));
  if (kernel == "laplace") {  // MATH §8: the window at every cost
    if (!lsh.empty())
      out.verdict = Verdict::kFail;
    else if (undecided.empty())
      out.verdict = Verdict::kPass;
  }
  return out;
}

}  // namespace frontier_checks

std::vector<CheckOutcome> check_frontier_table(const CsvTable& table, double alpha) {
  using namespace frontier_checks;
  const auto panels = read_pairs(table);
  std::size_t tests = 0;
  for (const auto& [panel, by_s] : panels) tests += 2 * by_s.size();
  const double level = alpha / static_cast<double>(std::max<std::size_t>(1, tests));
  bool heads = false;  // a table of several heads (--qkv files) names each line's
  for (const auto& [panel, by_s] : panels) heads = heads || std::get<3>(panel) > 0;
  std::vector<CheckOutcome> out;
  for (const auto& [panel, by_s] : panels) out.push_back(panel_line(panel, by_s, level, heads));
  return out;
}

}  // namespace poslsh
