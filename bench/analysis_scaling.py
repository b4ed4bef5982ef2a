#!/usr/bin/env python3
"""How the dtensor-* checks' time grows with function size.

    bench/analysis_scaling.py BUILD_DIR [--sizes 1000 10000 100000]
                              [--shapes straight branchy loops lambda-ref
                                        lambda-ref-t lambda-copy
                                        lambda-ref-written] [--out FILE]

For each shape and size it generates one function of SIZE statements (stub
headers, so parsing is negligible), runs meshguard-tidy with
--enable-check-profile, and reads the checks' own time. Two runs per
function: with limits raised so the function is analysed, and with the
default limits (a function that hits one is skipped: that run shows the
worst a user waits). Prints the time per size and the ratio of each size to
the previous one (linear growth: about 10x per decade).
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
STUBS = os.path.join(HERE, "..", "test", "Inputs", "stubs")

HEADER = """#include <meshguard/meshguard.h>
#include <torch/torch.h>
bool flag(int);
void big(const meshguard::DeviceMesh &mesh) {
"""


def straight(n):
    # 4 statements per group: a plain tensor, an op, a finding, a DTensor.
    out = []
    for i in range(n // 4):
        out += ["  at::Tensor a%d = torch::randn({4});" % i,
                "  at::Tensor b%d = a%d * 2;" % (i, i),
                "  meshguard::dist::broadcast_({b%d}, 0);" % i,
                "  at::Tensor c%d = meshguard::distribute_tensor(b%d, mesh, {meshguard::Replicate{}});" % (i, i)]
    return out


def branchy(n):
    # 4 statements per group: an if/else that makes t plain or a DTensor,
    # then a collective on it (possibly plain: StrictMode's concern).
    out = ["  at::Tensor t = torch::randn({4});"]
    for i in range((n - 1) // 4):
        out += ["  if (flag(%d))" % i,
                "    t = torch::randn({4});",
                "  else t = meshguard::distribute_tensor(t, mesh, {meshguard::Replicate{}});",
                "  meshguard::dist::broadcast_({t}, 0);"]
    return out


def loops(n):
    # 4 statements per group: a loop whose body changes the tensor's kind.
    out = ["  at::Tensor t = torch::randn({4});"]
    for i in range((n - 1) // 4):
        out += ["  for (int i%d = 0; i%d < 3; ++i%d) {" % (i, i, i),
                "    meshguard::dist::all_reduce_({t});",
                "    t = meshguard::distribute_tensor(t, mesh, {meshguard::Replicate{}}); }",
                "  t = t * 2;"]
    return out


def lambdas(capture, written):
    # 2 statements per lambda: a lambda that captures the plain tensor t
    # (by reference: [&] or [&t]; by copy: [t]) and runs a collective on it,
    # and its call. With `written`, 4 per lambda: each lambda captures its
    # own tensor, declared and assigned before it (by-reference captures of
    # written variables need the writes' reachability, one walk each).
    def shape(n):
        if written:
            out = []
            for i in range(n // 4):
                out += ["  at::Tensor t%d;" % i,
                        "  t%d = torch::randn({4});" % i,
                        "  auto l%d = %s { meshguard::dist::broadcast_({t%d}, 0); };"
                        % (i, capture, i),
                        "  l%d();" % i]
            return out
        out = ["  at::Tensor t = torch::randn({4});"]
        for i in range((n - 1) // 2):
            out += ["  auto l%d = %s { meshguard::dist::broadcast_({t}, 0); };" % (i, capture),
                    "  l%d();" % i]
        return out
    return shape


SHAPES = {"straight": straight, "branchy": branchy, "loops": loops,
          "lambda-ref": lambdas("[&]", False), "lambda-ref-t": lambdas("[&t]", False),
          "lambda-copy": lambdas("[t]", False),
          "lambda-ref-written": lambdas("[&]", True)}
DEFAULT_SHAPES = ["straight", "branchy", "loops"]
PROFILE_LINE = re.compile(r"^\s*([\d.]+)\s+\(.*\)\s+(\S+)\s*$")


CPU_TIME = False


def check_seconds(stderr):
    """Sum of the dtensor-* rows' wall time (CPU time under --cpu) in
    clang-tidy's check profile."""
    total = 0.0
    for line in stderr.splitlines():
        if "dtensor-" not in line:
            continue
        numbers = re.findall(r"([\d.]+)\s+\(\s*[\d.]+%\)", line)
        if numbers:
            # Columns: user, system, user+system, wall.
            total += float(numbers[-2] if CPU_TIME else numbers[-1])
    return total


def run(tidy, path, raised):
    opts = {"dtensor-collective-without-mesh.PrintStats": "true"}
    if raised:
        for check in ("collective-without-mesh", "process-group-misuse", "mixed-tensor-op"):
            opts["dtensor-%s.MaxFunctionElements" % check] = "100000000"
            opts["dtensor-%s.MaxBlockVisits" % check] = "100000000"
            opts["dtensor-%s.MaxSATConflicts" % check] = "100000000"
    config = json.dumps({"CheckOptions": opts})
    cmd = [tidy, "--config=" + config, "-checks=-*,dtensor-*", "--enable-check-profile",
           path, "--", "-std=c++17", "-I", STUBS]
    start = time.monotonic()
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=3600)
    wall = time.monotonic() - start
    if proc.returncode not in (0, 1):
        sys.exit("meshguard-tidy failed (%d):\n%s" % (proc.returncode, proc.stderr[-2000:]))
    stats = re.search(r"meshguard: dtensor-collective-without-mesh: (.*)", proc.stderr)
    findings = proc.stdout.count("[dtensor-collective-without-mesh]")
    return check_seconds(proc.stderr), wall, findings, stats.group(1) if stats else "?"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("build")
    ap.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000, 100000])
    ap.add_argument("--shapes", nargs="+", default=DEFAULT_SHAPES, choices=list(SHAPES))
    ap.add_argument("--out", help="also write the table (markdown) here")
    ap.add_argument("--cpu", action="store_true",
                    help="read the checks' CPU time (user+system) instead of wall time "
                         "(steadier on a loaded machine)")
    args = ap.parse_args()
    global CPU_TIME
    CPU_TIME = args.cpu
    tidy = os.path.join(args.build, "bin", "meshguard-tidy")
    rows = ["| shape | statements | check s (analysed) | x previous | findings | check s (default limits) | solver |",
            "|---|---:|---:|---:|---:|---:|---|"]
    with tempfile.TemporaryDirectory() as work:
        for shape in args.shapes:
            previous = None
            for size in args.sizes:
                path = os.path.join(work, "%s_%d.cpp" % (shape, size))
                with open(path, "w") as f:
                    f.write(HEADER + "\n".join(SHAPES[shape](size)) + "\n}\n")
                seconds, _, findings, stats = run(tidy, path, raised=True)
                if " 0 skipped" not in stats:
                    sys.exit("%s %d was not analysed with raised limits: %s" % (shape, size, stats))
                default_seconds, _, _, default_stats = run(tidy, path, raised=False)
                ratio = "%.1f" % (seconds / previous) if previous else "-"
                previous = seconds
                solver = stats.split("; ")[-1] if "SAT" in stats else ""
                row = "| %s | %d | %.3f | %s | %d | %.3f | %s |" % (
                    shape, size, seconds, ratio, findings, default_seconds, solver)
                rows.append(row)
                print(row, flush=True)
    if args.out:
        with open(args.out, "w") as f:
            f.write("\n".join(rows) + "\n")


if __name__ == "__main__":
    main()
