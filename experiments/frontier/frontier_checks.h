// `poslsh check` on a frontier table: one line per (kernel, sigma, n) saying
// which of positional LSH and the window is more accurate at equal cost, at
// each s, by an exact one-sided sign test over the trials' paired relative
// errors (the window's keys are at most the LSH row's). Each direction at
// each s is one test; alpha is split equally over them (Bonferroni).
//
// ALiBi's kernel (laplace) is where docs/MATH.md §8 predicts the answer (the
// window at every cost): its lines PASS when the window wins at every s,
// FAIL when LSH wins at some s, and are info (with the trials that would
// decide) otherwise. Other kernels have no prediction: their lines are info,
// the measured answer.
#pragma once

#include <vector>

#include "experiments/checks/check_outcome.h"
#include "runner/csv_table.h"

namespace poslsh {

std::vector<CheckOutcome> check_frontier_table(const CsvTable& table, double alpha);

}  // namespace poslsh
