// The command-line conventions every subcommand follows, in one include:
// errors and exit codes (cli_errors.h), option validators (validators.h),
// --config syntax (config_syntax.h), numbers and messages as printed
// (text_format.h), and the ALiBi heads' options (alibi_heads_options.h).
#pragma once

// Every command that takes --alibi-heads needs both: the scales (core) and the
// options' help and validation (runner).
#include <poslsh/alibi_heads.h>

#include "runner/alibi_heads_options.h"
#include "runner/cli_errors.h"
#include "runner/config_syntax.h"
#include "runner/text_format.h"
#include "runner/validators.h"
