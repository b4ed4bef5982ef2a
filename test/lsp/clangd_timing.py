#!/usr/bin/env python3
"""Time from didOpen to the first publishDiagnostics: meshguard-clangd against
stock clangd-19 on the same file and settings, in one run, interleaved.

    clangd_timing.py --meshguard-clangd BIN --clangd BIN --stubs DIR
                     [--torch-include DIR ...] [--runs N]

Two files: the per-tool test input on the stub headers, and (with
--torch-include) a file that includes the real <torch/torch.h>. Each server
gets a fresh process per run; runs alternate between the servers so machine
noise hits both alike. Prints the medians of the wall time and of the
server's CPU time until the diagnostics (steadier on a busy machine), and how
much more (or less) ours takes.
"""
import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
CLIENT = os.path.join(HERE, "lsp_client.py")
STUB_INPUT = os.path.join(HERE, "..", "tools", "Inputs", "collective-without-mesh.cpp")
TORCH_INPUT = """#include <torch/torch.h>
#include <meshguard/meshguard.h>

void plainBroadcast() {
  at::Tensor T = torch::randn({4, 4});
  meshguard::dist::broadcast_({T}, /*src=*/0);
}
"""


def one(server, path, expect_ours):
    cmd = [sys.executable, CLIENT, "--timing", "--timeout", "300"]
    if not expect_ours:
        cmd.append("--expect-none")
    cmd += [path, "--", server, "--log=error", "-j=2"]
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    m = re.search(r"didOpen -> diagnostics: ([0-9.]+) s \(server CPU so far: ([0-9.]+) s\)",
                  proc.stderr)
    if proc.returncode != 0 or not m:
        raise SystemExit("clangd_timing: %s failed:\n%s" % (os.path.basename(server), proc.stderr))
    return float(m.group(1)), float(m.group(2))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--meshguard-clangd", required=True)
    ap.add_argument("--clangd", required=True)
    ap.add_argument("--stubs", required=True)
    ap.add_argument("--meshguard-include", help="the real meshguard headers (include/)")
    ap.add_argument("--torch-include", action="append", default=[],
                    help="libtorch include dirs beyond the default search path "
                         "(Debian: /usr/include/torch/csrc/api/include)")
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()

    work = tempfile.mkdtemp(prefix="clangd-timing.")
    cases = []
    stub_dir = os.path.join(work, "stubs")
    os.makedirs(stub_dir)
    shutil.copy(STUB_INPUT, os.path.join(stub_dir, "test.cpp"))
    with open(os.path.join(stub_dir, "compile_flags.txt"), "w") as f:
        f.write("-std=c++17\n-I%s\n" % os.path.abspath(args.stubs))
    cases.append(("stub headers", os.path.join(stub_dir, "test.cpp")))
    if args.torch_include:
        torch_dir = os.path.join(work, "torch")
        os.makedirs(torch_dir)
        with open(os.path.join(torch_dir, "test.cpp"), "w") as f:
            f.write(TORCH_INPUT)
        with open(os.path.join(torch_dir, "compile_flags.txt"), "w") as f:
            f.write("-std=c++17\n-DUSE_DISTRIBUTED\n-DUSE_C10D_GLOO\n")
            for inc in [args.meshguard_include] + args.torch_include:
                if inc:
                    f.write("-isystem\n%s\n" % os.path.abspath(inc))
        cases.append(("real <torch/torch.h>", os.path.join(torch_dir, "test.cpp")))
    for d in {os.path.dirname(p) for _, p in cases}:
        with open(os.path.join(d, ".clang-tidy"), "w") as f:
            f.write('Checks: "-*,dtensor-*"\n')
        with open(os.path.join(d, ".clangd"), "w") as f:
            f.write("Diagnostics:\n  ClangTidy:\n    Add: [dtensor-*]\n    FastCheckFilter: Loose\n")
    try:
        for name, path in cases:
            ours, stock = [], []
            for _ in range(args.runs):
                ours.append(one(args.meshguard_clangd, path, True))
                stock.append(one(args.clangd, path, False))
            for what, i in (("wall", 0), ("server CPU", 1)):
                mo = statistics.median(t[i] for t in ours)
                ms = statistics.median(t[i] for t in stock)
                print("%-22s %-10s meshguard-clangd %7.3f s  clangd-19 %7.3f s  (medians of %d)  "
                      "ours %+.1f%%" % (name, what, mo, ms, args.runs, (mo / ms - 1) * 100))
                print("%-33s ours:  %s" % ("", " ".join("%.3f" % t[i] for t in ours)))
                print("%-33s stock: %s" % ("", " ".join("%.3f" % t[i] for t in stock)))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
