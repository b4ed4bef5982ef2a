#!/usr/bin/env bash
# Checks that meshguard's sources are in the house style with clang-format-19:
# the analysis, tidy and tool sources and their unit tests in LLVM's
# (.clang-format), the runtime in libtorch's (lib/runtime/.clang-format), and
# so the code written against libtorch: the runtime's tests (test/runtime),
# the conformance and oracle sides (test/conformance, test/oracle; not yet
# test/conformance/training/, which was being rewritten when this list grew) and the
# benchmarks (bench/*.cpp, bench/side_by_side, bench/checkpoint), whose
# .clang-format links to the runtime's. Not formatted: the lit inputs
# (test/checks, test/fixits, test/Inputs, ...), whose lines carry CHECK
# markers at fixed offsets, and the inputs the checks are measured on
# (bench/*corpus*/, bench/inputs/), which carry per-line markers and imitate
# users' code as they write it. Prints each file that is not in its style and
# exits 1; `scripts/check-format.sh --fix` rewrites them in place.
set -euo pipefail
cd "$(dirname "$0")/.."
format=$(command -v clang-format-19 || true)
[ -n "$format" ] || { echo "check-format: clang-format-19 not found (make bootstrap installs it)" >&2; exit 2; }
mapfile -t files < <(git ls-files 'lib/Analysis/*.cpp' 'lib/Analysis/*.h' 'lib/Tidy/*.cpp' 'lib/Tidy/*.h' \
  'include/meshguard/Analysis/*.h' 'tool/*.cpp' 'unittests/*.cpp' 'unittests/*.h' \
  'lib/runtime/*.cpp' 'lib/runtime/*.h' 'include/meshguard/runtime/*.h' \
  'test/runtime/*.cpp' 'test/runtime/*.h' ':(glob)test/conformance/*.cpp' ':(glob)test/conformance/*.h' \
  'test/oracle/*.cpp' ':(glob)bench/*.cpp' ':(glob)bench/*.h' 'bench/side_by_side/*.cpp' \
  'bench/checkpoint/*.cpp')
if [ "${1:-}" = "--fix" ]; then
  "$format" -i "${files[@]}"
  exit 0
fi
bad=0
for f in "${files[@]}"; do
  if ! "$format" --dry-run -Werror "$f" >/dev/null 2>&1; then
    echo "check-format: not in the house style: $f (scripts/check-format.sh --fix)"
    bad=1
  fi
done
[ "$bad" -eq 0 ] && echo "check-format: ${#files[@]} files in the house style"
exit "$bad"
