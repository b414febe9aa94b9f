#include "runner/sweep.h"

#include <fmt/format.h>
#include <poslsh/input_error.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <thread>

#include "runner/atomic_file.h"
#include "runner/cli_common.h"
#include "runner/csv_table.h"
#include "runner/csv_writer.h"
#include "runner/progress.h"
#include "runner/run_record.h"
#include "runner/version.h"

namespace poslsh {

void add_sweep_options(CLI::App& cmd, SweepOptions& o) {
  cmd.add_option("--out", o.out, "Output CSV (written atomically; <out>.meta.json beside it)")
      ->required();
  cmd.add_option("--threads", o.threads, "Worker threads over sweep cells (0: all cores)")
      ->capture_default_str();
  cmd.add_flag("--resume", o.resume, "Continue from <out>.partial left by an interrupted run");
  cmd.add_option("--shard", o.shard, "Run only slice K of N of the sweep's cells (K/N)")
      ->capture_default_str();
  cmd.add_flag("--quiet", o.quiet, "No progress output on stderr");
  cmd.add_flag("--no-timing", o.no_timing,
               "Write timing columns empty, for bitwise comparison of outputs");
  cmd.add_option("--max-memory", o.max_memory_gib,
                 "Refuse runs estimated to need more than this many GiB (0: this machine's memory)")
      ->capture_default_str();
}

std::pair<std::size_t, std::size_t> shard_range(std::size_t num_cells, int index, int count) {
  const auto at = [&](int k) {
    return static_cast<std::size_t>((static_cast<unsigned __int128>(num_cells) * k) / count);
  };
  return {at(index - 1), at(index)};
}

std::uint64_t fingerprint(const std::string& text) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char c : text) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  return h;
}

namespace {

// The signal that interrupted the sweep (0: none). SIGINT is Ctrl-C; SIGTERM is
// what schedulers send first (SLURM's scancel, preemption, the end of a time
// limit, KillWait seconds before SIGKILL): both stop the sweep after the cells
// in flight, keeping every finished cell for --resume.
std::atomic<int> g_interrupted{0};
extern "C" void on_interrupt(int sig) {
  g_interrupted.store(sig);
  std::signal(sig, SIG_DFL);  // a second signal ends the process at once
}

// <out>.partial: a header naming the sweep, then one record per finished cell:
//   #cell <index> <rows>\n <rows lines> #end <index>\n
// A record cut short by a kill has no #end line and is ignored on resume.
std::string partial_header(const Sweep& sweep, const SweepOptions& opt) {
  const std::string id = sweep.experiment + "\n" + csv_line(sweep.columns) + sweep.resolved_config +
                         "\nshard=" + opt.shard + (opt.no_timing ? "\nno-timing" : "");
  return fmt::format("#poslsh-partial v1 {} {:016x}\n", sweep.experiment, fingerprint(id));
}

std::map<std::size_t, std::string> read_partial(const std::string& path,
                                                const std::string& header) {
  std::map<std::size_t, std::string> done;
  std::ifstream in(path, std::ios::binary);
  if (!in) return done;
  std::string line;
  if (!std::getline(in, line) || line + "\n" != header)
    throw UsageError(fmt::format(
        "--resume: '{}' belongs to a different sweep (other options, shard or version); "
        "rerun without --resume to start over",
        path));
  while (std::getline(in, line)) {
    std::size_t cell = 0, rows = 0;
    if (std::sscanf(line.c_str(), "#cell %zu %zu", &cell, &rows) != 2) continue;
    std::string body;
    bool complete = true;
    for (std::size_t r = 0; r < rows; ++r) {
      if (!std::getline(in, line) || (!line.empty() && line[0] == '#') || in.eof()) {
        complete = false;
        break;
      }
      body += line + "\n";
    }
    if (!complete) break;
    if (!std::getline(in, line) || line != fmt::format("#end {}", cell)) break;
    done[cell] = std::move(body);
  }
  return done;
}

// What --resume and merge compare to tell sweeps apart: the experiment and
// its resolved options.
std::uint64_t sweep_fingerprint(const Sweep& sweep) {
  return fingerprint(sweep.experiment + "\n" + sweep.resolved_config);
}

std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

std::string machine_description() {
  char host[256] = "unknown";
  ::gethostname(host, sizeof host - 1);
  std::string model = "unknown";
  std::ifstream cpu("/proc/cpuinfo");
  for (std::string line; std::getline(cpu, line);)
    if (line.rfind("model name", 0) == 0) {
      model = line.substr(line.find(':') + 2);
      break;
    }
  return fmt::format("{}; {} hardware threads; {}", host, std::thread::hardware_concurrency(),
                     model);
}

// Whether `out` already holds this sweep's finished table: its sidecar names
// the same experiment, resolved config, shard, timing mode and version, and
// records the table's exact bytes. --resume then has nothing to do, so a
// recipe rerun after an interruption (or a requeued array task that had
// finished) does not recompute finished shards.
bool already_complete(const Sweep& sweep, const SweepOptions& opt) {
  std::ifstream meta_in(opt.out + ".meta.json", std::ios::binary),
      csv_in(opt.out, std::ios::binary);
  if (!meta_in || !csv_in) return false;
  const std::string meta{std::istreambuf_iterator<char>(meta_in), {}};
  const std::string csv{std::istreambuf_iterator<char>(csv_in), {}};
  try {
    const RunRecord record = RunRecord::parse(meta, opt.out, "--resume");
    return record.text("experiment") == sweep.experiment && record.text("shard") == opt.shard &&
           record.text("version") == kVersion && record.boolean("timing") == !opt.no_timing &&
           record.text("config_fingerprint") == hex64(sweep_fingerprint(sweep)) &&
           record.text("csv_fnv1a64") == hex64(fingerprint(csv));
  } catch (const InputError&) {
    return false;  // a sidecar without these fields: run the sweep
  }
}

}  // namespace

