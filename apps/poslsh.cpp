// The poslsh command-line tool. Everything but main() is a library
// (apps/cli_app.h), which the fuzz targets link as well.
#include "apps/run_cli.h"
#include "runner/allocator.h"

int main(int argc, char** argv) {
  poslsh::keep_freed_memory();  // runner/allocator.h: why
  return poslsh::run_cli(argc, argv);
}
