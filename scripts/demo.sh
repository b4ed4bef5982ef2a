#!/usr/bin/env bash
# The README's first command: meshguard end to end on a real C++ training program.
#   1. install and build what is needed (logs in $BUILD/demo/logs);
#   2. run the buggy program on 2 Gloo ranks: it dies with MeshNotFoundError;
#      the hang of a rank-0-only checkpoint is caught by the debug mode;
#   3. meshguard-tidy finds every mistake and explains it; the findings, with their
#      notes and fix-its laid out on the source, go to $BUILD/demo/report.html;
#   4. the fix-its are applied to a copy, which is rebuilt and trains on 2 ranks,
#      its loss matching a single-process reference (curves in $BUILD/demo/loss.svg);
#      it saves its state at step 15 (meshguard::checkpoint), and a 4-rank run
#      resumes from it, its steps 16-30 matching the reference's;
#   5. a summary.
# Usage: scripts/demo.sh [build-dir]. Non-interactive; MESHGUARD_DEMO_PLAIN=1 turns colour off.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
root=$PWD
build=$(realpath -m "${1:-build}")
work=$build/demo
logs=$work/logs
mkdir -p "$logs"
start_all=$(date +%s)

if [ -t 1 ] && [ -z "${MESHGUARD_DEMO_PLAIN:-}" ]; then
  bold=$'\e[1m' red=$'\e[31m' green=$'\e[32m' yellow=$'\e[33m' blue=$'\e[34m' reset=$'\e[0m'
else
  bold='' red='' green='' yellow='' blue='' reset=''
fi
section() { printf '\n%s== %s ==%s\n' "$bold$blue" "$*" "$reset"; }
ok() { printf '%s✓ %s%s\n' "$green" "$*" "$reset"; }
die() { printf '%s✗ %s%s\n' "$red" "$1" "$reset" >&2; [ -n "${2:-}" ] && printf '  log: %s\n' "$2" >&2; exit 1; }
quiet() { # quiet LOG CMD...: runs CMD with its output in LOG
  local log=$1; shift
  "$@" >"$log" 2>&1
}

section "1. Install and build"
torch=${MESHGUARD_TORCH:-pip}
echo "  configuring (TORCH=$torch; a first run installs Debian packages and PyTorch 2.13 first: a few minutes)"
quiet "$logs/configure.log" bash scripts/configure.sh "$build" "$torch" -DCMAKE_BUILD_TYPE=Release ||
  die "installing packages or configuring failed" "$logs/configure.log"
sed -n 's/^configure ([^)]*): meshguard: libtorch/  libtorch/p' "$logs/configure.log"
# Only what the demo runs; progress lines name the slow steps as they go
# (sed -u: a log that is not a terminal gets each line when it is printed).
python3 scripts/build.py "$build" -j "$(nproc)" meshguard-tidy train rank0_checkpoint | sed -u 's/^/  /'
[ "${PIPESTATUS[0]}" -eq 0 ] || die "building failed" "$build/build.log"
ok "built meshguard-tidy and examples/train.cpp (logs in $logs)"

launch() { # launch LOG NPROC PROGRAM ARGS...: the program on NPROC local Gloo ranks
  local log=$1 n=$2; shift 2
  python3 scripts/meshguard-launch --nproc "$n" --timeout 120 -- "$@" >"$log" 2>&1
}

section "2. Run the buggy program on 2 ranks (Gloo, loopback)"
if launch "$logs/buggy-run.log" 2 "$build/bin/train"; then
  die "the buggy program did not fail; it should have thrown MeshNotFoundError" "$logs/buggy-run.log"
fi
grep -q "found no DeviceMesh from dtensor args for c10d" "$logs/buggy-run.log" ||
  die "the buggy program failed, but not with MeshNotFoundError" "$logs/buggy-run.log"
printf '%s' "$yellow"
grep -m1 -A6 "found no DeviceMesh from dtensor args" "$logs/buggy-run.log" | sed 's/^/  | /'
printf '%s' "$reset"
ok "rank output shows the runtime's error, as PyTorch would raise it"

# Mistake 6 (a collective only rank 0 reaches) hangs rather than throws. The
# collective-consistency mode turns the hang into an error naming both ranks'
# call sites; shown on examples/rank0_checkpoint.cpp, the same mistake alone
# (the buggy train.cpp stops at its first mistake before the checkpoint).
section "2b. The hang of mistake 6, caught by MESHGUARD_DEBUG_COLLECTIVES=1"
if MESHGUARD_DEBUG_COLLECTIVES=1 MESHGUARD_DEBUG_TIMEOUT_S=10 launch "$logs/debug-run.log" 2 "$build/bin/rank0_checkpoint"; then
  die "the rank-0-only checkpoint did not fail under the debug mode" "$logs/debug-run.log"
