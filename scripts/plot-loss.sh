#!/usr/bin/env bash
# Plots the demo's loss curves with gnuplot, as an SVG: the fixed program on
# several ranks and the single-process reference, on one plot (they overlap
# when the distributed run is right).
# Usage: scripts/plot-loss.sh RUN_LOG REFERENCE_LOG OUT.svg [RUN_TITLE]
# Both logs hold lines "... step N loss L" (rank 0), as scripts/compare-loss.py reads them.
set -euo pipefail
if [ $# -lt 3 ]; then
  echo "usage: $0 RUN_LOG REFERENCE_LOG OUT.svg [RUN_TITLE]" >&2
  exit 2
fi
run_log=$1 ref_log=$2 out=$3 run_title=${4:-fixed program, 2 ranks}
command -v gnuplot >/dev/null || { echo "plot-loss: gnuplot is not installed (scripts/bootstrap.sh installs gnuplot-nox)" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
points() { # points LOG DATA: "step loss" per line
  grep -oE 'step [0-9]+ loss [-+0-9.eE]+' "$1" | awk '{ print $2, $4 }' >"$2" || true
  if [ "$(wc -l <"$2")" -lt 2 ]; then
    echo "plot-loss: fewer than two 'step N loss L' lines in $1" >&2
    exit 1
  fi
}
points "$run_log" "$tmp/run.dat"
run_title=${run_title//\'/\'\'} # a quote inside a gnuplot '...' string is doubled
points "$ref_log" "$tmp/ref.dat"

# The reference is a wide pale line, the run thin with points on top of it:
# both stay visible where they coincide.
gnuplot <<EOF
set terminal svg size 640,400 font 'sans,12' background rgb 'white'
set output '$tmp/plot.svg'
set title 'Training loss: the fixed program vs. the single-process reference'
set xlabel 'step'
set ylabel 'loss'
set key top right box opaque
set grid lc rgb '#dddddd'
set border lc rgb '#555555'
plot '$tmp/ref.dat' using 1:2 with lines lw 7 lc rgb '#9ecae1' title 'reference, 1 process', \
     '$tmp/run.dat' using 1:2 with linespoints lw 1.5 pt 7 ps 0.9 lc rgb '#d62728' title '$run_title'
EOF
[ -s "$tmp/plot.svg" ] || { echo "plot-loss: gnuplot wrote no plot" >&2; exit 1; }
mv "$tmp/plot.svg" "$out"
