#include "apps/reproduce_checks.h"

#include <fmt/format.h>

#include <algorithm>

#include "apps/commands.h"
#include "experiments/check_file.h"

namespace poslsh::reproduce_steps {


void CheckSummary::tally(const std::string& table, const std::string& check, Verdict v,
                         const std::string& detail) {
  checks_csv.row({table, verdict_name(v), check, detail});
  const std::string family = check_family(check);
  auto it = std::find_if(families.begin(), families.end(),
                         [&](const Family& f) { return f.table == table && f.family == family; });
  if (it == families.end()) it = families.insert(families.end(), {table, family});
  (v == Verdict::kFail      ? it->fail
   : v == Verdict::kPass    ? it->pass
   : v == Verdict::kInfo    ? it->info
   : v == Verdict::kWarning ? it->warn
                            : it->not_applicable)++;
  if (v == Verdict::kWarning)
    warnings.push_back(fmt::format("**{}** `{}`: {}", table, check, detail));
  if (v == Verdict::kFail) {
    ++failed;
    failures.push_back(fmt::format("**{}** `{}`: {}", table, check, detail));
  }
}

CheckSummary check_tables(const std::vector<Ran>& ran) {
  CheckSummary summary;
  std::vector<std::string> sections;
  for (const auto& r : ran) sections.push_back(r.section);
  const double table_alpha = reproduce_table_alpha(sections);
  for (const auto& r : ran) {
    if (r.exit_code != 0) {
      summary.tally(r.section, "run", Verdict::kFail, fmt::format("exit code {}", r.exit_code));
      continue;
    }
    if (r.is_bench) {
      summary.bench_tables.emplace_back(r.section, r.csv);
      continue;
    }
    summary.outcomes.scope = r.section;
    for (const auto& c : check_file(r.csv, table_alpha).outcomes) {
      summary.tally(r.section, c.check, c.verdict, c.detail);
      count_outcome(c, summary.outcomes);
    }
  }
  return summary;
}

}  // namespace poslsh::reproduce_steps
