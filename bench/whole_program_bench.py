#!/usr/bin/env python3
"""What the whole-program summaries cost (docs/tools/performance.md).

    whole_program_bench.py --build BUILD [--files 50] [--repeat 3] [-j 2]

Runs meshguard-run over two projects: the multi-file test project
(test/tools/Inputs/whole-program) and a generated one of --files files whose
helpers are called from the next file (unit0 calls the last one: a ring). For
each, in the same run:
  check      the checks alone (--no-summaries, no database),
  both       the checks writing the summaries, from an empty database (each
             file checked after the files it calls into; a file checked too
             early is run again),
  reuse      the same with the database up to date,
and prints CPU time (user + system of meshguard-run and everything it ran,
median of --repeat), the ratios both/check and reuse/check, the database
size, the re-checks, and the findings of each (the summaries must add the
cross-file ones). The target: both/check <= 1.3, database of 50 files < 1 MB.

    whole_program_bench.py --build BUILD --export-cost [--files 10] [--repeat 5]

measures instead what the export of a check run costs (MESHGUARD_SUMMARY_EXPORT,
docs/tools/whole-program.md): on the generated project, with its database
filled by one exporting pass first, meshguard-tidy on each file reading that
database, without and with the export, interleaved file by file; prints the
CPU time of each round (all files) and the median ratio with/without.
"""
import argparse
import json
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
STUBS = os.path.join(ROOT, "test", "Inputs", "stubs")
TEST_PROJECT = os.path.join(ROOT, "test", "tools", "Inputs", "whole-program")

UNIT = """#include <meshguard/meshguard.h>
#include <torch/torch.h>

namespace unit{i} {{
// Helpers the next file calls.
void sync(const at::Tensor &grad) {{ meshguard::dist::all_reduce_({{grad}}); }}
at::Tensor make_local(const at::Tensor &t) {{ return meshguard::to_local(t); }}
at::Tensor add_noise(const at::Tensor &t) {{
  at::Tensor noise = torch::randn({{4}});
  return t + noise;
}}
}} // namespace unit{i}

namespace unit{prev} {{
void sync(const at::Tensor &grad);
at::Tensor make_local(const at::Tensor &t);
at::Tensor add_noise(const at::Tensor &t);
}} // namespace unit{prev}

namespace unit{i} {{
void step(const meshguard::DeviceMesh &mesh) {{
  at::Tensor w = meshguard::distribute_tensor(torch::randn({{4}}), mesh,
                                              {{meshguard::Replicate{{}}}});
  unit{prev}::sync(meshguard::to_local(w));
  meshguard::dist::broadcast_({{unit{prev}::make_local(w)}}, 0);
  at::Tensor n = unit{prev}::add_noise(w);
  unit{prev}::sync(w);
}}
{filler}}} // namespace unit{i}
"""
FILLER = """
int helper{j}(int X) {{
  int Sum = 0;
  for (int K = 0; K < X; ++K)
    Sum += K * {j};
  return Sum;
}}
"""


def generate(out, n):
    src = os.path.join(out, "src")
    build = os.path.join(out, "build")
    os.makedirs(src)
    os.makedirs(build)
    db = []
    for i in range(n):
        path = os.path.join(src, "unit%d.cpp" % i)
        with open(path, "w") as f:
            f.write(UNIT.format(i=i, prev=(i - 1) % n,
                                filler="".join(FILLER.format(j=j) for j in range(5))))
        db.append({"directory": build, "file": path,
                   "arguments": ["c++", "-std=c++17", "-I", STUBS, "-c", path, "-o", "u%d.o" % i]})
    with open(os.path.join(build, "compile_commands.json"), "w") as f:
        json.dump(db, f, indent=1)
    return build


def copy_test_project(out):
    src = os.path.join(out, "src")
    build = os.path.join(out, "build")
    shutil.copytree(TEST_PROJECT, src)
    os.makedirs(build)
    with open(os.path.join(TEST_PROJECT, "compile_commands.json.in")) as f:
        text = f.read().replace("@DIR@", out).replace("@STUBS@", STUBS)
    with open(os.path.join(build, "compile_commands.json"), "w") as f:
        f.write(text)
    return build


