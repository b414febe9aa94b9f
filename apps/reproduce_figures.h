// The figures of a reproduction: each experiment that ran declares its own
// (ExperimentRegistration::figures and bench_figures, experiments/experiment.h);
// reproduce runs their plot scripts side by side, in the order the sections
// ran, and keeps what each drew or why it did not.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "apps/reproduce_run.h"

namespace poslsh::reproduce_steps {

// A figure drawn (or not) by its plot script: NAME.png, .pdf, .svg and the
// one-line NAME.caption.txt (what it shows, what the theory predicts).
struct Figure {
  std::string script, name, title, caption;
  int exit_code;  // the script's; -1 when it broke its contract (no caption or no PNG)
};

// The plot scripts, found beside the binary (runner/data_files.h). Throws
// InputError when they are not there.
std::filesystem::path plot_scripts_dir();

// The figures of the sections that ran successfully, drawn into `out` by the
// scripts in `plots`.
std::vector<Figure> draw_figures(const std::vector<Ran>& ran, const std::filesystem::path& plots,
                                 const std::string& out, bool quiet);

}  // namespace poslsh::reproduce_steps
