// main()'s one call, declared apart from apps/cli_app.h so that main's
// translation unit does not compile CLI11's headers (seconds each time).
#pragma once

namespace poslsh {

// main(): parse, report a parse error (exit 2) or run the chosen subcommand.
int run_cli(int argc, char** argv);

}  // namespace poslsh
