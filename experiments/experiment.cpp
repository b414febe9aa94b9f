#include "experiments/experiment.h"

#include <algorithm>

namespace poslsh {

namespace {
std::vector<ExperimentRegistration>& registry() {
  static std::vector<ExperimentRegistration> r;
  return r;
}
}  // namespace

bool register_experiment(ExperimentRegistration experiment) {
  auto& r = registry();
  r.push_back(std::move(experiment));
  std::sort(r.begin(), r.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
  return true;
}

const std::vector<ExperimentRegistration>& experiments() { return registry(); }


}  // namespace poslsh
