#!/usr/bin/env python3
"""meshguard against PyTorch's own DTensor, measured side by side on this
machine: every figure is a ratio of two runs made in the same invocation,
meshguard's and PyTorch's launched alternately round by round.

  run.py --bin BUILD/bin [--rounds R] [--quick] [--report FILE]

1. Per-op overhead (op_overhead.cpp / op_overhead.py): a DTensor op's time
   minus the same op's on the local tensors, 2 ranks, no communication;
   ratio = PyTorch's overhead / meshguard's (goal: at least 50).
2. Training steps (test/conformance/training, bench sizes): ms per step of
   TP, FSDP and FSDP x TP, meshguard / PyTorch (goal: at most 1).
3. Debug modes (meshguard_debug_bench --json / debug_overhead.py): what
   meshguard's collective-consistency mode adds per collective against what
   TORCH_DISTRIBUTED_DEBUG=DETAIL adds (goal: no more).
Prints "SKIPPED: ..." and exits 0 when this python has no torch >= 2.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

def load(name, path):
    import importlib.util
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# The conformance driver (probe_torch) and the training side by side (timing).
conformance = load("conformance_run", os.path.join(ROOT, "test", "conformance", "run.py"))
training_run = load("training_run", os.path.join(ROOT, "test", "conformance", "training", "run.py"))


def launch_json(args, nproc, program):
    """Rank 0's JSON lines of one launch."""
    cmd = [sys.executable, args.launcher, "--nproc", str(nproc), "--no-prefix", "--timeout", "600", "--"] + program
    env = dict(os.environ, OMP_NUM_THREADS="1", PYTHONWARNINGS="ignore")
    p = subprocess.run(cmd, capture_output=True, text=True, env=env)
    rows = [json.loads(line) for line in p.stdout.splitlines() if line.startswith("{")]
    if p.returncode != 0 or not rows:
        raise SystemExit("%s failed (exit %d):\n%s" % (" ".join(program), p.returncode, (p.stdout + p.stderr)[-3000:]))
    return rows


def alternate(args, programs):
    """Each side's runs, launched alternately args.rounds times."""
    runs = {side: [] for side in programs}
    for _ in range(args.rounds):
        for side, program in programs.items():
            runs[side].append(launch_json(args, 2, program))
    return runs


def op_overhead(args):
    iters_mg, iters_pt = (500, 50) if args.quick else (4000, 400)
    runs = alternate(args, {
        "meshguard": [os.path.join(args.bin, "meshguard_op_overhead"), str(iters_mg)],
        "pytorch": [sys.executable, os.path.join(HERE, "op_overhead.py"), str(iters_pt)],
    })
    rows = []
    names = [r["name"] for r in runs["meshguard"][0][0]["rows"]]
    for i, name in enumerate(names):
        cell = {}
        for side in runs:
            d = statistics.median(run[0]["rows"][i]["dtensor_ns"] for run in runs[side])
            l = statistics.median(run[0]["rows"][i]["local_ns"] for run in runs[side])
            cell[side] = (d, l, d - l)
        ratio = cell["pytorch"][2] / max(cell["meshguard"][2], 1.0)
        rows.append((name, cell["meshguard"], cell["pytorch"], ratio))
        print("%-18s meshguard +%8.0f ns  pytorch +%9.0f ns  ratio %6.1f" % (name, cell["meshguard"][2],
                                                                           cell["pytorch"][2], ratio))
    return rows


def training(args):
    targs = argparse.Namespace(training=os.path.join(args.bin, "meshguard_training"), launcher=args.launcher,
                               configs=training_run.CONFIGS, steps=12 if args.quick else 30, rounds=args.rounds,
                               timeout=600)
    return training_run.timing(targs, args.work)


def debug_modes(args):
    max_bytes = 1024 if args.quick else 1 << 20
    runs = alternate(args, {
        "meshguard": [os.path.join(args.bin, "meshguard_debug_bench"), "--json", str(max_bytes)]
                     + (["--quick"] if args.quick else []),
        "pytorch": [sys.executable, os.path.join(HERE, "debug_overhead.py"), str(max_bytes)],
    })
    rows = []
    for i, first in enumerate(runs["meshguard"][0]):
        cell = {}
        for side in runs:
            off = statistics.median(run[i]["default_us"] for run in runs[side])
            on = statistics.median(run[i]["debug_us"] for run in runs[side])
            cell[side] = (off, on, on - off)
        rows.append((first["bytes"], first["op"], cell["meshguard"], cell["pytorch"]))
        print("%8d B %-11s meshguard +%7.1f us  DETAIL +%7.1f us" % (first["bytes"], first["op"],
                                                                   cell["meshguard"][2], cell["pytorch"][2]))
    return rows


def write_report(path, version, args, ops, steps, debug):
    with open(path, "w") as f:
        f.write("Measured by `bench/side_by_side/run.py` (%d rounds, meshguard and PyTorch %s launched "
                "alternately), 2 ranks on Gloo over loopback, 1 thread per rank.\n\n" % (args.rounds, version))
        f.write("### Per-op overhead over the local op, `[64, 64]` float, ns per call\n\n"
                "| op | meshguard DTensor | local | overhead | PyTorch DTensor | local | overhead | "
                "PyTorch / meshguard overhead |\n|---|---:|---:|---:|---:|---:|---:|---:|\n")
        for name, mg, pt, ratio in ops:
            f.write("| %s | %.0f | %.0f | %.0f | %.0f | %.0f | %.0f | %.1f |\n" % ((name,) + mg + pt + (ratio,)))
        f.write("\n### Training steps (the bench sizes of test/conformance/training/models.py), ms per step\n\n"
                "| model : parallelism | meshguard | PyTorch | meshguard / PyTorch |\n|---|---:|---:|---:|\n")
        for config, mg, pt, ratio in steps:
            f.write("| %s | %.2f | %.2f | %.3f |\n" % (config, mg, pt, ratio))
        f.write("\n### Debug modes: what each adds per collective, us\n\n"
                "| size | op | meshguard off | on | adds | PyTorch OFF | DETAIL | adds |\n"
                "|---:|---|---:|---:|---:|---:|---:|---:|\n")
        for size, op, mg, pt in debug:
            f.write("| %d B | %s | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f |\n" % ((size, op) + mg + pt))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", required=True, help="the build's bin folder")
    ap.add_argument("--launcher", default=os.path.join(ROOT, "scripts", "meshguard-launch"))
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--quick", action="store_true", help="fewer iterations and sizes (a smoke run)")
    ap.add_argument("--only", choices=["ops", "training", "debug"], help="one part only")
    ap.add_argument("--work", default=None, help="data files (default: a temporary folder)")
    ap.add_argument("--report", help="write the figures as markdown to this file")
    args = ap.parse_args()
    version, why = conformance.probe_torch()
    if version is None:
        print("SKIPPED: " + why)
        return 0
    if args.work is None:
        import tempfile
        args.work = tempfile.mkdtemp(prefix="meshguard-side-by-side-")
    os.makedirs(args.work, exist_ok=True)
    ops = op_overhead(args) if args.only in (None, "ops") else []
    steps = training(args) if args.only in (None, "training") else []
    debug = debug_modes(args) if args.only in (None, "debug") else []
    if args.report:
        write_report(args.report, version, args, ops, steps, debug)
    return 0


if __name__ == "__main__":
    sys.exit(main())
