#!/usr/bin/env python3
"""Differential test: meshguard's error messages against PyTorch's, word for word.

Runs pytorch_messages.py (PyTorch's Python DTensor on Gloo) and
message_oracle (meshguard's runtime) on 2 ranks each with
scripts/meshguard-launch, and compares the first line of each message for
the same mistake. Exits 1 on any difference, printing both lines; prints
"SKIPPED: ..." and exits 0 when the given python has no torch>=2 with
torch.distributed.tensor and Gloo.

usage: compare_messages.py --python PY --launcher scripts/meshguard-launch --oracle build/.../message_oracle
"""

import argparse
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
NPROC = 2
TIMEOUT_S = 120  # per side; the launcher kills every rank after it

# PyTorch case -> the meshguard cases that must print the same first line.
CASES = {
    "no_mesh": ["no_mesh.empty", "no_mesh.plain"],
    "mixed.op": ["mixed.op"],
    "mixed.collective": ["mixed.collective"],
}

LINE = re.compile(r"^(ORACLE|NOTE) rank=(\d+) case=(\S+) line=(.*)$")

PROBE = r"""
import sys
import torch, torch.distributed as dist
major = int(torch.__version__.split(".")[0])
if major < 2:
    sys.exit("torch %s is older than 2" % torch.__version__)
if not dist.is_available() or not dist.is_gloo_available():
    sys.exit("torch %s has no torch.distributed with Gloo" % torch.__version__)
import torch.distributed.tensor
from torch.distributed.tensor import DTensor
print(torch.__version__)
"""


def torch_version(python):
    try:
        p = subprocess.run([python, "-c", PROBE], capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as e:
        return None, str(e)
    if p.returncode != 0:
        return None, (p.stderr.strip().splitlines() or ["exit %d" % p.returncode])[-1]
    return p.stdout.strip(), None


def run_side(name, launcher, program):
    cmd = [sys.executable, launcher, "--nproc", str(NPROC), "--timeout", str(TIMEOUT_S), "--no-prefix", "--"] + program
    env = dict(os.environ, OMP_NUM_THREADS="1", PYTHONWARNINGS="ignore")
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=TIMEOUT_S + 60, env=env)
    except subprocess.TimeoutExpired as e:
        print(f"FAIL: the {name} side did not finish within {TIMEOUT_S + 60} s: {' '.join(cmd)}")
        print(e.stdout or "", e.stderr or "")
        sys.exit(1)
    lines, notes = {}, []
    for raw in p.stdout.splitlines():
        m = LINE.match(raw.strip())
        if not m:
            continue
        kind, rank, case, text = m.group(1), int(m.group(2)), m.group(3), m.group(4)
        if kind == "NOTE":
            if rank == 0:
                notes.append(f"{case}: {text}")
        else:
            lines.setdefault(case, {})[rank] = text
    if p.returncode != 0:
        print(f"FAIL: the {name} side exited {p.returncode}: {' '.join(cmd)}")
        print(p.stdout[-4000:])
        print(p.stderr[-4000:])
        sys.exit(1)
    return lines, notes


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--python", required=True, help="python with torch>=2 and torch.distributed.tensor")
    ap.add_argument("--launcher", required=True, help="scripts/meshguard-launch")
    ap.add_argument("--oracle", required=True, help="the message_oracle program")
    args = ap.parse_args()

    version, why = torch_version(args.python)
    if version is None:
        print(f"SKIPPED: no python with torch>=2 and torch.distributed.tensor at {args.python} ({why}); "
              "set MESHGUARD_TORCH_PYTHON")
        return 0
    print(f"PyTorch {version} ({args.python}) against meshguard ({args.oracle}), {NPROC} Gloo ranks each")

    torch_lines, notes = run_side("PyTorch", args.launcher, [args.python, os.path.join(HERE, "pytorch_messages.py")])
    mg_lines, _ = run_side("meshguard", args.launcher, [args.oracle])

    failures = 0
    for torch_case, mg_cases in CASES.items():
        expected = torch_lines.get(torch_case, {})
        if sorted(expected) != list(range(NPROC)) or len(set(expected.values())) != 1:
            print(f"FAIL {torch_case}: PyTorch did not print one line on every rank: {expected}")
            failures += 1
            continue
        want = expected[0]
        for mg_case in mg_cases:
            got = mg_lines.get(mg_case, {})
            bad = [r for r in range(NPROC) if got.get(r) != want]
            if bad:
                failures += 1
                print(f"FAIL {mg_case} (PyTorch case {torch_case}):")
                print(f"  PyTorch   : {want}")
                for r in range(NPROC):
                    print(f"  meshguard rank {r}: {got.get(r, '<no line>')}")
            else:
                print(f"ok   {mg_case}:")
                print(f"  PyTorch   : {want}")
                print(f"  meshguard : {got[0]}")
    for note in notes:
        print(f"note (PyTorch {version}, not compared) {note}")
    if failures:
        print(f"{failures} message(s) differ from PyTorch {version}")
        return 1
    print(f"messages match PyTorch {version} word for word")
    return 0


if __name__ == "__main__":
    sys.exit(main())
