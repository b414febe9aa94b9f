#include <poslsh/alibi_heads.h>
#include <poslsh/argument_error.h>
#include <poslsh/rng.h>

#include <bit>
#include <cmath>

namespace poslsh {

std::vector<double> alibi_head_sigmas(int heads) {
  check::at_least("heads", heads, 1);
  const auto p = static_cast<int>(std::bit_floor(static_cast<unsigned>(heads)));
  std::vector<double> sigmas;
  sigmas.reserve(static_cast<std::size_t>(heads));
  // get_slopes(P): m_h = 2^(-8h/P).
  for (int h = 1; h <= p; ++h) sigmas.push_back(std::exp2(8.0 * h / p));
  // get_slopes(2P)[0::2][:H-P]: slopes 2^(-8(2j+1)/(2P)) = 2^(-4(2j+1)/P).
  for (int j = 0; j < heads - p; ++j) sigmas.push_back(std::exp2(4.0 * (2 * j + 1) / p));
  return sigmas;
}

std::uint64_t independent_head_seed(std::uint64_t seed, std::size_t head) {
  return mix64(mix64(seed ^ 0xbb67ae8584caa73bULL) ^
               (static_cast<std::uint64_t>(head) + 0x1f83d9abfb41bd6bULL));
}

}  // namespace poslsh
