"""The checkpoint tests across PyTorch and meshguard (ctest
runtime.checkpoint.BothWays): PyTorch 2.x saves DCP checkpoints on 2 ranks
(1-D mesh) and 4 ranks (2x2); meshguard saves one on 3 ranks
(Checkpoint.SavesWhatPyTorchLoads), which PyTorch's dcp.load reads on 2, 3
and 4 ranks (pytorch_load.py); then meshguard's rank tests load all three on 1,
3 and 4 ranks into other placements. Every value is compared with the
saving side's full tensors. Adam's state crosses both ways too: PyTorch's
resumed by meshguard on 3 ranks, meshguard's by PyTorch on 2 and 4
(pytorch_optim.py, CheckpointState.ResumesPyTorchsAdam).

usage: run.py --python PY --launcher meshguard-launch --rank-tests BIN
Prints SKIPPED when PY has no torch 2.x with torch.distributed.checkpoint.
"""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def run(cmd, env=None, timeout=300):
    p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=timeout)
    return p.returncode, (p.stdout + p.stderr)


def check_tool(tool, work):
    """meshguard-checkpoint: info lists PyTorch's entries; verify passes the
    three checkpoints and fails, naming file and entry, on a cut copy; plan
    names each target rank's reads and what does not fit."""
    ok = True
    code, out = run([tool, "info", os.path.join(work, "one_d")])
    if code != 0 or "w  Float [5, 3], 2 chunk(s)" not in out or "step  object:" not in out:
        print(out[-3000:])
        print("FAILED: meshguard-checkpoint info")
        ok = False
    for name in ("one_d", "two_d", "meshguard"):
        code, out = run([tool, "verify", os.path.join(work, name)])
        if code != 0 or "all readable" not in out:
            print(out[-3000:])
            print("FAILED: meshguard-checkpoint verify %s" % name)
            ok = False
    cut = os.path.join(work, "cut")
    shutil.copytree(os.path.join(work, "meshguard"), cut)
    for f in os.listdir(cut):
        if f.endswith(".distcp"):
            path = os.path.join(cut, f)
            os.truncate(path, os.path.getsize(path) - 1)
    code, out = run([tool, "verify", cut])
    if code != 1 or ".distcp: truncated: entry '" not in out:
        print(out[-3000:])
        print("FAILED: meshguard-checkpoint verify of a cut checkpoint (exit %d)" % code)
        ok = False
    # plan: PyTorch wrote w (5 x 3) as rows 0-2 and 3-4 on 2 ranks; rank 2
    # of 3 (rows 4-4) reads only the second rank's chunk.
    code, out = run([tool, "plan", os.path.join(work, "one_d"), "--mesh", "3", "--placements", "S(0)"])
    rank2 = out[out.find("rank 2 at [2]"):]
    if code != 0 or "w [Shard(dim=0)]: block [4, 0]..[5, 3]\n    __1_" not in rank2:
        print(out[-3000:])
        print("FAILED: meshguard-checkpoint plan on 3 ranks")
        ok = False
    code, out = run([tool, "plan", os.path.join(work, "one_d"), "--mesh", "2x2", "--entry", "w=S(0),S(1)",
                     "--shape", "w=4x3", "--entry", "nope=R,R"])
    if code != 1 or "has shape [5, 3] in the checkpoint, the job expects [4, 3]" not in out or \
            "entry 'nope' is not in the checkpoint" not in out:
        print(out[-3000:])
        print("FAILED: meshguard-checkpoint plan of what does not fit (exit %d)" % code)
        ok = False
    print("meshguard-checkpoint info/verify/plan: %s" % ("ok" if ok else "FAILED"))
    return ok