double physical_memory_bytes() {
  const long pages = ::sysconf(_SC_PHYS_PAGES), size = ::sysconf(_SC_PAGESIZE);
  return pages > 0 && size > 0 ? static_cast<double>(pages) * static_cast<double>(size) : 0.0;
}

void require_memory(const std::string& what, double bytes, const SweepOptions& options) {
  if (!(options.max_memory_gib >= 0) || !std::isfinite(options.max_memory_gib))
    throw UsageError(
        fmt::format("--max-memory must be a number of GiB >= 0 (0: this machine's "
                    "memory), got {}",
                    format_value(options.max_memory_gib)));
  constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
  const bool machine = options.max_memory_gib == 0;
  const double limit = machine ? physical_memory_bytes() : options.max_memory_gib * kGiB;
  if (limit <= 0 || bytes <= limit) return;
  throw UsageError(fmt::format(
      "{} needs about {:.3g} GiB (estimate), more than {} {:.3g} GiB; nothing was run. Use "
      "fewer --threads or smaller sizes, or --max-memory GIB to override",
      what, bytes / kGiB, machine ? "this machine's memory," : "--max-memory", limit / kGiB));
}

namespace sweep_steps {

// Refuses the run up front when the `threads` largest memory estimates of the
// shard's cells (as many run at once) exceed the limit.
void require_sweep_memory(const Sweep& sweep, const SweepOptions& opt, std::size_t begin,
                          std::size_t end, int threads) {
  if (!sweep.memory_bytes) return;
  std::vector<std::pair<double, std::size_t>> need;
  for (std::size_t c = begin; c < end; ++c) need.emplace_back(sweep.memory_bytes(c), c);
  std::sort(need.begin(), need.end(), std::greater<>());
  double total = 0;
  const std::size_t concurrent = std::min<std::size_t>(need.size(), threads);
  for (std::size_t i = 0; i < concurrent; ++i) total += need[i].first;
  if (!need.empty())
    require_memory(
        fmt::format("{} with {} cell{} at once (largest: {})", sweep.experiment, concurrent,
                    concurrent == 1 ? "" : "s", sweep.label ? sweep.label(need[0].second) : ""),
        total, opt);
}

// Rewrites <out>.partial cleanly with the finished cells (drops a record torn
// by a kill) and opens it for appending.
std::FILE* restart_partial(const std::string& partial_path, const std::string& header,
                           const std::map<std::size_t, std::string>& done) {
  {
    AtomicFile rewrite(partial_path, "--out");
    rewrite.write(header);
    for (const auto& [cell, body] : done) {
      const auto rows = static_cast<std::size_t>(std::count(body.begin(), body.end(), '\n'));
      rewrite.write(fmt::format("#cell {} {}\n{}#end {}\n", cell, rows, body, cell));
    }
    rewrite.commit();
  }
  std::FILE* partial = std::fopen(partial_path.c_str(), "ab");
  if (!partial) throw UsageError(fmt::format("--out: cannot write '{}'", partial_path));
  return partial;
}

// The CSV lines of one cell's rows (timing columns blanked under --no-timing).
std::string cell_lines(const Sweep& sweep, std::size_t cell, bool no_timing,
                       const std::vector<std::size_t>& timing_index, std::size_t& nrows) {
  std::string body;
  auto rows = sweep.run_cell(cell);
  for (auto& row : rows) {
    if (row.size() != sweep.columns.size())
      throw std::logic_error(
          fmt::format("{} fields for {} columns", row.size(), sweep.columns.size()));
    if (no_timing)
      for (auto t : timing_index) row[t].clear();
    body += csv_line(row);
  }
  nrows = rows.size();
  return body;
}

// The cells of one run, computed by a pool of threads; each finished cell is
// appended to the partial file at once.
struct CellPool {
  const Sweep& sweep;
  const SweepOptions& opt;
  std::FILE* partial;
  std::vector<std::size_t> todo;
  std::vector<std::size_t> timing_index;
  std::map<std::size_t, std::string>& done;
  Progress& progress;
  std::mutex mutex{};
  std::atomic<std::size_t> next{0};
  std::atomic<bool> failed{false};
  std::string failure{};
  int failure_code = 1;

