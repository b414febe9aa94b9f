// The experiments' options that set the core's arguments. The flags that
// name the core's arguments in its errors are registered in
// argument_flags.cpp (runner/cli_errors.h: flag_for); declared here, the
// command-line side of the ALiBi scales (poslsh/alibi_heads.h has the scales
// and seeds), which convergence, blocksize and attention share: --sigma or
// --alibi-heads H, and --independent-heads, their help, their validation,
// and the note a non-power-of-two H leaves in a run's recorded config. The
// runner knows none of these options: an experiment passes what it needs
// through the runner's hooks (SweptExperiment::config_note,
// recorded_options).
#pragma once

#include <poslsh/alibi_heads.h>

#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace poslsh {

struct RecordedOptions;

// For H not a power of two, a TOML comment line for the config a run records:
// "# alibi-heads = H: the scales of Press et al.'s get_slopes(H), not 2^(8h/H)".
// Those scales changed with the reference rule, and the comment changes the
// run's fingerprint, so --resume and merge refuse to mix rows made under the
// two rules. Empty for powers of two, whose scales and configs are unchanged.
std::string alibi_heads_config_note(int heads);

// The help of --alibi-heads and --independent-heads, the same in every command
// that takes them (convergence, blocksize, attention). zero_is_off: the
// command reads --alibi-heads 0 as "not given".
std::string alibi_heads_help(bool zero_is_off);
extern const char* const kIndependentHeadsHelp;

// The ALiBi scales of a run: --sigma's list, or the H standard heads of
// --alibi-heads H, whichever the command line or config gave.
struct AlibiScales {
  std::vector<double> sigmas;
  int heads = 0;  // H when the scales are --alibi-heads H's, else 0
  bool by_heads() const { return heads > 0; }
  // alibi_heads_config_note(H) for the heads, else empty.
  std::string config_note() const;
};

// The scales of `command`, which declares --sigma (bound to `sigma`),
// --alibi-heads (bound to `alibi_heads`) and --independent-heads. Throws
// UsageError, one line naming the option, when both or neither of --sigma
// and --alibi-heads are given, a scale is not finite and > 0, H < 1, or
// --independent-heads comes without heads. zero_is_off: --alibi-heads 0
// reads as "not given". Clears an unset --independent-heads so that the
// recorded config holds it only when set ("= false" would change the
// fingerprint of runs recorded before the flag existed).
AlibiScales resolve_alibi_scales(CLI::App& command, const std::vector<double>& sigma,
                                 int alibi_heads, bool independent_heads, bool zero_is_off);

// Throws UsageError naming --independent-heads when it is set without heads
// (by_heads: --alibi-heads H given, H != 0).
void require_heads_for_independent(bool independent_heads, bool by_heads);

// Leaves --sigma out of the recorded config (runner/resolved_config.h) when
// --alibi-heads H (H != 0) replaced it: recording both would make the config
// contradict itself when fed back.
void record_alibi_scales(const CLI::App& command, RecordedOptions& recorded);

}  // namespace poslsh
