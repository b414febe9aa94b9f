#include "apps/reproduce_figures.h"

#include <fmt/format.h>
#include <poslsh/input_error.h>

#include <fstream>

#include "experiments/experiment.h"
#include "runner/child_process.h"
#include "runner/data_files.h"

namespace poslsh::reproduce_steps {

namespace fs = std::filesystem;

fs::path plot_scripts_dir() {
  if (const auto dir = find_data_dir("plots/plotlib.py")) return *dir / "plots";
  std::string searched;
  for (const fs::path& dir : data_dirs())
    searched += (searched.empty() ? "" : ", ") + (dir / "plots").string();
  throw InputError(
      fmt::format("reproduce: the plot scripts are not beside this binary (searched {}); "
                  "reinstall poslsh, or give --no-plots",
                  searched));
}

namespace {

// The figures a section's registrations declare (an experiment's command and
// its benchmark may be registered apart, under one name).
std::vector<FigureSpec> figures_of(const Ran& r) {
  const std::string name = section_experiment(r.section);
  std::vector<FigureSpec> specs;
  for (const auto& e : experiments()) {
    if (e.name != name) continue;
    const auto& declared = r.is_bench ? e.bench_figures : e.figures;
    specs.insert(specs.end(), declared.begin(), declared.end());
  }
  return specs;
}

fs::path figure_png(const FigureSpec& figure, const std::string& out) {
  return fs::path(out) / (figure.file_name() + ".png");
}

// The figure a finished script gave; exit code -1 when it broke its contract
// (no caption or no PNG).
Figure drawn_figure(const FigureSpec& figure, const std::string& out, int rc) {
  std::string caption;
  if (rc == 0) {
    std::ifstream in(fs::path(out) / (figure.file_name() + ".caption.txt"));
    std::getline(in, caption);
    if (caption.empty() || !fs::exists(figure_png(figure, out))) rc = -1;
  }
  return {figure.script, figure.file_name(), figure.title, caption, rc};
}

}  // namespace

std::vector<Figure> draw_figures(const std::vector<Ran>& ran, const fs::path& plots,
                                 const std::string& out, bool quiet) {
  std::vector<FigureSpec> specs;
  std::vector<std::vector<std::string>> commands;
  for (const auto& r : ran) {
    if (r.exit_code != 0) continue;
    for (const auto& figure : figures_of(r)) {
      specs.push_back(figure);
      commands.push_back({"/usr/bin/python3", (plots / (figure.script + ".py")).string(), r.csv,
                          "-o", figure_png(figure, out).string()});
    }
  }
  // Side by side: each script's time is mostly the interpreter's start-up.
  const std::vector<int> codes = run_children(commands, quiet);
  std::vector<Figure> figures;
  for (std::size_t i = 0; i < specs.size(); ++i)
    figures.push_back(drawn_figure(specs[i], out, codes[i]));
  return figures;
}

}  // namespace poslsh::reproduce_steps
