// The experiments' options that set a core argument (argument_flags.h): the
// flags that name the core's arguments in its ArgumentErrors, so that one is
// printed with the flag the user typed (runner/cli_errors.h: flag_for), and
// the ALiBi scales' options.
#include "experiments/argument_flags.h"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <bit>

#include "runner/cli_common.h"
#include "runner/resolved_config.h"

namespace poslsh {
namespace argument_flags {

// A named namespace, not an anonymous one: the experiments are a unity build.
// The runner registers its sweep's own --threads; these are the experiments'.
const bool kRegistered = register_argument_flag("alpha", "--kernel") &&
                         register_argument_flag("band_tol", "--band-tol") &&
                         register_argument_flag("beta", "--kernel") &&
                         register_argument_flag("bias", "--kernel") &&
                         register_argument_flag("kernel", "--kernel") &&
                         register_argument_flag("batch", "--batch") &&
                         register_argument_flag("heads", "--alibi-heads") &&
                         register_argument_flag("max_iterations", "--max-lanczos") &&
                         register_argument_flag("n", "--n") &&
                         register_argument_flag("p", "--p") &&
                         register_argument_flag("points", "--points") &&
                         register_argument_flag("rel_tol", "--spectral-tol") &&
                         register_argument_flag("s", "--s") &&
                         register_argument_flag("sigma", "--sigma") &&
                         register_argument_flag("starts", "--lanczos-starts") &&
                         register_argument_flag("trials", "--trials") &&
                         register_argument_flag("upper_q", "--upper-q") &&
                         register_argument_flag("upper_width", "--upper-width") &&
                         register_argument_flag("width", "--sigma");

}  // namespace argument_flags

std::string alibi_heads_config_note(int heads) {
  if (heads < 1 || std::has_single_bit(static_cast<unsigned>(heads))) return "";
  return fmt::format(
      "# alibi-heads = {}: the scales of Press et al.'s get_slopes({}), not 2^(8h/H)\n", heads,
      heads);
}

std::string alibi_heads_help(bool zero_is_off) {
  return std::string(zero_is_off ? "Instead of --sigma (0: off)" : "Instead of --sigma") +
         ": the H standard ALiBi heads of Press et al., sigma_h = 1/m_h with slopes "
         "m_h = 2^(-8h/H), h = 1..H, for H a power of 2 (otherwise their get_slopes(H) list: "
         "the slopes for the largest power of 2 below H, then every other slope for twice "
         "that). All heads share one draw of random numbers (the same hashes, scaled by "
         "sigma_h) unless --independent-heads is given";
}

const char* const kIndependentHeadsHelp =
    "With --alibi-heads: each head draws its own random numbers (from a seed derived from "
    "--seed and the head) instead of all heads sharing one draw";

void require_heads_for_independent(bool independent_heads, bool by_heads) {
  if (independent_heads && !by_heads)
    throw UsageError(
        "--independent-heads needs --alibi-heads H (scales given with --sigma share one draw)");
}

std::string AlibiScales::config_note() const {
  return by_heads() ? alibi_heads_config_note(heads) : "";
}

AlibiScales resolve_alibi_scales(CLI::App& command, const std::vector<double>& sigma,
                                 int alibi_heads, bool independent_heads, bool zero_is_off) {
  const bool by_heads = command.count("--alibi-heads") > 0 && !(zero_is_off && alibi_heads == 0);
  if (by_heads && command.count("--sigma") > 0)
    throw UsageError("--sigma and --alibi-heads are exclusive: give one of them, not both");
  require_heads_for_independent(independent_heads, by_heads);
  if (!independent_heads)
    if (CLI::Option* flag = command.get_option_no_throw("--independent-heads")) flag->clear();
  if (by_heads) {
    require_at_least("--alibi-heads", alibi_heads, 1);
    return {alibi_head_sigmas(alibi_heads), alibi_heads};
  }
  if (sigma.empty())
    throw UsageError("--sigma needs at least one scale > 0 (or give --alibi-heads H)");
  require_positive_finite("--sigma", sigma);
  return {sigma, 0};
}

void record_alibi_scales(const CLI::App& command, RecordedOptions& recorded) {
  if (option_given(command, "alibi-heads", "0")) recorded.omitted.insert("sigma");
}

}  // namespace poslsh
