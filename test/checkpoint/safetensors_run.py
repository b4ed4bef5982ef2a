"""The safetensors checkpoint tests across PyTorch and meshguard (ctest
runtime.checkpoint.Safetensors): PyTorch 2.x saves with
HuggingFaceStorageWriter(save_distributed=True) on 2 ranks, one file per
rank and consolidated; meshguard saves the per-rank layout on 3 ranks
(Safetensors.SavesWhatPyTorchLoads), which PyTorch's
HuggingFaceStorageReader loads on 2 and 4 ranks; meshguard's rank tests
load all three on 3 and 4 ranks (1-D and 2x2). meshguard-checkpoint:
info/verify on PyTorch's files, and convert dcp -> safetensors -> dcp and
per-rank safetensors -> dcp, each result loaded by PyTorch's matching
reader; a DCP checkpoint's objects refused into safetensors and kept into
dcp. Every value is compared exactly with the saving side's.

usage: safetensors_run.py --python PY --launcher meshguard-launch --rank-tests BIN --tool meshguard-checkpoint
Prints SKIPPED when PY has no torch with HuggingFaceStorageReader.
"""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def run(cmd, env=None, timeout=240):
    p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=timeout)
    return p.returncode, (p.stdout + p.stderr)


class Driver:
    def __init__(self, args, work):
        self.args = args
        self.work = work
        self.env = dict(os.environ, OMP_NUM_THREADS="1", PYTHONWARNINGS="ignore",
                        MESHGUARD_SAFETENSORS_DIR=work)
        self.failed = []

    def path(self, name):
        return os.path.join(self.work, name)

    def launch(self, nproc, cmd, env=None):
        return run([sys.executable, self.args.launcher, "--nproc", str(nproc), "--timeout", "180", "--"] + cmd,
                   env or self.env)

    def step(self, what, ok, out):
        print("%s: %s" % (what, "ok" if ok else "FAILED"))
        if not ok:
            print(out[-5000:])
            self.failed.append(what)
        return ok

    def pytorch_save(self, name, mode):
        code, out = self.launch(2, [self.args.python, os.path.join(HERE, "pytorch_hf_save.py"), self.path(name), mode])
        return self.step("PyTorch saves %s on 2 ranks" % mode, code == 0, out)

    def pytorch_load(self, nproc, triples):
        cmd = [self.args.python, os.path.join(HERE, "pytorch_hf_load.py")]
        for t in triples:
            cmd += list(t)
        code, out = self.launch(nproc, cmd)
        return self.step("PyTorch loads %s on %d ranks" % (", ".join(os.path.basename(t[0]) for t in triples), nproc),
                         code == 0 and out.count("every value equal") == nproc * len(triples), out)

    def tool(self, *argv):
        return run([self.args.tool] + list(argv))

    def check_tool(self):
        code, out = self.tool("info", self.path("distributed"))
        self.step("meshguard-checkpoint info", code == 0 and "w  Float [5, 3], 2 chunk(s)" in out
                  and "shard-00002-model-00001-of-00001.safetensors bytes" in out, out)
        for name in ("distributed", "consolidated"):
            code, out = self.tool("verify", self.path(name))
            self.step("meshguard-checkpoint verify %s" % name, code == 0 and "all readable" in out, out)
        conversions = [("dcp", "conv_st", "safetensors"), ("conv_st", "conv_dcp", "dcp"),
                       ("distributed", "dist_dcp", "dcp")]
        for src, dst, fmt in conversions:
            code, out = self.tool("convert", self.path(src), self.path(dst), "--format", fmt)
            self.step("convert %s -> %s (%s)" % (src, dst, fmt),
                      code == 0 and "convert: [" in out and " -> " in out, out)
        code, out = self.tool("convert", self.path("dcp"), self.path("conv_st"), "--format", "safetensors")
        self.step("convert refuses a non-empty DST", code == 1 and "is not empty: --force" in out, out)
        code, out = self.tool("convert", self.path("dcp"), self.path("conv_st"), "--format", "safetensors", "--force")
        self.step("convert --force replaces it", code == 0 and sorted(os.listdir(self.path("conv_st"))) == [
            "model-00001-of-00001.safetensors", "model.safetensors.index.json"], out)
        shutil.copy(self.path("dcp.expected.pt"), self.path("conv_st.expected.pt"))

    def check_objects(self):
        """A DCP checkpoint with non-tensor entries (test/checkpoint/
        pytorch_save.py's): convert to safetensors refuses it, naming one;
        convert to dcp keeps them, which dcp.load's reader must parse."""
        code, out = self.launch(2, [self.args.python, os.path.join(HERE, "pytorch_save.py"), self.path("objs")])
        if not self.step("PyTorch saves a DCP checkpoint with objects", code == 0, out):
            return
        code, out = self.tool("convert", self.path("objs"), self.path("objs_st"), "--format", "safetensors")
        self.step("convert refuses objects into safetensors",
                  code == 1 and "non-tensor entry '" in out and "is not representable" in out
                  and not os.path.exists(self.path("objs_st"))
                  and not any(f.startswith("objs_st.") for f in os.listdir(self.work)), out)
        code, out = self.tool("convert", self.path("objs"), self.path("objs_dcp"), "--format", "dcp")
        ok = code == 0
        if ok:
            code, out = self.tool("info", self.path("objs_dcp"))
            ok = code == 0 and "step  object:" in out and "name  object:" in out
        if ok:
            code, out = run([self.args.python, "-c",
                             "import sys, torch.distributed.checkpoint as dcp\n"
                             "sd = {'step': 0, 'name': ''}\n"
                             "dcp.load(sd, checkpoint_id=sys.argv[1], no_dist=True)\n"
                             "assert sd == {'step': 7, 'name': 'adam'}, sd\n"
                             "print('objects equal')", self.path("objs_dcp")], self.env)
            ok = code == 0 and "objects equal" in out
        self.step("convert keeps objects into dcp (dcp.load reads them)", ok, out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--python", required=True)
    ap.add_argument("--launcher", required=True)
    ap.add_argument("--rank-tests", required=True)
    ap.add_argument("--tool", required=True, help="meshguard-checkpoint")
    args = ap.parse_args()
    code, out = run([args.python, "-c", "from torch.distributed.checkpoint import HuggingFaceStorageReader; "
                     "import safetensors, torch.distributed.tensor"])
    if code != 0:
        print("SKIPPED: %s has no HuggingFaceStorageReader or safetensors (scripts/torch-venv.sh installs it)"
              % args.python)
        return 0
    work = tempfile.mkdtemp(prefix="meshguard-safetensors-")
    start = time.time()
    d = Driver(args, work)
    try:
        for name in ("distributed", "consolidated", "dcp"):
            if not d.pytorch_save(name, name):
                return 1
        code, out = d.launch(3, [args.rank_tests, "--gtest_filter=Safetensors.SavesWhatPyTorchLoads"],
                             dict(d.env, MESHGUARD_SAFETENSORS_SAVE="1"))
        if not d.step("meshguard saves safetensors on 3 ranks",
                      code == 0 and out.count("[  PASSED  ] 1 test") == 3, out):
            return 1
        d.check_tool()
        d.check_objects()
        p = d.path
        d.pytorch_load(2, [(p("meshguard"), p("meshguard.expected.pt"), "safetensors"),
                           (p("conv_st"), p("dcp.expected.pt"), "safetensors"),
                           (p("conv_dcp"), p("dcp.expected.pt"), "dcp"),
                           (p("dist_dcp"), p("distributed.expected.pt"), "dcp")])
        for nproc in (3, 4):
            d.pytorch_load(nproc, [(p("meshguard"), p("meshguard.expected.pt"), "safetensors")])
        for nproc in (3, 4):
            code, out = d.launch(nproc, [args.rank_tests,
                                         "--gtest_filter=Safetensors.LoadsWhat*:Safetensors.Damaged*"])
            d.step("meshguard loads PyTorch's and its own on %d ranks" % nproc,
                   code == 0 and out.count("[  PASSED  ] 2 tests") == nproc and "SKIPPED" not in out, out)
        print("safetensors: %d steps failed (%.0f s)" % (len(d.failed), time.time() - start))
        return 1 if d.failed else 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
