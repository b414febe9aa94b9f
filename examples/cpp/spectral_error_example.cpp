// The spectral and max-norm errors of the mean of s positional-LSH masks
// against the ALiBi kernel, for one (n, sigma, s), with the theorem's bounds:
// what one row of `poslsh convergence --n N --sigma SIGMA --s S --trials 1`
// holds, computed through the library.
//   spectral_error_example N SIGMA S [SEED]
#include <poslsh/poslsh.h>

#include <cstdint>
#include <cstdio>
#include <exception>
#include <string>

int main(int argc, char** argv) {
  if (argc < 4 || argc > 5) {
    std::fprintf(stderr, "usage: %s N SIGMA S [SEED]\n", argv[0]);
    return 2;
  }
  try {
    const std::int64_t n = std::stoll(argv[1]);
    const double sigma = std::stod(argv[2]);
    const std::int64_t s = std::stoll(argv[3]);
    const std::uint64_t seed = argc == 5 ? std::stoull(argv[4]) : 0;
    const std::uint64_t trial = 0;
    const double p = 0.01;  // failure probability of the bounds

    const auto hashes = poslsh::draw_hashes(seed, trial, s, sigma);
    const poslsh::ErrorOperator error(n, hashes, sigma);  // E = mean of s masks - L*

    poslsh::SpectralErrorOptions options;
    options.seed = seed;  // the Lanczos starts, as `poslsh convergence --seed` draws them
    options.trial = trial;
    const poslsh::SpectralErrorResult spectral = poslsh::spectral_error(error, options);
    const poslsh::EntrywiseError entrywise = poslsh::entrywise_error(error);

    std::printf("n=%lld sigma=%.17g s=%lld seed=%llu\n", static_cast<long long>(n), sigma,
                static_cast<long long>(s), static_cast<unsigned long long>(seed));
    std::printf("spectral_error=%.17g status=%s\n", spectral.value,
                std::string(poslsh::to_string(spectral.status)).c_str());
    std::printf("spectral_lower=%.17g spectral_upper=%.17g\n", spectral.lower, spectral.upper);
    std::printf("spectral_bound=%.17g\n", poslsh::spectral_bound(n, sigma, s, p));
    std::printf("max_error=%.17g max_bound=%.17g\n", entrywise.max_error,
                poslsh::max_bound(n, s, p));
    return spectral.status == poslsh::SolveStatus::kOk ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "spectral_error_example: %s\n", e.what());
    return 2;
  }
}
