#include "experiments/check_file.h"

#include <fmt/format.h>
#include <poslsh/input_error.h>

#include <algorithm>
#include <stdexcept>

#include "experiments/experiment.h"

namespace poslsh {

CheckReport check_file(const std::string& path, double alpha) {
  const CsvTable table = CsvTable::read(path);
  if (table.size() == 0)
    throw InputError(
        fmt::format("'{}' has a header and no rows: nothing to check (an interrupted run keeps "
                    "its rows in <out>.partial)",
                    path));
  const ExperimentRegistration* best = nullptr;
  for (const auto& e : experiments()) {
    if (!e.checker.run || e.checker.required_columns.empty()) continue;
    const bool fits =
        std::all_of(e.checker.required_columns.begin(), e.checker.required_columns.end(),
                    [&](const std::string& c) { return table.has_column(c); });
    if (fits &&
        (!best || e.checker.required_columns.size() > best->checker.required_columns.size()))
      best = &e;
  }
  if (!best)
    throw InputError(fmt::format(
        "'{}': no experiment recognises its columns (expected a convergence, blocksize or "
        "attention table)",
        path));
  try {
    return {best->name, best->checker.run(table, alpha)};
  } catch (const InputError& e) {
    throw InputError(fmt::format("'{}' ({} table) is unusable: {}", path, best->name, e.what()));
  }
}

}  // namespace poslsh
