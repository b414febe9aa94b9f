// What `poslsh reproduce` will do, decided before anything runs: its options,
// the sections of the config it runs (in config order), where the results go,
// how the experiments are launched (--shards, --launcher, --threads) and the
// planted defect, if any. Bad input is refused here, with nothing written but
// the results directory.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "experiments/defects/planted_defect.h"
#include "apps/launcher.h"

namespace CLI {
class App;
}

namespace poslsh::reproduce_steps {

// The options of `poslsh reproduce`.
struct ReproduceOptions {
  std::string out;
  int threads = 0;
  int shards = 1;
  std::string launcher = "local";
  bool resume = false, no_plots = false, quiet = false, no_timing = false, strict = false;
  PlantDefectOption plant;
};

void declare_reproduce_options(CLI::App& cmd, ReproduceOptions& o);

// What one reproduce run does, from its validated options and config.
struct ReproducePlan {
  std::string config, toml, out;
  LaunchPlan launch;
  bool sharded = false;               // more than one shard, or a launcher other than local
  std::vector<std::string> sections;  // to run, in config order
  PlantedDefect defect;               // --plant-defect: passed to every section that draws hashes
  std::set<std::string> plantable;    // the sections whose command takes --plant-defect
};

// The plan of `top`'s --config and the options; throws UsageError (bad
// options, a section that names no experiment) or InputError (an unreadable
// config, an unwritable --out).
ReproducePlan plan_reproduce(const CLI::App& top, const ReproduceOptions& o);

// Sections name what to run: [convergence] runs `poslsh convergence`,
// [bench.attention] runs `poslsh bench attention`.
std::vector<std::string> sections_to_run(const std::string& toml, const std::string& config);

// Whether a section runs a benchmark ([bench.NAME]), whose table is reported,
// not checked.
bool is_bench_section(const std::string& section);
// The experiment a section runs: "bench.attention" and "attention" both run
// attention's registration (the first its benchmark).
std::string section_experiment(const std::string& section);

}  // namespace poslsh::reproduce_steps
