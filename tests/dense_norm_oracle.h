// ||E||_2 densely, the oracle of the spectral-error tests: largest |eigenvalue|
// (symmetric), or sqrt of the largest eigenvalue of E^T E (causal).
#pragma once

#include <poslsh/error_operator.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>

namespace poslsh::testing {

inline double dense_norm(const ErrorOperator& e) {
  const Eigen::MatrixXd d = e.dense();
  if (e.form() == Form::kSymmetric) {
    Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es(d, Eigen::EigenvaluesOnly);
    return es.eigenvalues().cwiseAbs().maxCoeff();
  }
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es(d.transpose() * d, Eigen::EigenvaluesOnly);
  return std::sqrt(std::max(0.0, es.eigenvalues().maxCoeff()));
}

}  // namespace poslsh::testing
