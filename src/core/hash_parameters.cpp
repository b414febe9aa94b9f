#include <poslsh/argument_error.h>
#include <poslsh/hash_parameters.h>

namespace poslsh {

HashParameters::HashParameters(std::int64_t n, double sigma, std::int64_t s)
    : n_(n), sigma_(sigma), s_(s) {
  check::at_least("n", n, 1);
  check::positive_finite("sigma", sigma);
  check::hash_count("s", s);
}

}  // namespace poslsh
