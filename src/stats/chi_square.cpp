#include "stats/chi_square.h"

#include <boost/math/distributions/chi_squared.hpp>
#include <limits>
#include <stdexcept>

namespace poslsh::stats {

ChiSquareResult chi_square_test(std::span<const double> observed,
                                std::span<const double> expected) {
  if (observed.size() != expected.size())
    throw std::logic_error("observed and expected must have the same number of cells");
  ChiSquareResult out;
  for (std::size_t c = 0; c < observed.size(); ++c) {
    if (!(expected[c] > 0)) throw std::logic_error("expected counts must be > 0");
    const double d = observed[c] - expected[c];
    out.statistic += d * d / expected[c];
  }
  out.dof = static_cast<int>(observed.size()) - 1;
  out.testable = out.dof >= 1;
  if (!out.testable) {
    out.p_value = std::numeric_limits<double>::quiet_NaN();
    return out;
  }
  const boost::math::chi_squared_distribution<double> chi2(out.dof);
  out.p_value = boost::math::cdf(boost::math::complement(chi2, out.statistic));
  return out;
}

}  // namespace poslsh::stats
