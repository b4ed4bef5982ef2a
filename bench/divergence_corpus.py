#!/usr/bin/env python3
"""Precision and recall of dtensor-* checks on a corpus.

    bench/divergence_corpus.py BUILD_DIR [--corpus DIR] [--checks A,B]
                               [--verbose]
                               [--min-precision P] [--min-recall R]

DIR (bench/divergence-corpus by default; bench/divergence-corpus-ported is
the independent one, ported from PARCOACH and the MPI Bugs Initiative)
holds bad/*.cpp, programs that hang (a collective that not every rank
reaches, or reaches in another order); each line that should be reported
ends with the comment `EXPECT-DIVERGENCE`. good/*.cpp are their correct
twins and must stay silent. Every file is checked with meshguard-tidy
against the stub headers (test/Inputs/stubs). A warning on an expected line
is a true positive, a warning anywhere else a false positive, an expected
line without a warning a false negative. Prints the counts, precision and
recall (per line and per file); with --min-precision / --min-recall, exits
1 when a figure falls below (the quick test in `make test` pins them).

With --checks (bench/placements-corpus: the checks of placements and
meshes), the listed checks run, and a line ends with `EXPECT: <check>[,
<check>]` instead: a warning counts when its line expects its check.
"""
import argparse
import concurrent.futures
import glob
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, ".."))
CORPUS = os.path.join(HERE, "divergence-corpus")
STUBS = os.path.join(ROOT, "test", "Inputs", "stubs")
CHECK = "dtensor-rank-divergent-collective"


def warned_lines(tidy, path, checks):
    """{(line, check)} of the warnings on PATH."""
    proc = subprocess.run(
        [tidy, "--config={}", "-checks=-*," + ",".join(checks), path, "--",
         "-std=c++17", "-I" + STUBS],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if "error:" in proc.stdout:
        sys.exit("%s does not compile:\n%s" % (path, proc.stdout))
    # A crash prints no warnings: counting it as silence would read as lost
    # recall (or perfect precision) instead of a failure.
    if proc.returncode != 0 or "Stack dump" in proc.stdout:
        sys.exit("meshguard-tidy failed on %s (exit %d):\n%s" %
                 (path, proc.returncode, proc.stdout))
    pattern = re.compile(r"^%s:(\d+):\d+: warning: .*\[(%s)\]$" %
                         (re.escape(path), "|".join(map(re.escape, checks))), re.M)
    return {(int(m.group(1)), m.group(2)) for m in pattern.finditer(proc.stdout)}


def expected_lines(path):
    """{(line, check)} the comments of PATH expect."""
    want = set()
    with open(path) as f:
        for i, line in enumerate(f, 1):
            if "EXPECT-DIVERGENCE" in line:
                want.add((i, CHECK))
            m = re.search(r"EXPECT: ([\w, -]+)$", line.rstrip())
            if m:
                want.update((i, c.strip()) for c in m.group(1).split(","))
    return want


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("--corpus", default=CORPUS)
    ap.add_argument("--checks", default=CHECK,
                    help="comma-separated checks to run (default: %(default)s)")
    ap.add_argument("--verbose", action="store_true")
    ap.add_argument("--min-precision", type=float, default=0.0)
    ap.add_argument("--min-recall", type=float, default=0.0)
    args = ap.parse_args()
    corpus = os.path.abspath(args.corpus)
    if not os.path.isdir(os.path.join(corpus, "bad")):
        sys.exit("%s has no bad/ folder: not a corpus" % args.corpus)
    tidy = os.path.join(args.build, "bin", "meshguard-tidy")
    if not os.access(tidy, os.X_OK):
        sys.exit("%s: no meshguard-tidy here; build it first" % tidy)
    tp = fp = fn = 0
    files = {"bad": [0, 0], "good": [0, 0]}  # [flagged, total]
    paths = [(kind, path) for kind in ("bad", "good")
             for path in sorted(glob.glob(os.path.join(corpus, kind, "*.cpp")))]
    # One meshguard-tidy per file, as many at once as there are cores.
    with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 1) as pool:
        checks = args.checks.split(",")
        reported = list(pool.map(lambda kp: warned_lines(tidy, kp[1], checks), paths))
    for (kind, path), got in zip(paths, reported):
        want = expected_lines(path)
        if kind == "bad" and not want:
            sys.exit("%s marks no expected line" % path)
        tp += len(want & got)
        fp += len(got - want)
        fn += len(want - got)
        files[kind][0] += bool(got)
        files[kind][1] += 1
        if args.verbose or got != want:
            print("%-5s %-40s expected %s, reported %s" %
                  (kind, os.path.basename(path), sorted(want), sorted(got)))
    precision = tp / (tp + fp) if tp + fp else 1.0
    recall = tp / (tp + fn) if tp + fn else 1.0
    print("lines: %d true positives, %d false positives, %d false negatives"
          % (tp, fp, fn))
    print("precision %.3f, recall %.3f" % (precision, recall))
    print("files: %d/%d bad files reported, %d/%d good files reported"
          % (files["bad"][0], files["bad"][1], files["good"][0],
             files["good"][1]))
    if precision < args.min_precision or recall < args.min_recall:
        sys.exit("below the recorded figures (precision %.3f, recall %.3f)"
                 % (args.min_precision, args.min_recall))


if __name__ == "__main__":
    main()
