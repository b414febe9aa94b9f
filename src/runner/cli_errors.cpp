#include "runner/cli_errors.h"

#include <fmt/format.h>
#include <poslsh/argument_error.h>
#include <poslsh/input_error.h>

#include <cstdio>
#include <map>
#include <stdexcept>

#include "runner/text_format.h"

namespace poslsh {

namespace {

// How the CLI spells the core's arguments. The runner knows the flag every
// sweep has (runner/sweep.h: --threads); the experiments register theirs
// (experiments/argument_flags.cpp).
std::map<std::string, std::string, std::less<>>& flag_table() {
  static std::map<std::string, std::string, std::less<>> table = {{"threads", "--threads"}};
  return table;
}

}  // namespace

bool register_argument_flag(std::string_view argument, std::string_view flag) {
  const auto [it, added] = flag_table().emplace(std::string(argument), std::string(flag));
  if (!added && it->second != flag)
    throw std::logic_error(fmt::format("register_argument_flag: {} is already {}, not {}", argument,
                                       it->second, flag));
  return true;
}

std::string flag_for(std::string_view argument) {
  // An argument without a flag (a hash's pitch, an internal count) is
  // reported by its meaning.
  const auto& table = flag_table();
  const auto it = table.find(argument);
  return it == table.end() ? std::string() : it->second;
}

std::string cli_message(const std::exception& e) {
  const auto* argument = dynamic_cast<const ArgumentError*>(&e);
  if (!argument) return e.what();
  const std::string flag = flag_for(argument->argument());
  return flag.empty() ? e.what() : argument->message_for(flag);
}

int run_reporting_errors(const std::string& who, const std::function<int()>& action) {
  try {
    return action();
  } catch (const ArgumentError& e) {
    std::fprintf(stderr, "%s: error: %s\n", who.c_str(), single_line(cli_message(e)).c_str());
    return 2;
  } catch (const UsageError& e) {
    std::fprintf(stderr, "%s: error: %s\n", who.c_str(), single_line(e.what()).c_str());
    return 2;
  } catch (const InputError& e) {
    std::fprintf(stderr, "%s: error: %s\n", who.c_str(), single_line(e.what()).c_str());
    return 2;
  } catch (const std::logic_error& e) {
    std::fprintf(stderr,
                 "%s: internal error: %s (a bug in poslsh, not in your input: please report it "
                 "with the command line and the output of `poslsh --version`)\n",
                 who.c_str(), single_line(e.what()).c_str());
    return 3;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: failed: %s\n", who.c_str(), single_line(e.what()).c_str());
    return 1;
  }
}
}  // namespace poslsh
