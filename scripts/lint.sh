#!/usr/bin/env bash
# Lints meshguard's own sources with clang-tidy-19 and the project's .clang-tidy.
# Usage: scripts/lint.sh [--quick] [build-dir]   (the build dir has compile_commands.json)
# --quick: the analysis, tidy and tool sources changed in the last 20 commits
# (a file there takes 10-30 s); `make test` runs it. Without it every source,
# the runtime's too, whose files each parse libtorch's headers (a minute or
# two a file): `make lint`.
set -euo pipefail
cd "$(dirname "$0")/.."
quick=0
if [ "${1:-}" = "--quick" ]; then
  quick=1
  shift
fi
bash scripts/check-format.sh
build=${1:-build}
[ -f "$build/compile_commands.json" ] || { echo "lint: no $build/compile_commands.json; run 'make build' first" >&2; exit 2; }
if [ "$quick" -eq 1 ]; then
  mapfile -t files < <(git log -20 --name-only --pretty=format: -- \
    'lib/Analysis/*.cpp' 'lib/Tidy/*.cpp' 'tool/*.cpp' | sort -u |
    while read -r f; do [ -n "$f" ] && [ -f "$f" ] && echo "$f"; done)
  if [ "${#files[@]}" -eq 0 ]; then
    echo "lint: no analysis, tidy or tool source changed in the last 20 commits"
    exit 0
  fi
else
  mapfile -t files < <(git ls-files 'lib/*.cpp' 'tool/*.cpp')
fi
echo "lint: ${#files[@]} files" >&2
run=/usr/lib/llvm-19/bin/run-clang-tidy
[ -x "$run" ] || run=$(command -v run-clang-tidy-19)
"$run" -quiet -p "$build" -clang-tidy-binary "$(command -v clang-tidy-19)" -j "$(nproc)" "${files[@]}"
echo "lint: ${#files[@]} files clean"
