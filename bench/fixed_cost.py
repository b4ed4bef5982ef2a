#!/usr/bin/env python3
"""What the dtensor-* checks add to a clang-tidy run on real headers.

    bench/fixed_cost.py BUILD_DIR [--runs 5] [--files FILE...]
                        [--trivial misc-unused-alias-decls]

For each file it runs meshguard-tidy alternately with -checks='-*,dtensor-*'
and with a trivial check (both parse the same headers and traverse the same
AST), RUNS times each, and measures the CPU time (user + system) of each
process. It prints the medians, the median of the pairwise differences
(dtensor run minus the trivial run just before it, which cancels slow drift
of the machine's load) and that difference as a percentage of the trivial
run: the checks' own cost.

Default files: bench/inputs/plain_mnist.cpp (a libtorch program that uses no
meshguard API: the fixed cost) and examples/train.cpp (the demo, which does:
the whole cost). Both include <torch/torch.h>, so each run takes 10-40 s.
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, ".."))
DEFAULT_FILES = [os.path.join(HERE, "inputs", "plain_mnist.cpp"),
                 os.path.join(ROOT, "examples", "train.cpp")]
TORCH_API_INCLUDE = "/usr/include/torch/csrc/api/include"


def run_measured(tidy, checks, path, flags):
    # Popen + wait4 by hand, so that the rusage is this child's alone.
    cmd = [tidy, "--config={}", "-checks=-*," + checks, path, "--"] + flags
    start = time.monotonic()
    out_path = "/tmp/fixed_cost.%d.out" % os.getpid()
    with open(out_path, "w") as out_file:
        proc = subprocess.Popen(cmd, stdout=out_file, stderr=subprocess.STDOUT)
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
    wall = time.monotonic() - start
    with open(out_path) as f:
        out = f.read()
    os.unlink(out_path)
    if proc.returncode not in (0, 1) or re.search(r"\berror:", out):
        sys.exit("meshguard-tidy failed on %s (%s), exit %d:\n%s"
                 % (path, checks, proc.returncode, out[-3000:]))
    prefix = checks.rstrip("*")
    warnings = len(re.findall(r"warning: .*\[" + re.escape(prefix), out))
    return usage.ru_utime + usage.ru_stime, wall, warnings


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("build_dir")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--files", nargs="+", default=DEFAULT_FILES)
    ap.add_argument("--trivial", default="misc-unused-alias-decls")
    ap.add_argument("--checks", default="dtensor-*")
    ap.add_argument("--tidy", help="the binary (default BUILD_DIR/bin/meshguard-tidy)")
    args = ap.parse_args()
    tidy = args.tidy or os.path.join(args.build_dir, "bin", "meshguard-tidy")
    if not os.access(tidy, os.X_OK):
        sys.exit("no meshguard-tidy at " + tidy)
    flags = ["-std=c++17", "-isystem", os.path.join(ROOT, "include"),
             "-isystem", TORCH_API_INCLUDE, "-DUSE_DISTRIBUTED",
             "-DUSE_C10D_GLOO"]
    print("binary: %s" % tidy)
    print("load average at start: %.2f %.2f %.2f" % os.getloadavg())
    for path in args.files:
        ours, trivial, diffs, found = [], [], [], set()
        for i in range(args.runs):
            t_cpu, _, _ = run_measured(tidy, args.trivial, path, flags)
            o_cpu, _, warnings = run_measured(tidy, args.checks, path, flags)
            trivial.append(t_cpu)
            ours.append(o_cpu)
            diffs.append(o_cpu - t_cpu)
            found.add(warnings)
            print("  %s run %d: %s %.2f s, %s %.2f s CPU"
                  % (os.path.basename(path), i + 1, args.trivial, t_cpu,
                     args.checks, o_cpu), flush=True)
        base = statistics.median(trivial)
        diff = statistics.median(diffs)
        print("%s: %s median %.2f s, %s median %.2f s (%s warning(s)); "
              "median pairwise difference %+.3f s = %+.1f %% of the trivial "
              "check's run (ratio of medians %.3f)"
              % (os.path.relpath(path, ROOT), args.trivial, base, args.checks,
                 statistics.median(ours), "/".join(map(str, sorted(found))),
                 diff, 100.0 * diff / base, statistics.median(ours) / base))
    print("load average at end: %.2f %.2f %.2f" % os.getloadavg())


if __name__ == "__main__":
    main()
