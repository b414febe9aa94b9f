#!/usr/bin/env bash
# ctest package.add_subdirectory: poslsh embedded in another project as a
# source tree. examples/cpp is configured with -DPOSLSH_SOURCE_DIR, so it
# builds poslsh::core through add_subdirectory (not an install); its numbers
# must equal, bit for bit, the row the CLI writes for the same (n, sigma, s,
# seed), and the subproject must build the library only (no CLI, no tests).
# Usage: tests/subdirectory_test.sh POSLSH_CLI SOURCE_DIR
set -euo pipefail
cli=$1
src=$2
tmp=$(mktemp -d "${TMPDIR:-/tmp}/poslsh-subdirectory.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail() { echo "add_subdirectory test: $*" >&2; exit 1; }

cmake -S "$src/examples/cpp" -B "$tmp/example" -DPOSLSH_SOURCE_DIR="$src" \
  -DCMAKE_BUILD_TYPE=Release >"$tmp/configure.log" 2>&1 ||
  fail "examples/cpp does not configure with add_subdirectory: $(tail -20 "$tmp/configure.log")"
cmake --build "$tmp/example" -j2 >"$tmp/build.log" 2>&1 ||
  fail "examples/cpp does not build with add_subdirectory: $(grep -m5 -A5 'error' "$tmp/build.log")"
for built in poslsh/bin/poslsh poslsh/bin/poslsh_tests; do
  [ ! -e "$tmp/example/$built" ] || fail "the subproject built $built, not only the library"
done
"$tmp/example/spectral_error_example" 1536 6 16 7 >"$tmp/example.txt" ||
  fail "the example exited non-zero: $(cat "$tmp/example.txt")"
"$cli" convergence --n 1536 --sigma 6 --s 16 --trials 1 --seed 7 --quiet --out "$tmp/conv.csv"
/usr/bin/python3 "$src/tests/example_matches_cli.py" "$tmp/example.txt" "$tmp/conv.csv" ||
  fail "the example disagrees with the CLI"
echo "add_subdirectory test: examples/cpp built with poslsh as a subproject, equal to the CLI"
