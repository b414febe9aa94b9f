#include "alibi_heads.h"

#include <fmt/format.h>

#include <bit>
#include <cmath>

#include "cli_common.h"
#include "rng.h"

namespace poslsh {

std::vector<double> alibi_head_sigmas(int heads) {
  if (heads < 1)
    throw UsageError(fmt::format("--alibi-heads must be an integer >= 1 (got {})", heads));
  const auto p = static_cast<int>(std::bit_floor(static_cast<unsigned>(heads)));
  std::vector<double> sigmas;
  sigmas.reserve(static_cast<std::size_t>(heads));
  // get_slopes(P): m_h = 2^(-8h/P).
  for (int h = 1; h <= p; ++h) sigmas.push_back(std::exp2(8.0 * h / p));
  // get_slopes(2P)[0::2][:H-P]: slopes 2^(-8(2j+1)/(2P)) = 2^(-4(2j+1)/P).
  for (int j = 0; j < heads - p; ++j) sigmas.push_back(std::exp2(4.0 * (2 * j + 1) / p));
  return sigmas;
}

std::string alibi_heads_config_note(int heads) {
  if (heads < 1 || std::has_single_bit(static_cast<unsigned>(heads))) return "";
  return fmt::format(
      "# alibi-heads = {}: the scales of Press et al.'s get_slopes({}), not 2^(8h/H)\n", heads,
      heads);
}

std::uint64_t independent_head_seed(std::uint64_t seed, std::size_t head) {
  return mix64(mix64(seed ^ 0xbb67ae8584caa73bULL) ^
               (static_cast<std::uint64_t>(head) + 0x1f83d9abfb41bd6bULL));
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
