#include <gtest/gtest.h>

#include <cmath>

#include "stats/least_squares.h"

namespace poslsh {
namespace {

TEST(LeastSquares, RecoversAPowerLawExponent) {
  std::vector<double> x, y;
  for (double s : {4.0, 8.0, 16.0, 64.0, 1024.0}) {
    x.push_back(std::log(s));
    y.push_back(std::log(3.0 * std::pow(s, -0.5)));
  }
  EXPECT_NEAR(stats::least_squares_slope(x, y), -0.5, 1e-14);
  // Far from the origin (x = ln n at n ~ 2^30) the centred formula stays exact.
  for (auto& v : x) v += 1e6;
  EXPECT_NEAR(stats::least_squares_slope(x, y), -0.5, 1e-8);
}

TEST(LeastSquares, FitsTheMiddleOfNoisyPoints) {
  EXPECT_DOUBLE_EQ(stats::least_squares_slope({0, 1, 2, 3}, {0, 2, 1, 3}), 0.8);
}

TEST(LeastSquares, UndefinedWithoutSpreadInX) {
  EXPECT_TRUE(std::isnan(stats::least_squares_slope({2, 2, 2}, {1, 2, 3})));
  EXPECT_TRUE(std::isnan(stats::least_squares_slope({}, {})));
}

}  // namespace
}  // namespace poslsh
