// The power table's summary (rates with two-sided Clopper-Pearson intervals)
// and its section of the reproduction report.
#include "experiments/power/power.h"

#include <fmt/format.h>
#include <poslsh/input_error.h>

#include <algorithm>
#include <filesystem>
#include <map>

#include "runner/csv_writer.h"
#include "runner/report_document.h"
#include "stats/binomial.h"

namespace poslsh {

namespace power_report {  // named: the experiments are a unity build

struct Interval {
  double low, high;
};
// Two-sided Clopper-Pearson interval at confidence 1 - alpha.
Interval clopper_pearson(const PowerRate& r, double alpha) {
  return {stats::clopper_pearson_lower(r.failed, r.seeds, alpha / 2),
          stats::clopper_pearson_upper(r.failed, r.seeds, alpha / 2)};
}

}  // namespace power_report

std::string power_summary_csv(const CsvTable& table) {
  const PowerRates pr = power_rates(table);
  std::string text =
      csv_line({"defect", "family", "check", "seeds", "failed", "rate", "ci95_low", "ci95_high"});
  for (const auto& key : pr.order) {
    const PowerRate& r = pr.rates.at(key);
    const power_report::Interval ci = power_report::clopper_pearson(r, 0.05);
    text += csv_line({std::get<0>(key), std::get<1>(key), std::get<2>(key), std::to_string(r.seeds),
                      std::to_string(r.failed),
                      fmt::format("{:.4f}", static_cast<double>(r.failed) / r.seeds),
                      fmt::format("{:.4f}", ci.low), fmt::format("{:.4f}", ci.high)});
  }
  return text;
}

namespace power_report {

// The power section's table: header and rows.
std::pair<std::vector<std::string>, std::vector<std::vector<std::string>>> power_report_table(
    const CsvTable& summary) {
  std::vector<std::string> defects, families;
  std::map<std::pair<std::string, std::string>, std::size_t> any;  // (defect, family) -> row
  for (std::size_t r = 0; r < summary.size(); ++r) {
    if (summary.text(r, "check") != "any") continue;
    const std::string d = summary.text(r, "defect"), f = summary.text(r, "family");
    if (std::find(defects.begin(), defects.end(), d) == defects.end()) defects.push_back(d);
    if (f != "all" && std::find(families.begin(), families.end(), f) == families.end())
      families.push_back(f);
    any[{d, f}] = r;
  }
  std::vector<std::string> header = {"sampler", "seeds", "some check failed", "95% interval"};
  header.insert(header.end(), families.begin(), families.end());
  std::vector<std::vector<std::string>> rows;
  for (const auto& d : defects) {
    if (!any.contains({d, "all"})) continue;
    const std::size_t r = any.at({d, "all"});
    rows.push_back({d, summary.text(r, "seeds"), summary.text(r, "rate"),
                    fmt::format("[{}, {}]", summary.text(r, "ci95_low"),
                                summary.text(r, "ci95_high"))});
    for (const auto& f : families)
      rows.back().push_back(any.contains({d, f}) ? summary.text(any.at({d, f}), "rate") : "n/a");
  }
  return {header, rows};
}

}  // namespace power_report

void add_power_report_section(ReportDocument& doc, const std::string& table_csv) {
  const std::string summary = summary_path(table_csv);
  doc.heading(2, "What the checks detect");
  const auto [header, rows] = power_report::power_report_table(CsvTable::read(summary));
  doc.table(header, rows);
  doc.paragraph(fmt::format(
      "A sampler is detected by a seed when some check of the family tables built from it "
      "fails (per check: [{0}]({0})).",
      std::filesystem::path(summary).filename().string()));
}

}  // namespace poslsh
