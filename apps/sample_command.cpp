// `poslsh sample`: exports exactly the hashes every experiment uses for a
// (seed, trial), so any result can be recomputed independently.
#include <poslsh/hash_parameters.h>
#include <poslsh/positional_hash.h>

#include <memory>

#include "commands.h"
#include "experiments/defects/planted_defect.h"
#include "experiments/kernel_option.h"
#include "runner/atomic_file.h"
#include "runner/cli_common.h"
#include "runner/csv_writer.h"
#include "runner/resolved_config.h"
#include "runner/run_record.h"
#include "runner/version.h"

namespace poslsh {

Action add_sample_command(CLI::App& app) {
  struct Options {
    std::int64_t n = 0, s = 0;
    double sigma = 0;
    std::uint64_t seed = 0, trial = 0;
    bool blocks = false;
    std::string out, kernel = "laplace";
    PlantDefectOption plant;
  };
  auto o = std::make_shared<Options>();
  auto* cmd =
      app.add_subcommand("sample", "Export the hashes (pitch, shift) or blocks of a (seed, trial)");
  cmd->add_option("--n", o->n, "Context length: positions 0..n-1 (>= 1)")->required();
  cmd->add_option("--sigma", o->sigma, "ALiBi scale sigma = 1/slope (> 0)")->required();
  cmd->add_option("--s", o->s, "Number of hashes (>= 1)")->required();
  cmd->add_option("--seed", o->seed, "Random seed")->capture_default_str();
  cmd->add_option("--trial", o->trial, "Trial index (independent hash sets per trial)")
      ->capture_default_str();
  cmd->add_option("--kernel", o->kernel, std::string(kKernelHelp) + " (default: laplace)");
  cmd->add_flag("--blocks", o->blocks, "Write blocks (sample,start,end; end exclusive) instead");
  cmd->add_option("--out", o->out, "Output CSV (written atomically; - for standard output)")
      ->required();
  o->plant.declare(*cmd);
  return [o, cmd] {
    const HashParameters hash(o->n, o->sigma, o->s);  // the one check of n, sigma, s
    const PlantedDefect defect = o->plant.resolve();
    const Kernel kernel = parse_kernel(o->kernel, o->sigma);
    if (kernel.family() != KernelFamily::kLaplace && !defect.sound())
      throw UsageError("--plant-defect: the planted samplers are ALiBi's; use --kernel laplace");
    AtomicFile file(o->out, "--out");
    const auto hashes = kernel.family() == KernelFamily::kLaplace
                            ? draw_hashes(o->seed, defect, o->trial, hash)
                            : draw_kernel_hashes(kernel, o->seed, o->trial, o->s);
    CsvWriter table(o->blocks ? std::vector<std::string>{"sample", "start", "end"}
                              : std::vector<std::string>{"sample", "pitch", "shift"});
    const BlockCutter cut = block_cutter(defect);  // block_starts, unless a bug is planted
    for (std::int64_t k = 0; k < o->s; ++k) {
      const auto& h = hashes[k];
      if (!o->blocks) {
        table.row_of(k, h.pitch, h.shift);
        continue;
      }
      const auto starts = cut(h, o->n);
      for (std::size_t b = 0; b + 1 < starts.size(); ++b) table.row_of(k, starts[b], starts[b + 1]);
      if (table.buffered_bytes() > (1u << 24)) file.write(table.take());
    }
    file.write(table.take());
    // Provenance, as every experiment writes it: `poslsh rerun` replays it.
    const auto meta_path = companion_path(o->out, ".meta.json");
    if (!meta_path) {
      file.commit();
      say_stream_carries_the_table_alone("poslsh sample", o->out);
      return 0;
    }
    AtomicFile meta(*meta_path, "--out");
    RecordedOptions recorded;
    o->plant.record(*cmd, recorded);
    if (kernel.family() == KernelFamily::kLaplace) recorded.omitted.insert("kernel");  // as before --kernel
    meta.write(RunRecord::of_this_build()
                   .set("experiment", "sample")
                   .set("seed", o->seed)
                   .set("config", resolved_config(*cmd, recorded))
                   .to_text());
    file.commit();
    meta.commit();
    return 0;
  };
}

}  // namespace poslsh
