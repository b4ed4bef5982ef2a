#!/usr/bin/env python3
"""The dtensor-* checks on real, public code that uses libtorch's c10d.

    bench/real_code.py BUILD_DIR [--jobs N] [--verbose] [--only PATTERN]
                       [--json FILE]

Every .cpp/.cc file under CORPUS/<project>/ (the files as fetched,
bench/real-code/SOURCES.md says from where) is checked once with
`BUILD_DIR/bin/meshguard-tidy --checks=-*,dtensor-*` against the real
libtorch headers of the PyTorch wheel in .venv (the ones the runtime builds
with), plus the include folders its project needs (PROJECTS below). A file
that does not compile is an error of this script that names it, never a
silent skip.

Prints each file's findings (check, line, message), the totals per check,
and compares them with the triage recorded in bench/real-code/triage.json
(the list docs/checks/real-code-corpus.md explains): one entry per finding,
{file, line, check, verdict: true|false, cause}. Exits 1 when a finding is
not in the triage (new) or a triaged one is no longer reported (gone), or
when a file does not compile. With --only, only the files whose path
(relative to CORPUS) matches the regular expression run, and only
their triage entries are compared.

The corpus itself is not in the repository: fetched code is kept out of
meshguard's commits. CORPUS is --corpus, else $MESHGUARD_REAL_CODE_CORPUS,
else ../real-code-corpus beside the checkout; SOURCES.md names every file
(repository, commit, path, license), so it can be put together again.

Before the corpus, a control probe (a c10d allreduce under
`getRank() == 0`, written here, compiled with the same libtorch flags) must
be reported by dtensor-rank-divergent-collective, or the run fails: a
silent corpus then means silent checks, not checks that matched nothing.

Parsing libtorch's headers takes ~20-40 s a file: use --jobs 1 or 2 on a
shared machine.
"""
import argparse
import concurrent.futures
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, ".."))
CORPUS = os.environ.get("MESHGUARD_REAL_CODE_CORPUS",
                        os.path.join(ROOT, "..", "real-code-corpus"))
TRIAGE = os.path.join(HERE, "real-code", "triage.json")

# The defines the runtime compiles with against the wheel (build/
# compile_commands.json: lib/runtime's files), so that the c10d headers show
# their Gloo and RPC parts.
TORCH_DEFINES = ["-DUSE_C10D_GLOO", "-DUSE_DISTRIBUTED", "-DUSE_RPC",
                 "-DUSE_TENSORPIPE"]

# Per project: include folders relative to its folder (its own headers, kept
# beside the files), system include folders, extra flags.
PROJECTS = {
    "pytorch": {
        # The test helpers are included as "TestUtils.hpp", "support.h",
        # <test/cpp/...>; the sources include their own headers from the
        # wheel (torch/csrc/distributed/...).
        "includes": [".", "test/cpp/c10d", "test/cpp/api", "test/cpp/rpc"],
        # PyTorch's build also has torch/csrc on the path (Work.cpp includes
        # <distributed/c10d/ProcessGroup.hpp>).
        "system": ["{torch}/torch/csrc"],
        "flags": [],
    },
    # meta-pytorch/torchcomms: includes its headers as "comms/torchcomms/...";
    # C++20, as its CMakeLists.txt builds it (cxx_std_20).
    "torchcomms": {
        "includes": ["."],
        "system": [],
        "flags": ["-std=c++20"],
    },
    # sgl-kernel's CPU all-reduce: a torch extension (pybind11, Python.h).
    "sglang": {
        "includes": [],
        "system": [sysconfig.get_paths()["include"]],
        "flags": ["-DTORCH_EXTENSION_NAME=sgl_kernel_cpu"],
    },
}


def torch_includes():
    found = sorted(glob.glob(os.path.join(
        ROOT, ".venv", "lib", "python3*", "site-packages", "torch", "include")))
    if not found:
        sys.exit("no PyTorch wheel in %s/.venv (scripts/torch-venv.sh makes it)"
                 % ROOT)
    inc = found[-1]
    return [inc, os.path.join(inc, "torch", "csrc", "api", "include")]


def corpus_files(only):
    files = []
    for project in sorted(os.listdir(CORPUS)):
        pdir = os.path.join(CORPUS, project)
        if not os.path.isdir(pdir):
            continue
        if project not in PROJECTS:
            sys.exit("%s has no entry in PROJECTS of %s"
                     % (project, os.path.basename(__file__)))
        for dirpath, _, names in os.walk(pdir):
            for name in sorted(names):
                if name.endswith((".cpp", ".cc")):
                    rel = os.path.relpath(os.path.join(dirpath, name), CORPUS)
                    if only is None or re.search(only, rel):
                        files.append(rel)
    return sorted(files)


