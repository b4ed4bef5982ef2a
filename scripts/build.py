#!/usr/bin/env python3
"""Builds a meshguard build directory with ninja and says how far it is.

    scripts/build.py BUILD_DIR [-j N] [TARGET...]

ninja's own output goes to BUILD_DIR/build.log; the terminal gets what is
left to do up front (steps, and the slow kinds: translation units that include
libtorch or clang's headers, the static links), then one progress line every
PERIOD seconds (MESHGUARD_BUILD_PROGRESS_S, default 30) naming the step just
done (ninja reports a step when it ends), and on failure ninja's error. A cold build on 2 cores spends most of
its time in those slow steps; a warm ccache skips nearly all of them.

A compiler warning in meshguard's own code (lib/, include/meshguard/, tool/;
cmake/MeshguardWarnings.cmake) fails the build: the code builds clean.
ccache replays a cached compile's warnings, so a clean build directory (CI's)
sees every one; configure with -DMESHGUARD_WERROR=ON to stop at the first.
"""

import argparse
import os
import re
import subprocess
import sys
import time

STEP = re.compile(r"^\[(\d+)/(\d+)\] (.*)$")
ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
# GCC names a file as the compile command does: relative to the build
# directory, or absolute.
OWN_WARNING = re.compile(r"^(?:\.\./|%s/)(?:lib|include/meshguard|tool)/\S*:\d+:\d+: warning: "
                         % re.escape(ROOT))


def slow_kind(description):
    """Which slow kind a ninja step description belongs to, or None."""
    if description.startswith("Linking"):
        if re.search(r"meshguard-(tidy|clangd)|Plugin|unittests", description):
            return "static clang link"
        return None
    m = re.search(r"Building CXX object (\S+)", description)
    if not m:
        return None
    obj = m.group(1)
    if "cmake_pch" in obj:
        return "precompiled header"
    if obj.startswith(("lib/runtime", "test/runtime", "examples", "bench", "test/oracle")):
        return "libtorch TU"
    if obj.startswith(("lib/Analysis", "lib/Tidy", "tool/", "unittests")):
        return "clang TU"
    return None


def plan(build, targets):
    """Counts the steps ninja would run, by slow kind."""
    out = subprocess.run(["ninja", "-C", build, "-n"] + targets, capture_output=True, text=True)
    kinds = {}
    total = 0
    for line in out.stdout.splitlines():
        m = STEP.match(line)
        if not m:
            continue
        total = int(m.group(2))
        kind = slow_kind(m.group(3))
        if kind:
            kinds[kind] = kinds.get(kind, 0) + 1
    return total, kinds


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("build")
    parser.add_argument("-j", "--jobs", default=str(os.cpu_count() or 2))
    parser.add_argument("targets", nargs="*")
    args = parser.parse_intermixed_args()
    period = float(os.environ.get("MESHGUARD_BUILD_PROGRESS_S", "30"))
    name = os.path.basename(os.path.abspath(args.build))

    total, kinds = plan(args.build, args.targets)
    if total == 0:
        print("build (%s): up to date" % name, flush=True)
    else:
        slow = ", ".join("%d %s%s" % (n, k, "s" if n > 1 else "") for k, n in sorted(kinds.items()))
        print("build (%s): %d steps%s; ninja's output in %s/build.log" %
              (name, total, " (slow: %s)" % slow if slow else "", args.build), flush=True)

    start = last = time.time()
    done = 0
    current = ""
    log_path = os.path.join(args.build, "build.log")
    with open(log_path, "w") as log:
        proc = subprocess.Popen(["ninja", "-C", args.build, "-j", args.jobs] + args.targets,
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                env=dict(os.environ, NINJA_STATUS="[%f/%t] "))
        for line in proc.stdout:
            log.write(line)
            m = STEP.match(line.rstrip("\n"))
            if m:
                done, total, current = int(m.group(1)), int(m.group(2)), m.group(3)
            now = time.time()
            if m and now - last >= period:
                last = now
                what = re.sub(r"^Building CXX object |\.o$", "", current)
                print("build (%s): %d/%d steps, %dm%02ds: %s" %
                      (name, done, total, (now - start) // 60, (now - start) % 60, what), flush=True)
        code = proc.wait()
    elapsed = time.time() - start
    if code != 0:
        with open(log_path) as log:
            text = log.read()
        failed = text.find("FAILED:")
        sys.stdout.write(text[failed:][:8000] if failed >= 0 else text[-4000:])
        print("build (%s): FAILED after %dm%02ds (full log: %s)" %
              (name, elapsed // 60, elapsed % 60, log_path), flush=True)
        return code
    with open(log_path) as log:
        warnings = sorted({line.rstrip("\n") for line in log if OWN_WARNING.match(line)})
    if warnings:
        sys.stdout.write("".join(w + "\n" for w in warnings[:40]))
        print("build (%s): FAILED: %d compiler warning(s) in meshguard's own code (above; "
              "full log: %s)" % (name, len(warnings), log_path), flush=True)
        return 1
    if total:
        print("build (%s): done, %d steps in %dm%02ds" % (name, done, elapsed // 60, elapsed % 60), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
