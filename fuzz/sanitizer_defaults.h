// Sanitizer defaults of the fuzz binaries (any fuzz_<target> run, not only
// through scripts/fuzz): every UBSan report ends the run as a crash. The
// objects are compiled with -fsanitize-recover=undefined only so that
// scripts/fuzz can pass a suppressions file (fuzz/ubsan-open.supp) for
// findings still open; a suppressed report is skipped, any other one is fatal.
#pragma once

extern "C" const char* __ubsan_default_options() { return "halt_on_error=1:print_stacktrace=1"; }
