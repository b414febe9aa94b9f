#!/usr/bin/env bash
# ctest package.install_and_example: poslsh as an installed package.
#  1. `cmake --install` the build tree into a temporary prefix, and check that
#     it holds no private header, no test-only function and no planted-defect
#     sampler;
#  2. configure and build examples/cpp against it (find_package(poslsh)) and
#     check that its numbers equal, bit for bit, the row `poslsh convergence`
#     writes for the same (n, sigma, s, seed);
#  3. check that no source path is compiled into the installed binary, move
#     the prefix elsewhere and run its `poslsh reproduce` with the source tree
#     hidden: the report must draw its figures with the plot scripts of the
#     moved prefix.
# Usage: tests/package_test.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$1
src=$2
tmp=$(mktemp -d "${TMPDIR:-/tmp}/poslsh-package.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail() { echo "package test: $*" >&2; exit 1; }

cmake --install "$build" --prefix "$tmp/prefix" >/dev/null
for f in include/poslsh/poslsh.h include/poslsh/types.h lib/libposlsh_core.a bin/poslsh \
         share/poslsh/plots/plotlib.py lib/cmake/poslsh/poslshConfig.cmake \
         lib/cmake/poslsh/poslshConfigVersion.cmake lib/cmake/poslsh/poslshTargets.cmake; do
  [ -e "$tmp/prefix/$f" ] || fail "the install lacks $f"
done
# The installed headers are exactly the declared public list, and the
# sources' include/poslsh/ holds nothing that list leaves out.
declared=$(grep -v '^#' "$src/cmake/public_headers.txt" | sort)
[ "$(ls "$tmp/prefix/include/poslsh" | sort)" = "$declared" ] ||
  fail "the installed headers differ from cmake/public_headers.txt: $(diff <(ls "$tmp/prefix/include/poslsh" | sort) <(echo "$declared") | tr '\n' ' ')"
[ "$(ls "$src/include/poslsh" | sort)" = "$declared" ] ||
  fail "include/poslsh/ differs from cmake/public_headers.txt: $(diff <(ls "$src/include/poslsh" | sort) <(echo "$declared") | tr '\n' ' ')"
# The public headers are the core's: none may include the runner's.
if grep -rlE '#include "(runner|experiments|apps|core|internal)/' "$tmp/prefix/include/poslsh"; then
  fail "an installed header includes the runner"
fi
# The installed library is what users call: no private header of the core
# (src/core/*.h), no test-only or internal function in a public header, and
# no deliberately wrong sampler in the archive (they are the verifier's,
# experiments/defects/sampler_defect.h).
for h in "$src"/src/core/*.h; do
  [ ! -e "$tmp/prefix/include/poslsh/$(basename "$h")" ] ||
    fail "the install holds the core's private header $(basename "$h")"
done
internal='lanczos_extreme_eigenvalue|symmetric_spectral_norm|kw_epsilon|gamma2_from_uniforms'
internal="$internal|mask_mean_transpose_op|alibi_kernel_transpose_op|prefix_sums|validate_head_stacks"
if grep -rnwE "$internal" "$tmp/prefix/include/poslsh"; then
  fail "an installed header declares a test-only or internal function"
fi
command -v nm >/dev/null || fail "nm not found (binutils)"
if nm -C "$tmp/prefix/lib/libposlsh_core.a" | grep -E 'SamplerDefect|sampler_defect|hash_drawer'; then
  fail "the installed libposlsh_core.a holds a planted-defect sampler"
fi
# Nor the verifier's statistics or the kernels' scratch state outside the
# private namespace: the functions the archive defines in namespace poslsh
# (not poslsh::detail) are the public numerics.
private='binomial|chernoff|chi_square|dispersion|median_interval|t_interval|rank_test|least_squares'
private="$private|FiniteLaw|cobin|merged_cells|block_size_fit|OnlineSoftmax|LogitRule"
if nm -C --defined-only "$tmp/prefix/lib/libposlsh_core.a" | sed -n 's/^[0-9a-f]* [TtWwVvBbDdRr] //p' |
   grep -E '^poslsh::' | grep -v '^poslsh::detail::' | grep -E "$private"; then
  fail "the installed libposlsh_core.a defines statistics or kernel scratch outside poslsh::detail"
fi

cmake -S "$src/examples/cpp" -B "$tmp/example" -DCMAKE_PREFIX_PATH="$tmp/prefix" \
  -DCMAKE_BUILD_TYPE=Release >/dev/null || fail "examples/cpp does not configure against the install"
cmake --build "$tmp/example" >/dev/null || fail "examples/cpp does not build against the install"
"$tmp/example/spectral_error_example" 1536 6 16 7 >"$tmp/example.txt" ||
  fail "the example exited non-zero: $(cat "$tmp/example.txt")"
"$tmp/prefix/bin/poslsh" convergence --n 1536 --sigma 6 --s 16 --trials 1 --seed 7 --quiet \
  --out "$tmp/conv.csv"
/usr/bin/python3 "$src/tests/example_matches_cli.py" "$tmp/example.txt" "$tmp/conv.csv" ||
  fail "the example disagrees with the CLI"

# The README's "Use from C++" snippets, as they are written there: the CMake
# lines and the program, built against the install; the program prints the
# spectral error of the example's (n, sigma, s, seed) above.
mkdir -p "$tmp/snippet"
/usr/bin/python3 - "$src/README.md" "$tmp/snippet" <<'PY' || fail "README has no 'Use from C++' cmake and cpp blocks"
import re, sys
text = open(sys.argv[1]).read()
section = text.split("## Use from C++", 1)[1].split("\n## ", 1)[0]
blocks = dict(re.findall(r"```(cmake|cpp)\n(.*?)```", section, re.S))
open(sys.argv[2] + "/CMakeLists.txt", "w").write(
    "cmake_minimum_required(VERSION 3.25)\nproject(snippet CXX)\n"
    "add_executable(my_program main.cpp)\n" + blocks["cmake"])
open(sys.argv[2] + "/main.cpp", "w").write(blocks["cpp"])
PY
cmake -S "$tmp/snippet" -B "$tmp/snippet/build" -DCMAKE_PREFIX_PATH="$tmp/prefix" >/dev/null &&
  cmake --build "$tmp/snippet/build" >/dev/null || fail "the README's C++ snippet does not build"
snippet=$("$tmp/snippet/build/my_program")
want=$(/usr/bin/python3 -c "import sys; print('ok: %.6g' % float(sys.argv[1]))" \
  "$(sed -n 's/^spectral_error=\([^ ]*\) .*/\1/p' "$tmp/example.txt")")
case "$snippet" in
  "$want in ["*) ;;
  *) fail "the README's C++ snippet printed '$snippet', expected '$want in [...]'" ;;