fi
grep -q "collectives differ across ranks" "$logs/debug-run.log" ||
  die "the debug mode did not report the diverging collectives" "$logs/debug-run.log"
printf '%s' "$yellow"
grep -m1 -A3 "collectives differ across ranks" "$logs/debug-run.log" | cut -c1-200 | sed "s|$root/||g; s/^/  | /"
printf '%s' "$reset"
ok "both ranks stop at once, each naming its own call site (instead of hanging)"

section "3. meshguard-tidy finds the mistakes before the job runs"
tidy=("$build/bin/meshguard-tidy" -p "$build" "--checks=-*,dtensor-*")
rm -f "$work/findings.yaml" "$work/report.html" "$work/loss.svg"
"${tidy[@]}" -export-fixes="$work/findings.yaml" examples/train.cpp >"$logs/tidy.log" 2>&1
grep -E '(warning|note):' "$logs/tidy.log" | grep -v 'FIX-IT' | sed "s|$root/||" | sed 's/^/  /'
findings=$(grep -c 'warning:' "$logs/tidy.log")
[ "$findings" -gt 0 ] || die "meshguard-tidy found nothing" "$logs/tidy.log"
ok "$findings findings"
# The HTML report, from the exported fixes; --check holds it to the text output above.
{ python3 scripts/findings-report.py "$work/findings.yaml" "$work/report.html" --root "$root" &&
  python3 scripts/findings-report.py --check "$work/report.html" "$logs/tidy.log"; } >"$logs/report.log" 2>&1 ||
  die "the HTML report of the findings could not be written" "$logs/report.log"
ok "report with the notes laid out on the source: $work/report.html"

section "4. Apply the fix-its to a copy, rebuild, and train on 2 ranks"
mkdir -p "$work/src"
cp examples/train.cpp "$work/src/train_fixed.cpp"
cp examples/.clang-tidy "$work/src/.clang-tidy" # user code: warnings, not the project's errors
compile_args=$(python3 scripts/compile-args.py "$build/compile_commands.json" examples/train.cpp) ||
  die "examples/train.cpp is not in the compile database" "$build/compile_commands.json"
# shellcheck disable=SC2086
"$build/bin/meshguard-tidy" "--checks=-*,dtensor-*" -fix "$work/src/train_fixed.cpp" -- $compile_args \
  >"$logs/fix.log" 2>&1
fixed=$(grep -oE "applied [0-9]+ of" "$logs/fix.log" | grep -oE "[0-9]+" | head -1)
fixed=${fixed:-0}
diff -u examples/train.cpp "$work/src/train_fixed.cpp" >"$work/fix.diff"
sed 's/^/  /' "$work/fix.diff" | grep -E '^  (\+|-|@@)' | grep -vE '^  (\+\+\+|---)' |
  sed -e "s/^  +/  $green+/" -e "s/^  -/  $red-/" -e "s/$/$reset/"
[ "$fixed" -gt 0 ] || die "no fix-it was applied" "$logs/fix.log"
# The fixed copy must be right by every check: all the dtensor-* checks run on
# it, and none may report anything (nor may the run fail, e.g. on a compile error).
checks_run=$("$build/bin/meshguard-tidy" "--checks=-*,dtensor-*" --list-checks 2>/dev/null | grep -c '^ *dtensor-')
# shellcheck disable=SC2086
"$build/bin/meshguard-tidy" "--checks=-*,dtensor-*" "$work/src/train_fixed.cpp" -- $compile_args \
  >"$logs/tidy-after.log" 2>&1 ||
  die "meshguard-tidy failed on the fixed copy" "$logs/tidy-after.log"
left=$(grep -c 'warning:' "$logs/tidy-after.log")
if [ "$left" -ne 0 ]; then
  grep -E '(warning|note):' "$logs/tidy-after.log" | sed "s|$work/||; s/^/  /"
  die "$left findings left in the fixed copy: every dtensor-* check must be silent on it" "$logs/tidy-after.log"
fi
quiet "$logs/configure-fixed.log" cmake -S . -B "$build" -DMESHGUARD_DEMO_FIXED_SOURCE="$work/src/train_fixed.cpp" ||
  die "configuring the fixed program failed" "$logs/configure-fixed.log"
