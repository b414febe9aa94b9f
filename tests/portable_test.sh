#!/usr/bin/env bash
# ctest package.portable_option: -mavx2 -mfma reach the compile commands of
# this (default) build on x86-64 and none of a -DPOSLSH_PORTABLE=ON build
# (configured only: the flags are all it changes).
# Usage: tests/portable_test.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$1
src=$2
tmp=$(mktemp -d "${TMPDIR:-/tmp}/poslsh-portable.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail() { echo "portable test: $*" >&2; exit 1; }

case "$(uname -m)" in
  x86_64 | amd64)
    grep -q -- '-mavx2 -mfma' "$build/compile_commands.json" ||
      fail "the default build compiles without -mavx2 -mfma"
    ;;
esac
cmake -S "$src" -B "$tmp/portable" -DPOSLSH_PORTABLE=ON -DPOSLSH_BUILD_TESTS=OFF >/dev/null ||
  fail "a POSLSH_PORTABLE=ON build does not configure"
[ -s "$tmp/portable/compile_commands.json" ] || fail "no compile commands written"
if grep -qE -- '-mavx2|-mfma' "$tmp/portable/compile_commands.json"; then
  fail "a POSLSH_PORTABLE=ON build still compiles with -mavx2/-mfma"
fi
echo "portable test: the default build uses AVX2/FMA, POSLSH_PORTABLE=ON does not"
