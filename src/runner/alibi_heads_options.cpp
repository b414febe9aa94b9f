#include "runner/alibi_heads_options.h"

#include <fmt/format.h>

#include <bit>

#include "runner/cli_common.h"

namespace poslsh {

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

}  // namespace poslsh