python3 scripts/build.py "$build" -j "$(nproc)" train_fixed | sed -u 's/^/  /'
build_rc=${PIPESTATUS[0]}
cp "$build/build.log" "$logs/build-fixed.log"
[ "$build_rc" -eq 0 ] || die "the fixed program does not compile" "$logs/build-fixed.log"
ok "$fixed fix-its applied; the fixed program compiles; $left findings left (all $checks_run dtensor-* checks run on it)"

# The 2-rank run also saves its state at step $save_step; section 4b resumes from it.
save_step=15
checkpoint=$work/checkpoint
rm -rf "$checkpoint"
launch "$logs/fixed-run.log" 2 "$build/bin/train_fixed" --save-at "$save_step" "$checkpoint" ||
  die "the fixed program failed on 2 ranks" "$logs/fixed-run.log"
launch "$logs/reference-run.log" 1 "$build/bin/train_fixed" ||
  die "the single-process reference run failed" "$logs/reference-run.log"
# The program logs every step; shown: the first step's placements (the batch
# Shard(0), the gradients Partial until sync_gradients reduces them), the
# first step, every fifth, and the save.
grep -E '^\[rank 0\] (placements at step|step (1|[0-9]*[05]) loss|saved step)' "$logs/fixed-run.log" |
  sed "s|$root/||; s/^/  /"
python3 scripts/compare-loss.py "$logs/fixed-run.log" "$logs/reference-run.log" >"$logs/compare.txt" ||
  { cat "$logs/compare.txt"; die "the 2-rank loss does not match the single-process reference" "$logs/compare.txt"; }
sed 's/^/  /' "$logs/compare.txt"
bash scripts/plot-loss.sh "$logs/fixed-run.log" "$logs/reference-run.log" "$work/loss.svg" >"$logs/plot.log" 2>&1 ||
  die "plotting the loss curves failed" "$logs/plot.log"
ok "the fixed program trains on 2 ranks and matches the reference"

# A checkpoint is only as good as the run that continues from it: a new job on
# 4 ranks (its own mesh, 16 rows per rank instead of 32) loads the 2-rank state
# into its DTensors and must go on exactly as the run that never stopped.
section "4b. Resume from the 2-rank checkpoint of step $save_step on 4 ranks"
[ -f "$checkpoint/.metadata" ] || die "the 2-rank run saved no checkpoint in $checkpoint" "$logs/fixed-run.log"
printf '  %s: %s files, %s bytes (PyTorch DCP layout)\n' "${checkpoint#"$root/"}" \
  "$(find "$checkpoint" -type f | wc -l)" "$(find "$checkpoint" -type f -printf '%s\n' | awk '{ n += $1 } END { print n }')"
launch "$logs/resume-run.log" 4 "$build/bin/train_fixed" --resume "$checkpoint" ||
  die "the resumed run failed on 4 ranks" "$logs/resume-run.log"
grep -q "resumed at step $((save_step + 1)) " "$logs/resume-run.log" ||
  die "the 4-rank run did not resume at step $((save_step + 1))" "$logs/resume-run.log"
grep -m1 '^\[rank 0\] resumed' "$logs/resume-run.log" | sed "s|$root/||; s/^/  /"
python3 scripts/compare-loss.py "$logs/resume-run.log" "$logs/reference-run.log" \
  --first-step "$((save_step + 1))" --label "4 ranks" >"$logs/compare-resume.txt" ||
  { cat "$logs/compare-resume.txt"; die "the resumed run's loss does not continue as the reference's" "$logs/compare-resume.txt"; }
sed 's/^/  /' "$logs/compare-resume.txt"
ok "saved on 2 ranks, resumed on 4: steps $((save_step + 1))-30 match the uninterrupted reference"

section "5. Summary"
step_ms=$(grep -m1 -oE 'ms/step=[0-9.]+' "$logs/fixed-run.log" | cut -d= -f2)
printf '  findings: %s   fix-it edits applied: %s   findings after fixing: %s\n' "$findings" "$fixed" "$left"
printf '  time per training step (2 ranks): %s ms   demo time: %s s\n' "${step_ms:-?}" "$(( $(date +%s) - start_all ))"
printf '  report: %s   loss plot: %s\n' "$work/report.html" "$work/loss.svg"
printf '  checkpoint (step %s, 2 ranks; resumed on 4): %s\n' "$save_step" "$checkpoint"
printf '  logs: %s\n' "$logs"
printf '  next: docs/README.md (checks, runtime, IDE and CI setup)\n'