def compile_flags(rel, torch_inc):
    project = rel.split(os.sep)[0]
    cfg = PROJECTS[project]
    pdir = os.path.join(CORPUS, project)
    std = [f for f in cfg["flags"] if f.startswith("-std=")] or ["-std=c++17"]
    flags = std + ["-D_GLIBCXX_USE_CXX11_ABI=1"] + TORCH_DEFINES
    inner = os.path.relpath(os.path.join(CORPUS, rel), pdir)
    flags += ["-I" + os.path.normpath(os.path.join(pdir, d))
              for d in cfg.get("file_includes", {}).get(inner, []) + cfg["includes"]]
    flags += ["-isystem" + d for d in torch_inc]
    flags += ["-isystem" + os.path.normpath(d.format(torch=torch_inc[0]))
              for d in cfg["system"]]
    return flags + [f for f in cfg["flags"] if not f.startswith("-std=")]


# A control run with the same flags: a collective under `getRank() == 0` must
# be reported, so that a silent corpus means silent checks, not checks that
# never matched c10d under these flags (or a meshguard-tidy that ran none).
PROBE = """\
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>

void probe(c10::intrusive_ptr<c10d::ProcessGroupGloo> pg, at::Tensor t) {
  std::vector<at::Tensor> tensors = {t};
  if (pg->getRank() == 0) {
    pg->allreduce(tensors)->wait(); // the finding
  }
}
"""
PROBE_LINE = 6
PROBE_CHECK = "dtensor-rank-divergent-collective"


DIAG = re.compile(r"^(?P<path>[^\n:]+):(?P<line>\d+):(?P<col>\d+): "
                  r"(?P<kind>warning|error): (?P<msg>.*?)(?: \[(?P<check>[\w.,-]+)\])?$",
                  re.M)


def enabled_checks(tidy):
    """The dtensor-* checks this meshguard-tidy has, for the totals."""
    out = subprocess.run([tidy, "--checks=-*,dtensor-*", "--list-checks"],
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         text=True).stdout
    return re.findall(r"^\s+(dtensor-[\w-]+)$", out, re.M)


def check_file(tidy, rel, torch_inc, path=None, flags=None):
    path = path or os.path.join(CORPUS, rel)
    cmd = [tidy, "--config={}", "--checks=-*,dtensor-*", path, "--"] + \
        (flags if flags is not None else compile_flags(rel, torch_inc))
    start = time.time()
    # A meshguard-tidy being relinked (a build beside this run) cannot be
    # started for a moment: wait for it rather than fail the file.
    for attempt in range(30):
        try:
            proc = subprocess.run(cmd, stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT, text=True)
            break
        except OSError:
            if attempt == 29:
                raise
            time.sleep(10)
    took = time.time() - start
    errors, findings = [], set()
    for m in DIAG.finditer(proc.stdout):
        if m.group("kind") == "error":
            errors.append(m.group(0))
            continue
        check = m.group("check") or ""
        if not check.startswith("dtensor-"):
            continue
        where = os.path.relpath(os.path.realpath(m.group("path")), CORPUS)
        if where.startswith(".."):
            where = m.group("path")  # a finding in a library header
        findings.add((where, int(m.group("line")), check, m.group("msg")))
    if proc.returncode not in (0, 1) and not errors:
        errors.append("meshguard-tidy exited %d:\n%s" %
                      (proc.returncode, proc.stdout[-2000:]))
    return rel, sorted(findings), errors, took, cmd


