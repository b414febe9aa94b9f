#include "alibi_heads.h"

#include <fmt/format.h>

#include <bit>
#include <cmath>

#include "cli_common.h"

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

}  // namespace poslsh
