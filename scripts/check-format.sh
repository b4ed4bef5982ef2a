#!/usr/bin/env bash
# Checks that meshguard's sources are in the house style with clang-format-19:
# the analysis, tidy and tool sources in LLVM's (.clang-format), the runtime in
# libtorch's (lib/runtime/.clang-format). Prints each file that is not and
# exits 1; `scripts/check-format.sh --fix` rewrites them in place.
set -euo pipefail
cd "$(dirname "$0")/.."
format=$(command -v clang-format-19 || true)
[ -n "$format" ] || { echo "check-format: clang-format-19 not found (make bootstrap installs it)" >&2; exit 2; }
mapfile -t files < <(git ls-files 'lib/Analysis/*.cpp' 'lib/Analysis/*.h' 'lib/Tidy/*.cpp' 'lib/Tidy/*.h' \
  'include/meshguard/Analysis/*.h' 'tool/*.cpp' 'unittests/*.cpp' 'unittests/*.h' \
  'lib/runtime/*.cpp' 'lib/runtime/*.h' 'include/meshguard/runtime/*.h')
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
