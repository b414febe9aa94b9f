#include "apps/reproduce_figures.h"

#include <fmt/format.h>
#include <poslsh/input_error.h>

#include <atomic>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "experiments/experiment.h"
#include "runner/worker_process.h"
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

// Each request drawn by one of a few plots/serve.py processes, one per core,
// taking the next figure as they finish one: importing numpy and matplotlib
// costs more than most figures, so a process per figure spent most of its
// time starting (docs/benchmarks.md).
std::vector<int> draw_in_servers(const fs::path& plots, const std::vector<std::string>& requests,
                                 bool quiet) {
  std::vector<int> codes(requests.size(), 0);
  std::atomic<std::size_t> next{0};
  const auto serve = [&] {
    WorkerProcess server({"/usr/bin/python3", (plots / "serve.py").string()}, quiet);
    for (std::size_t i; (i = next.fetch_add(1)) < requests.size();)
      codes[i] = server.call(requests[i]);
  };
  const std::size_t servers = std::min<std::size_t>(
      requests.size(), std::max(1u, std::thread::hardware_concurrency()));
  std::vector<std::thread> threads;
  for (std::size_t t = 0; t < servers; ++t) threads.emplace_back(serve);
  for (auto& t : threads) t.join();
  return codes;
}

}  // namespace

std::vector<Figure> draw_figures(const std::vector<Ran>& ran, const fs::path& plots,
                                 const std::string& out, bool quiet) {
  std::vector<FigureSpec> specs;
  std::vector<std::string> requests;
  for (const auto& r : ran) {
    if (r.exit_code != 0) continue;
    for (const auto& figure : figures_of(r)) {
      specs.push_back(figure);
      requests.push_back(
          nlohmann::json::array({figure.script, r.csv, figure_png(figure, out).string()}).dump());
    }
  }
  const std::vector<int> codes = draw_in_servers(plots, requests, quiet);
  std::vector<Figure> figures;
  for (std::size_t i = 0; i < specs.size(); ++i)
    figures.push_back(drawn_figure(specs[i], out, codes[i]));
  return figures;
}

}  // namespace poslsh::reproduce_steps
