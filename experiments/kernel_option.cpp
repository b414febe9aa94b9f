#include "experiments/kernel_option.h"

#include <fmt/format.h>
#include <poslsh/argument_error.h>

#include <optional>
#include <sstream>

#include "internal/printable.h"
#include "runner/atomic_file.h"
#include "runner/cli_errors.h"

namespace poslsh {

namespace {

// The whole of `text` as a number, or nothing.
std::optional<double> number_of(const std::string& text) {
  std::size_t used = 0;
  double v = 0;
  try {
    v = std::stod(text, &used);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  if (used == 0 || used != text.size()) return std::nullopt;
  return v;
}

// The numbers of a table file, separated by commas or white space.
std::vector<double> table_numbers(const std::string& path) {
  std::string text = read_file("--kernel", path);
  for (char& c : text)
    if (c == ',') c = ' ';
  std::istringstream in(text);
  std::vector<double> values;
  for (std::string word; in >> word;) {
    const auto v = number_of(word);
    if (!v)
      throw UsageError(fmt::format("--kernel: {} holds '{}', not a number", detail::printable(path),
                                   detail::printable(word)));
    values.push_back(*v);
  }
  return values;
}

// "1;0.5;0.25": a table written inline (a table's `kernel` column).
std::vector<double> inline_numbers(const std::string& text) {
  std::vector<double> values;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ';');) {
    const auto v = number_of(item);
    if (!v)
      throw UsageError(fmt::format("--kernel values:...: '{}' is not a number", detail::printable(item)));
    values.push_back(*v);
  }
  return values;
}

double shape_of(const std::string& spec, const std::string& family) {
  const std::string text = spec.substr(family.size() + 1);
  const auto v = number_of(text);
  if (!v)
    throw UsageError(fmt::format("--kernel {}:X needs a number X (got '{}')", family,
                                 detail::printable(text)));
  return *v;
}

bool has_prefix(const std::string& spec, const std::string& family) {
  return spec.rfind(family + ":", 0) == 0;
}

}  // namespace

Kernel parse_kernel(const std::string& spec, double sigma) {
  if (spec == "laplace") return Kernel::laplace(sigma);
  if (spec == "triangle") return Kernel::triangle(sigma);
  if (has_prefix(spec, "power-law")) return Kernel::power_law(sigma, shape_of(spec, "power-law"));
  if (has_prefix(spec, "stretched-exponential"))
    return Kernel::stretched_exponential(sigma, shape_of(spec, "stretched-exponential"));
  if (has_prefix(spec, "table")) return Kernel::tabulated(table_numbers(spec.substr(6)));
  if (has_prefix(spec, "values")) return Kernel::tabulated(inline_numbers(spec.substr(7)));
  if (has_prefix(spec, "bias")) {
    const std::vector<double> bias = table_numbers(spec.substr(5));
    return Kernel::from_bias(bias);
  }
  throw UsageError(fmt::format(
      "--kernel accepts laplace, triangle, power-law:ALPHA, stretched-exponential:BETA, "
      "table:FILE, bias:FILE (got '{}')",
      detail::printable(spec)));
}

}  // namespace poslsh
