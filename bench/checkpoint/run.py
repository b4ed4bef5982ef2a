"""The checkpoint benchmark: meshguard's checkpoint::save/load against
PyTorch's dcp.save/dcp.load of the same state dict on the same ranks, and
against the disk (the same bytes written and read sequentially), and the
blocking part of an asynchronous save against a synchronous one, measured
in the same run; prints ratios (these machines are shared and noisy, so
only ratios from one run mean anything). docs/runtime/checkpoint.md has the
figures.

usage: run.py --bench build/bin/meshguard_checkpoint_bench [--nproc 2]
              [--tensors 8] [--rows 4096] [--repeats 3]
"""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def launch(nproc, program):
    launcher = os.path.join(ROOT, "scripts", "meshguard-launch")
    env = dict(os.environ, OMP_NUM_THREADS="1", PYTHONWARNINGS="ignore")
    p = subprocess.run([sys.executable, launcher, "--nproc", str(nproc), "--timeout", "600", "--"] + program,
                       capture_output=True, text=True, env=env)
    if p.returncode != 0:
        sys.exit((p.stdout + p.stderr)[-4000:])
    out = {}
    for line in (p.stdout + p.stderr).splitlines():
        words = line.split()
        if words[:1] and words[0].startswith("[rank"):  # the launcher's prefix
            words = words[2:]
        if words[:1] and words[0] in ("meshguard", "pytorch", "disk"):
            out[words[0]] = [float(x) for x in words[2::2]]
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bench", required=True)
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("--nproc", type=int, default=2)
    ap.add_argument("--tensors", type=int, default=8)
    ap.add_argument("--rows", type=int, default=4096)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    work = tempfile.mkdtemp(prefix="meshguard-ckpt-bench-")
    sizes = [str(args.tensors), str(args.rows), str(args.repeats)]
    try:
        pt = launch(args.nproc, [args.python, os.path.join(HERE, "pytorch_side.py"), os.path.join(work, "pt")] + sizes)
        mg = launch(args.nproc, [args.bench, os.path.join(work, "mg")] + sizes)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    mb = args.tensors * args.rows * 1024 * 4 / 1e6
    (mg_save, mg_load, mg_block, mg_total), (pt_save, pt_load, pt_block, pt_total) = mg["meshguard"], pt["pytorch"]
    disk_write, disk_read = pt["disk"]
    print("checkpoint benchmark: %d ranks, %d tensors of %d x 1024 float32 (%.0f MB), best of %d" % (
        args.nproc, args.tensors, args.rows, mb, args.repeats))
    print("| | meshguard | PyTorch dcp | disk (sequential) | meshguard / PyTorch | meshguard / disk |")
    print("|---|---|---|---|---|---|")
    print("| save | %.3f s | %.3f s | %.3f s | %.2f | %.2f |" % (mg_save, pt_save, disk_write, mg_save / pt_save,
                                                              mg_save / disk_write))
    print("| load | %.3f s | %.3f s | %.3f s | %.2f | %.2f |" % (mg_load, pt_load, disk_read, mg_load / pt_load,
                                                              mg_load / disk_read))
    print("| async save, blocking | %.3f s | %.3f s | | %.2f | |" % (mg_block, pt_block, mg_block / pt_block))
    print("| async save, until done | %.3f s | %.3f s | | %.2f | |" % (mg_total, pt_total, mg_total / pt_total))
    print("async save: blocking part %.1f%% of meshguard's synchronous save (PyTorch's: %.1f%% of dcp.save)" % (
        100 * mg_block / mg_save, 100 * pt_block / pt_save))


if __name__ == "__main__":
    main()