  void record_failure(std::size_t cell, const std::exception& e) {
    std::lock_guard lock(mutex);
    if (failed.exchange(true)) return;
    failure =
        fmt::format("cell {} ({}): {}", cell, sweep.label ? sweep.label(cell) : "", cli_message(e));
    // The same classification as the CLI's (run_reporting_errors).
    const bool input = dynamic_cast<const UsageError*>(&e) != nullptr ||
                       dynamic_cast<const InputError*>(&e) != nullptr;
    failure_code = input ? 2 : dynamic_cast<const std::logic_error*>(&e) ? 3 : 1;
  }

  void work() {
    while (g_interrupted.load() == 0 && !failed.load()) {
      const std::size_t i = next.fetch_add(1);
      if (i >= todo.size()) return;
      const std::size_t cell = todo[i];
      std::string body;
      std::size_t nrows = 0;
      try {
        body = cell_lines(sweep, cell, opt.no_timing, timing_index, nrows);
      } catch (const CellInterrupted& e) {
        int none = 0;
        g_interrupted.compare_exchange_strong(none, e.signal);
        return;
      } catch (const std::exception& e) {
        record_failure(cell, e);
        return;
      }
      std::lock_guard lock(mutex);
      if (partial) {
        const std::string record =
            fmt::format("#cell {} {}\n{}#end {}\n", cell, nrows, body, cell);
        std::fwrite(record.data(), 1, record.size(), partial);
        std::fflush(partial);
      }
      done[cell] = std::move(body);
      progress.advance();
    }
  }

