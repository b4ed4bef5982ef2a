#!/usr/bin/env python3
"""Runs every meshguard test in a build tree and prints one closing line.

lit runs the check and tool tests, ctest runs the runtime's GoogleTests; both
write JUnit XML, which is counted here; then the divergence check runs over
its two corpora (one test each, precision and recall printed), the wheel is
packaged and used from a fresh venv (test/wheel/run.py), and clang-format and
clang-tidy lint every source (`scripts/lint.sh --check`, one test: the files
recorded clean in scripts/lint-manifest.txt cost a hash, the others are
linted). The closing
line covers everything:
    N passed, N failed, N skipped
Exits non-zero when anything failed or a runner itself broke.

    scripts/run-tests.py BUILD [--runtime-only OTHER_BUILD]...

--runtime-only adds a build directory of the runtime alone (another libtorch,
`make test`'s second configuration): its ctest suite counts in the same line.
"""

import argparse
import os
import subprocess
import sys
import xml.etree.ElementTree as ET

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
# The ported corpus's figures when they were recorded; a change that lowers
# either fails `make test`.
MIN_PORTED_PRECISION = "1.0"
MIN_PORTED_RECALL = "1.0"


def count(xml_path):
    """Returns (passed, failed, skipped) from a JUnit XML file."""
    passed = failed = skipped = 0
    for case in ET.parse(xml_path).getroot().iter("testcase"):
        status = case.get("status", "")
        if case.find("failure") is not None or case.find("error") is not None or status == "fail":
            failed += 1
        elif case.find("skipped") is not None or status in ("notrun", "disabled"):
            skipped += 1
        else:
            passed += 1
    return passed, failed, skipped


def run_step(name, command, xml_path):
    print("==> %s: %s" % (name, " ".join(command)), flush=True)
    if os.path.exists(xml_path):
        os.remove(xml_path)
    code = subprocess.call(command)
    if not os.path.exists(xml_path):
        if code == 0:
            return (0, 0, 0)
        print("%s: runner failed (exit %d) without results" % (name, code))
        return (0, 1, 0)
    result = count(xml_path)
    if code != 0 and result[1] == 0:
        print("%s: runner exited %d with no failed test; counting one failure" % (name, code))
        result = (result[0], 1, result[2])
    print("==> %s: %d passed, %d failed, %d skipped" % ((name,) + result), flush=True)
    return result


def ctest_step(name, build, jobs):
    results_dir = os.path.join(build, "test-results")
    os.makedirs(results_dir, exist_ok=True)
    xml = os.path.join(results_dir, "ctest.xml")
    # until-pass:2: a test that fails is run once more. The multi-rank tests
    # start real processes on a loaded 2-core machine; two of them failed
    # once each in CI and not in 25 repeated runs here under load (a PyTorch
    # side that aborted in its interpreter's teardown, a Gloo fault test on
    # libtorch 1.13). A test that fails twice fails; ctest prints both runs.
    return (name, ["ctest", "--test-dir", build, "--output-on-failure", "-j", jobs,
                   "--timeout", "600", "--repeat", "until-pass:2", "--output-junit", xml], xml)


# Precision and recall of dtensor-rank-divergent-collective on its corpora,
# and of the placement and mesh checks on theirs, printed in every run; each
# corpus is one test that fails below its recorded figures
# (docs/checks/dtensor-rank-divergent-collective.md, docs/checks/placements-corpus.md,
# docs/checks/placements-corpus-reports.md).
PLACEMENT_CHECKS = ("dtensor-partial-local-use,dtensor-op-without-sharding-rule,"
                    "dtensor-unverified-replicate,dtensor-mixed-meshes")
CORPORA = [
    ("bench/divergence-corpus", "1.0", "1.0", None),
    ("bench/divergence-corpus-ported", MIN_PORTED_PRECISION, MIN_PORTED_RECALL, None),
    ("bench/placements-corpus", "0.967", "1.0", PLACEMENT_CHECKS),
    # Written apart from the checks, from users' reports (issue #44 item 5):
    # its recorded figures, not the goal (0.95/0.95).
    ("bench/placements-corpus-reports", "1.0", "0.866", PLACEMENT_CHECKS),
]


def corpus_steps(build):
    if not os.path.exists(os.path.join(build, "bin", "meshguard-tidy")):
        return (0, 0, 0)
    script = os.path.join(ROOT, "bench", "divergence_corpus.py")
    passed = failed = 0
    for corpus, precision, recall, checks in CORPORA:
        command = [sys.executable, script, build, "--corpus", os.path.join(ROOT, corpus),
                   "--min-precision", precision, "--min-recall", recall]
        if checks:
            command += ["--checks", checks]
        print("==> corpus %s" % corpus, flush=True)
        if subprocess.call(command) == 0:
            passed += 1
        else:
            failed += 1
    return (passed, failed, 0)


def lint_step(build):
    """scripts/lint.sh --check as one test: passed, failed, or skipped
    outside a git checkout (it lists the sources with git ls-files). Every
    source whose key scripts/lint-manifest.txt lacks is clang-tidied; a
    finding fails (scripts/lint.py says what the key covers)."""
    inside = subprocess.call(["git", "-C", ROOT, "rev-parse", "--git-dir"],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) == 0
    if not inside:
        print("==> lint: skipped (not a git checkout)", flush=True)
        return (0, 0, 1)
    command = ["bash", os.path.join(ROOT, "scripts", "lint.sh"), "--check", build]
    print("==> lint: %s" % " ".join(command), flush=True)
    code = subprocess.call(command)
    print("==> lint: %s" % ("passed" if code == 0 else "FAILED (exit %d)" % code), flush=True)
    return (1, 0, 0) if code == 0 else (0, 1, 0)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("build", nargs="?", default="build")
    parser.add_argument("--runtime-only", action="append", default=[], metavar="BUILD")
    args = parser.parse_args()
    build = os.path.abspath(args.build)
    results_dir = os.path.join(build, "test-results")
    os.makedirs(results_dir, exist_ok=True)
    jobs = str(os.cpu_count() or 2)
    totals = [0, 0, 0]

    lit = os.environ.get("MESHGUARD_LIT", "/usr/lib/llvm-19/build/utils/lit/lit.py")
    lit_xml = os.path.join(results_dir, "lit.xml")
    steps = [("lit", [sys.executable, lit, "-sv", "-j", jobs, "--xunit-xml-output", lit_xml,
                      os.path.join(build, "test")], lit_xml)]
    steps.append(ctest_step("ctest", build, jobs))
    for other in args.runtime_only:
        other = os.path.abspath(other)
        steps.append(ctest_step("ctest (%s)" % os.path.basename(other), other, jobs))
    for name, command, xml_path in steps:
        for i, n in enumerate(run_step(name, command, xml_path)):
            totals[i] += n

    # The wheel as users get it (test/wheel/run.py): packaged from this build,
    # installed into a fresh venv beside torch, used from there.
    if all(os.path.exists(os.path.join(build, p)) for p in
           ("bin/meshguard-tidy", "lib/libmeshguard_runtime.so")):
        wheel_xml = os.path.join(results_dir, "wheel.xml")
        for i, n in enumerate(run_step("wheel", [sys.executable, os.path.join(
                ROOT, "test", "wheel", "run.py"), build, "--junit", wheel_xml], wheel_xml)):
            totals[i] += n

    for i, n in enumerate(corpus_steps(build)):
        totals[i] += n
    for i, n in enumerate(lint_step(build)):
        totals[i] += n

    print("%d passed, %d failed, %d skipped" % tuple(totals))
    return 1 if totals[1] else 0


if __name__ == "__main__":
    sys.exit(main())
