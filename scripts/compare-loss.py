#!/usr/bin/env python3
"""Compares the losses of a multi-rank run with a single-process reference.

Usage: compare-loss.py RUN_LOG REFERENCE_LOG [--rtol R] [--first-step K] [--label L]
Both logs hold lines "... step N loss L" from rank 0. The runs must report
the same steps, the loss must fall, and every loss must match the reference
within the relative tolerance (default 1e-4: float32 sums in another order).
A "final mse M" line, when either log has one, must be in both and match too.
With --first-step K (a run resumed from a checkpoint of step K-1), the run
must report exactly the reference's steps from K on. Every step is compared;
the table shows the first, every fifth and the last. --label names the run
in the table ("2 ranks").
"""
import argparse
import re
import sys

LINE = re.compile(r"step (\d+) loss ([-+0-9.eE]+)")
FINAL = re.compile(r"final mse ([-+0-9.eE]+)")


def losses(path):
    with open(path, errors="replace") as f:
        text = f.read()
    steps = {int(m.group(1)): float(m.group(2)) for m in LINE.finditer(text)}
    final = FINAL.search(text)
    return steps, float(final.group(1)) if final else None


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("run")
    parser.add_argument("reference")
    parser.add_argument("--rtol", type=float, default=1e-4)
    parser.add_argument("--first-step", type=int, default=None)
    parser.add_argument("--label", default="2 ranks")
    args = parser.parse_args()
    (run, run_final), (ref, ref_final) = losses(args.run), losses(args.reference)
    if args.first_step is not None:
        ref = {step: loss for step, loss in ref.items() if step >= args.first_step}
    if not run or sorted(run) != sorted(ref) or len(run) < 2:
        print("steps differ: run %s, reference %s" % (sorted(run), sorted(ref)))
        return 1
    worst = 0.0
    first, last = min(run), max(run)
    for step in sorted(run):
        rel = abs(run[step] - ref[step]) / max(abs(ref[step]), 1e-12)
        worst = max(worst, rel)
        if step in (first, last) or step % 5 == 0 or rel > args.rtol:
            print("step %3d  %s %.6f  reference %.6f  rel. diff %.1e%s"
                  % (step, args.label, run[step], ref[step], rel,
                     "" if rel <= args.rtol else " (too large)"))
    falls = run[last] < run[first]
    print("loss %.6f -> %.6f (%s); steps %d-%d all compared, "
          "largest relative difference %.1e (tolerance %.0e)"
          % (run[first], run[last], "falls" if falls else "does NOT fall", first, last, worst,
             args.rtol))
    final_ok = True
    if run_final is not None or ref_final is not None:
        if run_final is None or ref_final is None:
            print("final mse: in one log only (run %s, reference %s)" % (run_final, ref_final))
            final_ok = False
        else:
            rel = abs(run_final - ref_final) / max(abs(ref_final), 1e-12)
            final_ok = rel <= args.rtol
            print("final mse  %s %.6f  reference %.6f  rel. diff %.1e%s"
                  % (args.label, run_final, ref_final, rel, "" if final_ok else " (too large)"))
    return 0 if falls and worst <= args.rtol and final_ok else 1


if __name__ == "__main__":
    sys.exit(main())
