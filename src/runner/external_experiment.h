// An experiment that runs in another process (the language models, in
// PyTorch): the program owns its options (defaults, help, checks), its
// table's columns and cells, and each cell's rows; the runner keeps what it
// does for every experiment (threads, shards, --resume, merge, progress,
// provenance). The protocol, each a call `MODE ARG` returning a text:
//   options COMMAND  the command's options as JSON, in declaration order:
//                    [{"name": "--steps", "type": "INT" | "FLOAT" | "TEXT",
//                      "list": bool, "default": text or null, "help": text}]
//   describe GIVEN   for the options the caller gave (GIVEN: {"--name": text
//                    or [texts]}), checked there: {"columns", "timing_columns",
//                    "cells": [{"label", "cost"}], "seed", "note"}
//   cell REQUEST     {"rows": [[value, ...]]} of cell REQUEST.cell (REQUEST:
//                    given, cell, table, work, progress); a value is null
//                    (empty), an integer, a number (written as every table
//                    writes one, format_value) or a text
// A refused input is an InputError (its one line), an interrupted cell
// CellInterrupted, as the program's caller (ExternalProgram::call) reports.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "runner/swept_experiment.h"

namespace CLI {
class Option;
}

namespace poslsh {

struct ExternalProgram {
  // Runs `MODE ARG` and returns its result text.
  std::function<std::string(const std::string& mode, const std::string& arg)> call;
  // Declares the options the runner itself needs to reach the program (an
  // interpreter), after the program's own.
  std::function<void(CLI::App& command)> declare_own_options;
  // Checks those options and readies the program, before `describe`; and
  // what the cells need beyond it, after (so a bad option is reported first).
  std::function<void()> prepare, prepare_cells;
};

// Declares on `command`, once it is chosen on the command line (before its
// options are read, so that a config section fills them too), the options of
// `table` (an `options` result) and then `after`'s; the values given to them
// go to `*given` as `describe` reads them.
void declare_external_options(CLI::App& command, std::function<std::string()> table,
                              std::function<void(CLI::App&)> after,
                              std::shared_ptr<std::vector<const CLI::Option*>> declared);
// Makes the declaration now if it is still to be made (the range expansion
// reads the options before CLI11 enters the command).
void declare_external_options_now(CLI::App& command);
// Whether `command`'s options are still to be declared (it was not chosen).
bool external_options_pending(const CLI::App& command);
std::string given_options_json(const std::vector<const CLI::Option*>& declared);

// A cell's row from the program's JSON values (null, integer, number, text).
CsvRow external_row(const std::string& row_json);

class ExternalExperiment : public SweptExperiment<std::int64_t> {
 public:
  ExternalExperiment(std::string command, ExternalProgram program);
  void declare_options(CLI::App& command) override;
  void validate(CLI::App& command, const SweepOptions& sweep) override;
  std::vector<std::string> columns() const override { return columns_; }
  std::vector<std::string> timing_columns() const override { return timing_columns_; }
  std::vector<std::int64_t> cells() const override;
  std::vector<CsvRow> rows(const std::int64_t& cell) const override;
  std::string label(const std::int64_t& cell) const override;
  double cost(const std::int64_t& cell) const override;
  std::string config_note() const override { return note_; }
  std::uint64_t seed() const override { return seed_; }
  // The work folder (<table stem>.checkpoints) serves --resume only.
  void finished() const override;

 private:
  std::string command_;
  ExternalProgram program_;
  std::shared_ptr<std::vector<const CLI::Option*>> declared_;
  std::string given_, table_, work_, note_;
  bool progress_ = true;
  std::vector<std::string> columns_, timing_columns_, labels_;
  std::vector<double> costs_;
  std::uint64_t seed_ = 0;
};

}  // namespace poslsh