def check_adam(args, work, env):
    """Adam's state: PyTorch saves after 2 steps on 2 ranks; meshguard
    resumes it on 3 (step 3 as PyTorch's) and saves; PyTorch resumes that
    on 2 and 4 (step 4 as its own)."""
    script = os.path.join(HERE, "pytorch_optim.py")
    code, out = run([sys.executable, args.launcher, "--nproc", "2", "--timeout", "240", "--",
                     args.python, script, "save", work], env)
    if code != 0:
        print(out[-4000:])
        print("FAILED: PyTorch's Adam state saved on 2 ranks")
        return False
    code, out = run([sys.executable, args.launcher, "--nproc", "3", "--timeout", "240", "--",
                     args.rank_tests, "--gtest_filter=CheckpointState.ResumesPyTorchsAdam"], env)
    ok = code == 0 and out.count("[  PASSED  ] 1 test") == 3 and "SKIPPED" not in out
    print("meshguard resumes PyTorch's Adam on 3 ranks: %s" % ("ok" if ok else "FAILED"))
    if not ok:
        print(out[-6000:])
        return False
    for nproc in (2, 4):
        code, out = run([sys.executable, args.launcher, "--nproc", str(nproc), "--timeout", "240", "--",
                         args.python, script, "resume", work], env)
        print("PyTorch resumes meshguard's Adam on %d ranks: %s" % (nproc, "ok" if code == 0 else "FAILED"))
        if code != 0:
            print(out[-4000:])
            return False
    return True


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--python", required=True)
    ap.add_argument("--launcher", required=True)
    ap.add_argument("--rank-tests", required=True)
    ap.add_argument("--tool", required=True, help="meshguard-checkpoint")
    args = ap.parse_args()
    code, out = run([args.python, "-c", "import torch.distributed.checkpoint, torch.distributed.tensor"])
    if code != 0:
        print("SKIPPED: %s has no torch.distributed.checkpoint / DTensor" % args.python)
        return 0
    work = tempfile.mkdtemp(prefix="meshguard-checkpoint-")
    env = dict(os.environ, OMP_NUM_THREADS="1", PYTHONWARNINGS="ignore")
    try:
        for nproc, name in ((2, "one_d"), (4, "two_d")):
            code, out = run([sys.executable, args.launcher, "--nproc", str(nproc), "--timeout", "240", "--",
                             args.python, os.path.join(HERE, "pytorch_save.py"), os.path.join(work, name)], env)
            if code != 0:
                print(out[-4000:])
                print("FAILED: PyTorch's dcp.save on %d ranks" % nproc)
                return 1
        env["MESHGUARD_CHECKPOINT_DIR"] = work
        code, out = run([sys.executable, args.launcher, "--nproc", "3", "--timeout", "240", "--",
                         args.rank_tests, "--gtest_filter=Checkpoint.SavesWhatPyTorchLoads"],
                        dict(env, MESHGUARD_CHECKPOINT_SAVE="1"))
        if code != 0 or out.count("[  PASSED  ] 1 test") != 3:
            print(out[-6000:])
            print("FAILED: meshguard's checkpoint::save on 3 ranks")
            return 1
        for nproc in (2, 3, 4):
            code, out = run([sys.executable, args.launcher, "--nproc", str(nproc), "--timeout", "240", "--",
                             args.python, os.path.join(HERE, "pytorch_load.py"), os.path.join(work, "meshguard")], env)
            print("PyTorch loads meshguard's on %d ranks: %s" % (nproc, "ok" if code == 0 else "FAILED"))
            if code != 0:
                print(out[-4000:])
                return 1
        if not check_tool(args.tool, work):
            return 1
        if not check_adam(args, work, env):
            return 1
        failed = 0
        for nproc in (1, 3, 4):
            code, out = run([sys.executable, args.launcher, "--nproc", str(nproc), "--timeout", "240", "--",
                             args.rank_tests, "--gtest_filter=Checkpoint.LoadsWhat*:Checkpoint.Damaged*"], env)
            # Both tests ran on every rank (none skipped).
            ran = out.count("[  PASSED  ] 2 tests") == nproc and "SKIPPED" not in out
            print("meshguard loads on %d ranks: %s" % (nproc, "ok" if code == 0 and ran else "FAILED"))
            if code != 0 or not ran:
                print(out[-6000:])
                failed += 1
        print("checkpoint: %d of 3 rank counts passed" % (3 - failed))
        return 1 if failed else 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
