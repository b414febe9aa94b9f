#include "runner/cli_errors.h"

#include <poslsh/argument_error.h>
#include <poslsh/input_error.h>

#include <cstdio>
#include <map>

#include "runner/text_format.h"

namespace poslsh {

std::string flag_for(std::string_view argument) {
  // The one place that knows how the CLI spells the core's arguments. An
  // argument without a flag (a hash's pitch, an internal count) is reported
  // by its meaning.
  static const std::map<std::string_view, std::string_view> kFlags = {
      {"band_tol", "--band-tol"},
      {"batch", "--batch"},
      {"heads", "--alibi-heads"},
      {"max_iterations", "--max-lanczos"},
      {"n", "--n"},
      {"p", "--p"},
      {"points", "--points"},
      {"rel_tol", "--spectral-tol"},
      {"s", "--s"},
      {"sigma", "--sigma"},
      {"starts", "--lanczos-starts"},
      {"threads", "--threads"},
      {"trials", "--trials"},
      {"upper_q", "--upper-q"},
      {"upper_width", "--upper-width"}};
  const auto it = kFlags.find(argument);
  return it == kFlags.end() ? std::string() : std::string(it->second);
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
