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

TEST(WeightedLeastSquares, RecoversAnExactLine) {
  const std::vector<double> x = {1, 2, 3, 4}, y = {5, 7, 9, 11}, w = {1, 4, 0.5, 2};
  const auto line = stats::weighted_least_squares(x, y, w);
  EXPECT_NEAR(line.slope, 2.0, 1e-14);
  EXPECT_NEAR(line.intercept, 3.0, 1e-13);
  EXPECT_NEAR(line.chi_square, 0.0, 1e-24);
}

TEST(WeightedLeastSquares, WeightsPullTheLine) {
  // Points (0, 0), (1, 2), (2, 1): unweighted slope 0.5 (as least_squares_slope),
  // chi-square 1.5; weighting (1, 2) 100-fold pulls the line through it.
  const std::vector<double> x = {0, 1, 2}, y = {0, 2, 1};
  const auto plain = stats::weighted_least_squares(x, y, {1, 1, 1});
  EXPECT_DOUBLE_EQ(plain.slope, stats::least_squares_slope(x, y));
  EXPECT_NEAR(plain.chi_square, 1.5, 1e-14);
  const auto pulled = stats::weighted_least_squares(x, y, {1, 100, 1});
  EXPECT_NEAR(pulled.slope, 0.5, 1e-14);  // symmetric weights around x = 1: slope unchanged
  EXPECT_NEAR(pulled.intercept + pulled.slope, 201.0 / 102, 1e-14);  // the weighted mean of y
  EXPECT_LT(std::abs(pulled.intercept + pulled.slope - 2.0),
            std::abs(plain.intercept + plain.slope - 2.0));
  const auto tilted = stats::weighted_least_squares(x, y, {100, 1, 1});
  EXPECT_NEAR(tilted.intercept, 0.0, 0.02);  // through (0, 0)
}

TEST(WeightedLeastSquares, ConstantFitIsTheWeightedMean) {
  const auto c = stats::weighted_least_squares({}, {1, 4}, {3, 1});
  EXPECT_DOUBLE_EQ(c.intercept, 1.75);
  EXPECT_EQ(c.slope, 0.0);
  EXPECT_DOUBLE_EQ(c.chi_square, 3 * 0.75 * 0.75 + 1 * 2.25 * 2.25);
}

TEST(WeightedLeastSquares, UndefinedWithoutSpreadInX) {
  const auto line = stats::weighted_least_squares({2, 2}, {1, 3}, {1, 1});
  EXPECT_TRUE(std::isnan(line.slope));
}

TEST(WeightedLeastSquares, RefusesMismatchedArrays) {
  EXPECT_THROW(stats::weighted_least_squares({1, 2}, {1, 2, 3}, {1, 1, 1}), std::logic_error);
  EXPECT_THROW(stats::weighted_least_squares({}, {1, 2}, {1}), std::logic_error);
  EXPECT_THROW(stats::weighted_least_squares({}, {1, 2}, {0, 0}), std::logic_error);
  EXPECT_THROW(stats::weighted_least_squares({}, {1, 2}, {-1, 2}), std::logic_error);
}

}  // namespace
}  // namespace poslsh
