// The command-line side of the ALiBi heads (poslsh/alibi_heads.h has the
// scales and seeds): the help text every command shows for --alibi-heads and
// --independent-heads, their validation, and the note a non-power-of-two H
// leaves in a run's recorded config.
#pragma once

#include <string>

namespace poslsh {

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

// Throws UsageError naming --independent-heads when it is set without heads
// (by_heads: --alibi-heads H given, H != 0).
void require_heads_for_independent(bool independent_heads, bool by_heads);

}  // namespace poslsh