def cpu_of(cmd, env=None):
    """CPU seconds (user + system) of cmd and its descendants, and its stderr."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    proc = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                          env=env)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        sys.stderr.write(proc.stderr)
        raise SystemExit("failed: %s" % " ".join(cmd))
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), proc.stderr


def findings(stderr):
    m = re.search(r"meshguard-run: (\d+) findings?", stderr)
    return int(m.group(1)) if m else -1


def db_size(build):
    d = os.path.join(build, "meshguard-summaries")
    return sum(os.path.getsize(os.path.join(d, f)) for f in os.listdir(d) if f.endswith(".json"))


def measure(name, build, run, repeat, jobs):
    base = [sys.executable, run, "-p", build, "-j", str(jobs), "-q",
            "-config={}", "-checks=-*,dtensor-*"]
    db = os.path.join(build, "meshguard-summaries")
    times = {"check": [], "both": [], "reuse": []}
    found = {}
    size = again = 0
    for _ in range(repeat):
        shutil.rmtree(db, ignore_errors=True)
        t, err = cpu_of(base + ["--no-summaries"])
        times["check"].append(t)
        found["check"] = findings(err)
        shutil.rmtree(db, ignore_errors=True)
        t, err = cpu_of(base)
        times["both"].append(t)
        found["both"] = findings(err)
        m = re.search(r"(\d+) run again", err)
        again = int(m.group(1)) if m else -1
        size = db_size(build)
        t, err = cpu_of(base)
        times["reuse"].append(t)
        found["reuse"] = findings(err)
        if not re.search(r"summaries: 0 files written.*, 0 run again", err):
            raise SystemExit("the second run did not reuse the database:\n" + err)
    med = {k: statistics.median(v) for k, v in times.items()}
    print("%s: check pass alone %.2f s CPU (%d findings); summary + check %.2f s (%d findings); "
          "reused database + check %.2f s" % (name, med["check"], found["check"], med["both"],
                                              found["both"], med["reuse"]))
    print("%s: ratio (summary + check) / check = %.2f; (reused + check) / check = %.2f; "
          "database %d bytes; %d file(s) run again from empty" % (
              name, med["both"] / med["check"], med["reuse"] / med["check"], size, again))
    return med["both"] / med["check"], size


def export_cost(build, tidy, files, repeat):
    """CPU of check runs with and without the export, same database."""
    with open(os.path.join(build, "compile_commands.json")) as f:
        paths = [e["file"] for e in json.load(f)][:files]
    db = os.path.join(build, "meshguard-summaries")
    cmd = [tidy, "-p", build, "-config={}", "-checks=-*,dtensor-*"]
    plain = dict(os.environ, MESHGUARD_SUMMARY_DATABASE=db)
    plain.pop("MESHGUARD_SUMMARY_EXPORT", None)
    export = dict(plain, MESHGUARD_SUMMARY_EXPORT=db)
    for path in paths:  # the database every run reads
        cpu_of(cmd + [path], export)
    ratios = []
    for r in range(repeat):
        without = with_ = 0.0
        for path in paths:
            without += cpu_of(cmd + [path], plain)[0]
            with_ += cpu_of(cmd + [path], export)[0]
        ratios.append(with_ / without)
        print("round %d: %d files, without export %.2f s CPU, with %.2f s, ratio %.3f"
              % (r + 1, len(paths), without, with_, with_ / without))
    print("export cost: median ratio with/without %.3f over %d rounds"
          % (statistics.median(ratios), repeat))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", required=True, help="meshguard's build directory (bin/meshguard-run)")
    ap.add_argument("--files", type=int, default=50)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("-j", type=int, default=2)
    ap.add_argument("--export-cost", action="store_true",
                    help="the cost of a check run's export instead (see above)")
    args = ap.parse_args()
    run = os.path.join(os.path.abspath(args.build), "bin", "meshguard-run")
    tmp = tempfile.mkdtemp(prefix="meshguard-wp-bench.")
    if args.export_cost:
        try:
            export_cost(generate(os.path.join(tmp, "gen"), args.files),
                        os.path.join(os.path.abspath(args.build), "bin", "meshguard-tidy"),
                        args.files, args.repeat)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        return
    try:
        measure("test project (2 files)", copy_test_project(os.path.join(tmp, "test")), run,
                args.repeat, args.j)
        ratio, size = measure("generated (%d files)" % args.files,
                              generate(os.path.join(tmp, "gen"), args.files), run, args.repeat, args.j)
        ok = ratio <= 1.3 and size < 1_000_000
        print("targets (ratio <= 1.3, database < 1 MB): %s" % ("met" if ok else "NOT met"))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