esac

# Nothing of the build machine's source tree is compiled in: the installed
# binary finds its data beside itself (src/runner/data_files.h).
if grep -qaF "$src" "$tmp/prefix/bin/poslsh"; then
  fail "the installed poslsh holds the source path $src"
fi
[ -x "$tmp/prefix/share/poslsh/scripts/bench_scipy_eigsh.py" ] || fail "the install lacks the scipy baseline script"

mv "$tmp/prefix" "$tmp/moved"
printf '[convergence]\nn = [256]\nsigma = [4]\ns = [1, 4]\ntrials = 2\n' >"$tmp/tiny.toml"
# The source tree gone: where a private mount namespace can be made (root and
# unshare), the run sees an empty tmpfs mounted over the sources; elsewhere
# the check above (no source path in the binary) stands in for it.
without_sources() {
  if [ "$(id -u)" -eq 0 ] && unshare -m true 2>/dev/null; then
    unshare -m sh -c 'mount -t tmpfs none "$0" && [ ! -e "$0/CMakeLists.txt" ] && exec "$@"' \
      "$src" "$@"
  else
    echo "package test: note: the sources stay visible (hiding them needs root and unshare)" >&2
    "$@"
  fi
}
without_sources "$tmp/moved/bin/poslsh" reproduce --config "$tmp/tiny.toml" --out "$tmp/report" \
  --quiet || fail "the moved prefix's poslsh reproduce failed without the source tree"
grep -qF "plot scripts: \`$tmp/moved/share/poslsh/plots\`" "$tmp/report/report.md" ||
  fail "reproduce did not use the moved prefix's plot scripts: $(grep 'plot scripts' "$tmp/report/report.md")"
[ -s "$tmp/report/convergence_error_vs_s.png" ] || fail "no figure drawn"
echo "package test: installed; example and README snippet built and equal to the CLI; moved prefix found its plots"