def main():
    global CORPUS
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("build_dir")
    ap.add_argument("--corpus", metavar="DIR",
                    help="the fetched files, one folder per project (default: %(default)s)",
                    default=CORPUS)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--verbose", action="store_true",
                    help="print each file's command and time")
    ap.add_argument("--only", metavar="PATTERN",
                    help="only the files whose path under bench/real-code matches")
    ap.add_argument("--json", metavar="FILE",
                    help="also write the findings as JSON (for updating the triage)")
    args = ap.parse_args()

    CORPUS = os.path.abspath(args.corpus)
    if not os.path.isdir(CORPUS):
        sys.exit("no corpus at %s: put the files bench/real-code/SOURCES.md lists there "
                 "(one folder per project), or pass --corpus DIR" % CORPUS)
    tidy = os.path.join(args.build_dir, "bin", "meshguard-tidy")
    if not os.path.exists(tidy):
        sys.exit("%s not found (ninja -C %s meshguard-tidy)" % (tidy, args.build_dir))
    torch_inc = torch_includes()
    # Debian's packages the corpus compiles with (scripts/bootstrap.sh installs
    # them): the PyTorch tests' gtest, the Gloo headers c10d's include.
    for header, package in (("gtest/gtest.h", "libgtest-dev"),
                            ("gloo/config.h", "libgloo-dev")):
        if not os.path.exists(os.path.join("/usr/include", header)):
            sys.exit("/usr/include/%s not found: install %s" % (header, package))
    files = corpus_files(args.only)
    if not files:
        sys.exit("no files selected")

    with open(TRIAGE) as f:
        triage = json.load(f)
    for t in triage:
        if t["verdict"] not in (True, False) or not t.get("cause"):
            sys.exit("triage entry without a verdict or a cause: %r" % t)

    start = time.time()
    results = {}
    probe_dir = tempfile.mkdtemp(prefix="real-code-probe-")
    probe_path = os.path.join(probe_dir, "probe.cpp")
    with open(probe_path, "w") as f:
        f.write(PROBE)
    probe_flags = ["-std=c++17", "-D_GLIBCXX_USE_CXX11_ABI=1"] + TORCH_DEFINES + \
        ["-isystem" + d for d in torch_inc]
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        probe = pool.submit(check_file, tidy, "probe.cpp", torch_inc,
                            probe_path, probe_flags)
        futures = [pool.submit(check_file, tidy, rel, torch_inc) for rel in files]
        for fut in concurrent.futures.as_completed(futures):
            rel, findings, errors, took, cmd = fut.result()
            results[rel] = (findings, errors, took, cmd)
            if args.verbose:
                print("[%5.1f s] %s: %d finding(s)%s" %
                      (took, rel, len(findings), ", DOES NOT COMPILE" if errors else ""),
                      flush=True)
    wall = time.time() - start
    _, probe_findings, probe_errors, _, _ = probe.result()
    shutil.rmtree(probe_dir)
    probe_ok = not probe_errors and any(
        line == PROBE_LINE and check == PROBE_CHECK
        for _, line, check, _ in probe_findings)
    if probe_ok:
        print("control probe: a collective under getRank() == 0 reported at "
              "line %d, as it must be" % PROBE_LINE)
    else:
        print("error: the control probe (a collective under getRank() == 0) was "
              "not reported at line %d with these flags: %s" %
              (PROBE_LINE, probe_errors[:3] or probe_findings))

    broken = [rel for rel in files if results[rel][1]]
    for rel in broken:
        print("error: %s does not compile:" % rel)
        for e in results[rel][1][:10]:
            print("  " + e)
        if args.verbose:
            print("  command: " + " ".join(results[rel][3]))

    print("== Findings per file")
    reported = {}
    for rel in files:
        findings = results[rel][0]
        if not findings:
            continue
        print(rel)
        for where, line, check, msg in findings:
            reported[(where, line, check)] = msg
            loc = "" if where == rel else where + ":"
            print("  %s%d: [%s] %s" % (loc, line, check, msg))
    silent = sum(1 for rel in files if not results[rel][0])
    print("%d file(s), %d silent, %d finding(s); %.0f s wall, %.0f s in meshguard-tidy summed over the files (--jobs %d)"
          % (len(files), silent, len(reported), wall,
             sum(r[2] for r in results.values()), args.jobs))

    # The triage of the selected files only.
    selected = set(files)
    def in_selection(t):
        return t["file"] in selected or (args.only is None)
    known = {(t["file"], t["line"], t["check"]): t for t in triage if in_selection(t)}

    print("== Totals per check (triaged true / false)")
    checks = sorted(set(enabled_checks(tidy)) | {c for (_, _, c) in reported}
                    | {c for (_, _, c) in known})
    for check in checks:
        keys = [k for k in reported if k[2] == check]
        true = sum(1 for k in keys if k in known and known[k]["verdict"])
        false = sum(1 for k in keys if k in known and not known[k]["verdict"])
        print("  %-40s %3d finding(s): %d true, %d false, %d untriaged"
              % (check, len(keys), true, false, len(keys) - true - false))

    new = sorted(k for k in reported if k not in known)
    gone = sorted(k for k in known if k not in reported)
    for k in new:
        print("NEW (not in bench/real-code/triage.json): %s:%d [%s] %s"
              % (k[0], k[1], k[2], reported[k]))
    for k in gone:
        print("GONE (triaged, no longer reported): %s:%d [%s] (%s: %s)"
              % (k[0], k[1], k[2], "true" if known[k]["verdict"] else "false",
                 known[k]["cause"]))

    if args.json:
        with open(args.json, "w") as f:
            json.dump([{"file": k[0], "line": k[1], "check": k[2],
                        "message": reported[k]} for k in sorted(reported)],
                      f, indent=1)
            f.write("\n")

    if broken:
        print("FAIL: %d file(s) do not compile" % len(broken))
        return 1
    if not probe_ok:
        print("FAIL: the checks report nothing on the control probe")
        return 1
    if new or gone:
        print("FAIL: the findings differ from the triage (%d new, %d gone): "
              "triage them in bench/real-code/triage.json and "
              "docs/checks/real-code-corpus.md" % (len(new), len(gone)))
        return 1
    print("OK: every finding is triaged")
    return 0


if __name__ == "__main__":
    sys.exit(main())
