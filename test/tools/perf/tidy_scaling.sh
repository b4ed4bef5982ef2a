#!/usr/bin/env bash
# meshguard-tidy through run-clang-tidy -j2 over N generated files
# (test/tools/perf/gen_project.py): wall time per file as N grows.
# Usage: test/tools/perf/tidy_scaling.sh BUILD_DIR [N...]   (default N: 10 50 200)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "$1" && pwd); shift
sizes=("${@:-10 50 200}")
[ $# -eq 0 ] && sizes=(10 50 200)
run=/usr/lib/llvm-19/bin/run-clang-tidy
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# Wall time depends on what else the machine runs; CPU time (user+sys of
# every meshguard-tidy) per file is the steadier measure of per-file work.
printf '%6s %10s %12s %14s %10s %8s\n' N wall_s wall_s/file cpu_s/file findings load1
for n in "${sizes[@]}"; do
  python3 "$here/gen_project.py" "$work/p$n" "$n" --stubs "$here/../../Inputs/stubs"
  start=$(date +%s.%N)
  /usr/bin/time -f '%U %S' -o "$work/time$n.txt" \
    "$run" -clang-tidy-binary "$build/bin/meshguard-tidy" -p "$work/p$n" -j 2 -quiet \
    -config='{}' -checks='-*,dtensor-*' > "$work/out$n.txt" 2>&1 || true
  end=$(date +%s.%N)
  findings=$(grep -c 'warning: .*\[dtensor-collective-without-mesh\]' "$work/out$n.txt" || true)
  read -r usr sys < "$work/time$n.txt"
  load=$(cut -d' ' -f1 /proc/loadavg)
  python3 -c "import sys; n,s,e,u,y,f,l=int(sys.argv[1]),float(sys.argv[2]),float(sys.argv[3]),float(sys.argv[4]),float(sys.argv[5]),sys.argv[6],sys.argv[7]; print('%6d %10.1f %12.3f %14.3f %10s %8s' % (n, e-s, (e-s)/n, (u+y)/n, f, l))" "$n" "$start" "$end" "$usr" "$sys" "$findings" "$load"
done