  // Runs every cell of `todo` on up to `threads` threads, SIGINT and SIGTERM
  // stopping it after the cells in flight.
  void run(int threads) {
    g_interrupted.store(0);
    auto* previous_sigint = std::signal(SIGINT, on_interrupt);
    auto* previous_sigterm = std::signal(SIGTERM, on_interrupt);
    std::vector<std::thread> pool;
    for (int t = 1; t < std::min<int>(threads, static_cast<int>(todo.size())); ++t)
      pool.emplace_back([this] { work(); });
    work();
    for (auto& t : pool) t.join();
    std::signal(SIGINT, previous_sigint);
    std::signal(SIGTERM, previous_sigterm);
  }
};

std::vector<std::size_t> timing_indices(const Sweep& sweep) {
  std::vector<std::size_t> timing_index;
  for (const auto& name : sweep.timing_columns)
    for (std::size_t i = 0; i < sweep.columns.size(); ++i)
      if (sweep.columns[i] == name) timing_index.push_back(i);
  return timing_index;
}

// The CSV and its .meta.json from the finished cells [begin, end), committed
// together; the partial file is removed. A stream gets the CSV alone.
void write_sweep_outputs(const Sweep& sweep, const SweepOptions& opt,
                         const std::map<std::size_t, std::string>& done, std::size_t begin,
                         std::size_t end, int threads, double seconds) {
  std::string table = csv_line(sweep.columns);
  std::size_t rows = 0;
  for (std::size_t c = begin; c < end; ++c) {
    table += done.at(c);
    rows += static_cast<std::size_t>(std::count(done.at(c).begin(), done.at(c).end(), '\n'));
  }
  AtomicFile csv(opt.out, "--out");
  csv.write(table);
  const auto meta_path = companion_path(opt.out, ".meta.json");
  if (!meta_path) {
    csv.commit();
    say_stream_carries_the_table_alone(sweep.experiment, opt.out);  // even under --quiet: provenance is not kept
    return;
  }
  AtomicFile meta(*meta_path, "--out");
  meta.write(sweep_record({.experiment = sweep.experiment,
                           .shard = opt.shard,
                           .finished_utc = utc_now(),
                           .machine = machine_description(),
                           .config = sweep.resolved_config,
                           .seed = sweep.seed,
                           .cells_total = sweep.num_cells,
                           .cells_in_shard = end - begin,
                           .threads = static_cast<std::uint64_t>(threads),
                           .rows = rows,
                           .timing = !opt.no_timing,
                           .config_fingerprint = sweep_fingerprint(sweep),
                           .csv_fnv1a64 = fingerprint(table),
                           .duration_seconds = seconds,
                           .columns = sweep.columns})
                 .to_text());
  csv.commit();
  meta.commit();
  std::remove((opt.out + ".partial").c_str());
}


// The exit code of a run that a cell failed (the error printed) or a signal
// stopped (how to resume printed); 0 when it finished.
int stopped_exit_code(const Sweep& sweep, const CellPool& pool, const std::string& partial_path,
                      std::size_t cells_in_shard) {
  const char* name = sweep.experiment.c_str();
  if (pool.failed) {
    const bool bug = pool.failure_code == 3;
    std::fprintf(stderr, "poslsh %s: %s in %s%s\n", name, bug ? "internal error" : "error",
                 pool.failure.c_str(),
                 bug ? " (a bug in poslsh, not in your input: please report it "
                       "with the command line and `poslsh --version`)"
                     : "");
    if (!partial_path.empty())
      std::fprintf(stderr, "poslsh %s: finished cells are kept in %s\n", name,
                   partial_path.c_str());
    return pool.failure_code;
  }
  if (const int sig = g_interrupted.load(); sig != 0) {
    if (partial_path.empty())
      std::fprintf(stderr,
                   "poslsh %s: interrupted by %s after %zu of %zu cells; nothing written (--out "
                   "is a stream, which keeps no partial results)\n",
                   name, sig == SIGTERM ? "SIGTERM" : "SIGINT", pool.done.size(), cells_in_shard);
    else
      std::fprintf(stderr,
                   "poslsh %s: interrupted by %s; %zu of %zu cells saved in %s. Rerun the same "
                   "command with --resume to continue.\n",
                   name, sig == SIGTERM ? "SIGTERM" : "SIGINT", pool.done.size(), cells_in_shard,
                   partial_path.c_str());
    return 128 + sig;  // 130 for SIGINT, 143 for SIGTERM, as a shell reports them
  }
  return 0;
}

// The order cells start in: by Sweep::cost, costliest first (ties in cell order).
void costliest_first(const Sweep& sweep, std::vector<std::size_t>& todo) {
  if (!sweep.cost) return;
  std::vector<std::pair<double, std::size_t>> keyed;
  for (const auto c : todo) keyed.push_back({-sweep.cost(c), c});
  std::stable_sort(keyed.begin(), keyed.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  for (std::size_t i = 0; i < todo.size(); ++i) todo[i] = keyed[i].second;
}

}  // namespace sweep_steps

int run_sweep(const Sweep& sweep, const SweepOptions& opt) {
  using namespace sweep_steps;
  const Shard shard = parse_shard(opt.shard);
  if (opt.threads < 0)
    throw UsageError(fmt::format("--threads must be an integer >= 0 (got {})", opt.threads));
  const int threads = opt.threads > 0
                          ? opt.threads
                          : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  require_writable("--out", opt.out);
  // Empty for a stream: its cells are kept in memory only.
  const std::string partial_path = companion_path(opt.out, ".partial").value_or("");
  if (opt.resume && partial_path.empty())
    throw UsageError(fmt::format(
        "--resume needs --out to be a file; '{}' is a stream, which keeps no partial results",
        opt.out));
  const auto [begin, end] = shard_range(sweep.num_cells, shard.index, shard.count);
  require_sweep_memory(sweep, opt, begin, end, threads);
  if (opt.resume && !std::ifstream(partial_path) && already_complete(sweep, opt)) {
    if (!opt.quiet)
      std::fprintf(stderr,
                   "%s: %s is already complete (same sweep, shard and version); "
                   "nothing to resume\n",
                   sweep.experiment.c_str(), opt.out.c_str());
    return 0;
  }
  const std::string header = partial_header(sweep, opt);
  std::map<std::size_t, std::string> done;
  if (opt.resume) done = read_partial(partial_path, header);
  std::FILE* partial =
      partial_path.empty() ? nullptr : restart_partial(partial_path, header, done);
  std::vector<std::size_t> todo;
  for (std::size_t c = begin; c < end; ++c)
    if (!done.count(c)) todo.push_back(c);
  costliest_first(sweep, todo);
  if (!opt.quiet && !done.empty())
    std::fprintf(stderr, "%s: resuming, %zu of %zu cells already done\n", sweep.experiment.c_str(),
                 done.size(), end - begin);

  const auto start = std::chrono::steady_clock::now();
  Progress progress(sweep.experiment, todo.size(), opt.quiet);
  CellPool pool{sweep, opt, partial, std::move(todo), timing_indices(sweep), done, progress};
  pool.run(threads);
  if (partial) std::fclose(partial);
  progress.finish();
  if (const int rc = stopped_exit_code(sweep, pool, partial_path, end - begin); rc != 0) return rc;
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  write_sweep_outputs(sweep, opt, done, begin, end, threads, seconds);
  if (!opt.quiet)
    std::fprintf(stderr, "%s: wrote %s (%zu cells, %.1f s)\n", sweep.experiment.c_str(),
                 opt.out.c_str(), end - begin, seconds);
  return 0;
}

std::string summary_path(const std::string& out) {
  const std::string ext = ".csv";
  if (out.size() > ext.size() && out.compare(out.size() - ext.size(), ext.size(), ext) == 0)
    return out.substr(0, out.size() - ext.size()) + ".summary.csv";
  return out + ".summary.csv";
}

}  // namespace poslsh
