#!/usr/bin/env bash
# ctest scripts.fuzz_rejects_bad_settings: scripts/fuzz refuses a bad
# SECONDS, FUZZ_JOBS or FUZZ_OPTIMIZE with a one-line error naming it, exit 2,
# before building anything (no clang needed), and a good setting gets past
# that check (it then stops at the unknown target, also exit 2, also before
# building): the check is not a blanket refusal.
# Usage: tests/fuzz_settings_test.sh SOURCE_DIR
set -uo pipefail
src=$1
tmp=$(mktemp -d "${TMPDIR:-/tmp}/poslsh-fuzz-settings.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
status=0
expect_refusal() {  # NAME ENV_ASSIGNMENT SECONDS
  local err rc
  err=$(env "$2" FUZZ_BUILD_DIR="$tmp/build" "$src/scripts/fuzz" "$3" npy 2>&1 >/dev/null)
  rc=$?
  if [ $rc -ne 2 ] || [ "$(printf '%s\n' "$err" | wc -l)" -ne 1 ] || [[ "$err" != *"$1"* ]]; then
    echo "fuzz settings test: $2 with SECONDS $3 gave exit $rc and: $err" >&2
    status=1
  fi
  if [ -e "$tmp/build" ]; then
    echo "fuzz settings test: $2 with SECONDS $3 created the build directory" >&2
    status=1
  fi
}
expect_refusal FUZZ_JOBS FUZZ_JOBS=0 1
expect_refusal FUZZ_JOBS FUZZ_JOBS=two 1
expect_refusal FUZZ_OPTIMIZE FUZZ_OPTIMIZE=-O9 1
expect_refusal FUZZ_OPTIMIZE "FUZZ_OPTIMIZE=-O1 -fno-inline" 1
expect_refusal SECONDS FUZZ_JOBS=2 0
# Good settings pass the check and are stopped by the next one, which names the target.
err=$(env FUZZ_JOBS=2 FUZZ_OPTIMIZE=-O0 FUZZ_BUILD_DIR="$tmp/build" "$src/scripts/fuzz" 1 nosuch 2>&1)
if [[ "$err" != *"unknown target 'nosuch'"* ]]; then
  echo "fuzz settings test: good settings were refused: $err" >&2
  status=1
fi
[ $status -eq 0 ] && echo "fuzz settings test: bad SECONDS, FUZZ_JOBS and FUZZ_OPTIMIZE refused before any build"
exit $status
