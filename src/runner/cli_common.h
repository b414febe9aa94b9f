// The command-line conventions every subcommand follows, in one include:
// errors and exit codes (cli_errors.h), option validators (validators.h),
// --config syntax (config_syntax.h), numbers and messages as printed
// (text_format.h).
#pragma once

#include "runner/cli_errors.h"
#include "runner/config_syntax.h"
#include "runner/text_format.h"
#include "runner/validators.h"
