#!/usr/bin/env bash
# Lints meshguard's own sources with clang-tidy-19 and the project's .clang-tidy.
# Usage: scripts/lint.sh [build-dir]   (the build dir has compile_commands.json)
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/check-format.sh
build=${1:-build}
[ -f "$build/compile_commands.json" ] || { echo "lint: no $build/compile_commands.json; run 'make build' first" >&2; exit 2; }
mapfile -t files < <(git ls-files 'lib/*.cpp' 'tool/*.cpp' | grep -v '^test/')
echo "lint: ${#files[@]} files" >&2
run=/usr/lib/llvm-19/bin/run-clang-tidy
[ -x "$run" ] || run=$(command -v run-clang-tidy-19)
"$run" -quiet -p "$build" -clang-tidy-binary "$(command -v clang-tidy-19)" -j "$(nproc)" "${files[@]}"
