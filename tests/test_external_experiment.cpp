// The adapter of an experiment that runs in another process
// (src/runner/external_experiment.h): its options are declared from the
// program's table only when its command is chosen, ranges and config
// sections reach them, the values given travel as text, and a cell's JSON
// values are written as every table writes numbers.
#include <gtest/gtest.h>
#include <poslsh/argument_error.h>

#include <CLI/CLI.hpp>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "runner/cli_extensions.h"
#include "runner/external_experiment.h"

namespace poslsh {
namespace {

constexpr const char* kTable =
    R"([{"name": "--steps", "type": "INT", "list": false, "default": "400", "help": "Steps"},
        {"name": "--s", "type": "INT", "list": true, "default": "[1,4]", "help": "Hashes"},
        {"name": "--corpus", "type": "TEXT", "list": false, "default": null, "help": "Text"}])";

struct Apps {
  CLI::App app{"test"};
  CLI::App* ext = nullptr;
  CLI::App* other = nullptr;
  int table_reads = 0;
  std::shared_ptr<std::vector<const CLI::Option*>> declared =
      std::make_shared<std::vector<const CLI::Option*>>();

  Apps() {
    app.set_config("--config");
    app.allow_config_extras(false);  // as poslsh's app
    ext = app.add_subcommand("ext");
    other = app.add_subcommand("other");
    other->add_option("--n");
    declare_external_options(
        *ext, [this] { return ++table_reads, std::string(kTable); }, {}, declared);
    enable_list_ranges(app);
  }
  void parse(std::vector<std::string> args) {
    args.insert(args.begin(), "test");
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    parse_command_line(app, static_cast<int>(argv.size()), argv.data());
  }
};

TEST(ExternalExperiment, OptionsAreDeclaredWhenTheCommandIsChosenAndTravelAsText) {
  Apps a;
  a.parse({"ext", "--steps", "4", "--s", "1:8:x2"});
  EXPECT_EQ(a.table_reads, 1);
  EXPECT_FALSE(external_options_pending(*a.ext));
  EXPECT_EQ(given_options_json(*a.declared), R"({"--steps":"4","--s":["1","2","4","8"]})");
  EXPECT_EQ(a.ext->get_option("--s")->get_default_str(), "[1,4]");
}

TEST(ExternalExperiment, AnotherCommandNeverReadsTheTableAndSkipsItsConfigSection) {
  const auto dir = std::filesystem::temp_directory_path() / "poslsh_external_experiment_test";
  std::filesystem::create_directories(dir);
  const std::string config = (dir / "c.toml").string();
  std::ofstream(config) << "[ext]\nsteps = 7\nunknown = 1\n[other]\nn = 3\n";
  Apps a;
  a.parse({"other", "--config", config});
  EXPECT_EQ(a.table_reads, 0);
  EXPECT_TRUE(external_options_pending(*a.ext));
  EXPECT_EQ(a.other->get_option("--n")->as<int>(), 3);
  // Chosen, its section is read, and an unknown key there is the usual error.
  Apps b;
  EXPECT_THROW(b.parse({"ext", "--config", config}), CLI::ParseError);
  std::ofstream(config) << "[ext]\nsteps = 7\n";
  Apps c;
  c.parse({"ext", "--config", config});
  EXPECT_EQ(given_options_json(*c.declared), R"({"--steps":"7"})");
  std::filesystem::remove_all(dir);
}

TEST(ExternalExperiment, CellValuesAreWrittenAsTablesWriteNumbers) {
  EXPECT_EQ(external_row(R"([null, 3, -7, 0.1, 1e-05, 3.0, "nan", "ngram-2"])"),
            (CsvRow{"", "3", "-7", "0.1", format_value(1e-05), "3", "nan", "ngram-2"}));
  EXPECT_THROW(external_row("[1, "), std::logic_error);  // the program's bug, not the user's
}

}  // namespace
}  // namespace poslsh
