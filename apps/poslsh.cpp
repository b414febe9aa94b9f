// The poslsh command-line tool. Everything but main() is a library
// (apps/cli_app.h), which the fuzz targets link as well.
#include "apps/cli_app.h"

int main(int argc, char** argv) { return poslsh::run_cli(argc, argv); }
