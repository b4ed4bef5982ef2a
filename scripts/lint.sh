#!/usr/bin/env bash
# meshguard's lint: clang-format over the sources (scripts/check-format.sh),
# then clang-tidy-19 over every analysis, tidy, tool, runtime, test and
# benchmark source in the compile database (scripts/lint.py, whose docstring
# says which configuration each file gets and how the cache works).
#   scripts/lint.sh [--check] [build-dir] [lint.py options, e.g. -j 1, --all]
# --check (`make test`): lints only the files whose key is not recorded in
#   scripts/lint-manifest.txt (changed since they were last found clean, or a
#   header they include, the configuration or the toolchain changed); any
#   finding fails; the manifest is left as it is. With every key recorded it
#   takes about a second.
# Without it (`make lint`): the same, and rewrites the manifest with the files
#   found clean; commit it with the change. `--all` relints every file.
# A file takes 10-30 s (a runtime file parses libtorch's headers), ~200 files
# an hour on 2 cores: that is why the results are cached in the repository.
set -euo pipefail
cd "$(dirname "$0")/.."
mode=--update
case "${1:-}" in
  --check | --quick) mode=--check; shift ;;  # --quick: the former name
esac
bash scripts/check-format.sh
build=${1:-build}
[ $# -gt 0 ] && shift
exec python3 scripts/lint.py "$mode" "$build" "$@"
