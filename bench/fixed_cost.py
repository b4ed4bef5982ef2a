#!/usr/bin/env python3
"""What the dtensor-* checks add to a clang-tidy run on real headers.

    bench/fixed_cost.py BUILD_DIR [--runs 8] [--files FILE...]
                        [--baseline google-build-using-namespace]
                        [--compare BINARY] [--profile] [--perf]
                        [--torch pip|debian]

The budget (issue #15): all dtensor-* checks together cost at most 3 % of
meshguard-tidy's CPU time on a TU that includes <torch/torch.h>, i.e.
CPU(-checks=-*,dtensor-*) / CPU(-checks=-*,BASELINE) <= 1.03, where BASELINE
is a cheap check (the run still parses the same headers and the AST matchers
still traverse the whole AST: clang-tidy does that whenever a check is on).
The default baseline matches only `using namespace` directives, a node kind
the matchers skip cheaply everywhere else (llvm-include-order cost 0.15 % of
the samples itself, in its #include callback; checks with hasAncestor would
build the whole TU's parent map).

Each file is measured in RUNS rounds. The runs of a round (the baseline,
the dtensor-* run, and with --compare BINARY a dtensor-* run of that binary
too) are started at the same moment and run side by side, so all see the
same load on a shared machine (alternated runs did not: one configuration's
CPU time spread from 11.6 to 19.4 s on an idle machine). The CPU time
(user + system) of each process comes from its own rusage; the figure is the
median of the rounds' ratios, with the spread of the middle half.

--profile adds one run with --enable-check-profile: the per-check split (an
upper bound: the profiler's own getrusage calls are in it).
--perf adds one `perf record` (software cpu-clock, so it works without
hardware counters) of each configuration and prints the share of samples in
code only the dtensor checks run: a ratio inside one run, which the machine's
load does not move.

--torch picks the headers: `pip` (the default) the PyTorch 2.13 wheel's in
.venv (what `make build` uses), `debian` Debian's libtorch 1.13 in
/usr/include.

Default files: bench/inputs/plain_mnist.cpp (a libtorch program that uses no
meshguard API: the fixed cost) and examples/train.cpp (the demo, which does:
the whole cost). Both include <torch/torch.h>, so each run takes 10-40 s.
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, ".."))
DEFAULT_FILES = [os.path.join(HERE, "inputs", "plain_mnist.cpp"),
                 os.path.join(ROOT, "examples", "train.cpp")]
DEBIAN_TORCH_INCLUDES = ["/usr/include/torch/csrc/api/include"]


def pip_torch_includes():
    """The wheel's include directories (torch/include and its C++ API)."""
    import glob
    found = sorted(glob.glob(os.path.join(
        ROOT, ".venv", "lib", "python3*", "site-packages", "torch",
        "include")))
    if not found:
        sys.exit("no PyTorch wheel in .venv (make bootstrap installs it); "
                 "or --torch debian")
    return [found[-1], os.path.join(found[-1], "torch", "csrc", "api",
                                    "include")]

# Symbols (perf report, --sort sym) of code that only the dtensor checks run:
# meshguard's own code, the dataflow framework, CFG construction, and the
# matchers that look below a node (hasDescendant, hasBody, callee), which the
# baseline check never uses.
OWN_CODE = re.compile(r"meshguard::|clang::dataflow::|\bCFGBuilder\b|"
                      r"clang::CFG::buildCFG|ControlDependencyCalculator|"
                      r"CDCLSolver|CaDiCaL")
MATCHERS = re.compile(r"clang::ast_matchers::")


def tidy_command(tidy, checks, path, flags, extra=()):
    return ([tidy, "--config={}", "-checks=-*," + checks] + list(extra) +
            [path, "--"] + flags)


def start(tidy, checks, path, flags, extra=()):
    out = tempfile.TemporaryFile(mode="w+")
    proc = subprocess.Popen(tidy_command(tidy, checks, path, flags, extra),
                            stdout=out, stderr=subprocess.STDOUT)
    return proc, out, checks


def finish(run, path):
    """Waits for one started run; its CPU seconds and its output."""
    proc, out, checks = run
    # wait4 on this pid, so that the rusage is this child's alone.
    _, status, usage = os.wait4(proc.pid, 0)
    code = os.waitstatus_to_exitcode(status)
    out.seek(0)
    text = out.read()
    out.close()
    if code not in (0, 1) or re.search(r"\berror:", text):
        sys.exit("meshguard-tidy failed on %s (%s), exit %d:\n%s"
                 % (path, checks, code, text[-3000:]))
    return usage.ru_utime + usage.ru_stime, text


def count_warnings(text, checks):
    prefix = checks.rstrip("*")
    return len(re.findall(r"warning: .*\[" + re.escape(prefix), text))


def measure_pairs(args, tidy, path, flags):
    """RUNS rounds; in each, the baseline and every binary's dtensor run
    side by side. Ratios are each dtensor run over its round's baseline."""
    binaries = [tidy] + ([args.compare] if args.compare else [])
    ratios = {b: [] for b in binaries}
    cpus = {b: [] for b in binaries}
    base, found = [], set()
    for i in range(args.runs):
        runs = [(None, args.baseline)] + [(b, args.checks) for b in binaries]
        # Which one starts first rotates (it gets a head start of a few ms).
        runs = runs[i % len(runs):] + runs[:i % len(runs)]
        started = [(b, start(b or tidy, c, path, flags)) for b, c in runs]
        results = {b: finish(r, path) for b, r in started}
        b_cpu = results[None][0]
        base.append(b_cpu)
        line = "  %s round %d: %s %.2f s" % (os.path.basename(path), i + 1,
                                            args.baseline, b_cpu)
        for b in binaries:
            cpu, text = results[b]
            cpus[b].append(cpu)
            ratios[b].append(cpu / b_cpu)
            found.add(count_warnings(text, args.checks))
            line += ", %s%s %.2f s (%.3f)" % (
                args.checks, "" if b == tidy else " [compare]", cpu,
                cpu / b_cpu)
        print(line, flush=True)
    print("%s: %s median %.2f s CPU (%s warning(s))"
          % (os.path.relpath(path, ROOT), args.baseline,
             statistics.median(base), "/".join(map(str, sorted(found)))))
    for b in binaries:
        r = ratios[b]
        q = statistics.quantiles(r, n=4) if len(r) > 1 else r * 3
        print("%s: %s (%s) median %.2f s CPU; median ratio of %d rounds "
              "%.3f (middle half %.3f-%.3f)"
              % (os.path.relpath(path, ROOT), args.checks, b,
                 statistics.median(cpus[b]), len(r), statistics.median(r),
                 q[0], q[2]), flush=True)


def profile_split(args, tidy, path, flags):
    """Per-check user+system seconds from --enable-check-profile."""
    for checks in (args.checks, args.baseline):
        cpu, text = finish(start(tidy, checks, path, flags,
                                 ["--enable-check-profile"]), path)
        # Rows: "user (%)  system (%)  user+system (%)  wall (%)  name".
        rows = {}
        for m in re.finditer(r"^\s*([\d.]+) \([^)]*\)\s+([\d.]+) \([^)]*\)"
                             r"\s+[\d.]+ \([^)]*\)\s+[\d.]+ \([^)]*\)\s+"
                             r"(\S+)\s*$", text, re.M):
            if m.group(3) != "Total":
                rows[m.group(3)] = float(m.group(1)) + float(m.group(2))
        own = sum(rows.values())
        print("%s: --enable-check-profile, %s: %.3f s of a %.2f s CPU run "
              "(%.1f %%)%s"
              % (os.path.basename(path), checks, own, cpu, 100 * own / cpu,
                 "".join("; %s %.3f s" % kv for kv in sorted(rows.items()))),
              flush=True)


def perf_shares(args, tidy, path, flags):
    """Shares of samples in the checks' own code and in the matchers."""
    shares = {}
    for checks in (args.checks, args.baseline):
        data = tempfile.mktemp(suffix=".perf.data")
        cmd = (["perf", "record", "-q", "-e", "cpu-clock", "-F", "1000",
                "-o", data, "--"] + tidy_command(tidy, checks, path, flags))
        subprocess.run(cmd, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, check=False)
        report = subprocess.run(
            ["perf", "report", "-i", data, "--stdio", "--sort", "sym",
             "--percent-limit", "0", "-q"],
            capture_output=True, text=True).stdout
        os.unlink(data)
        if args.perf_reports:
            name = "%s.%s.txt" % (os.path.basename(path),
                                  re.sub(r"[^\w.-]", "_", checks))
            with open(os.path.join(args.perf_reports, name), "w") as f:
                f.write(report)
        own = matchers = 0.0
        for line in report.splitlines():
            m = re.match(r"\s*([\d.]+)%\s+\[\.\]\s+(.*)", line)
            if not m:
                continue
            if OWN_CODE.search(m.group(2)):
                own += float(m.group(1))
            elif MATCHERS.search(m.group(2)):
                matchers += float(m.group(1))
        shares[checks] = (own, matchers)
        print("%s: perf, %s: %.2f %% of samples in the checks' own code, "
              "%.2f %% in AST matcher code"
              % (os.path.basename(path), checks, own, matchers), flush=True)
    own, matchers = shares[args.checks]
    b_own, b_matchers = shares[args.baseline]
    print("%s: perf estimate of the dtensor checks' share: %.2f %% (own code "
          "%.2f %% + matchers beyond the baseline's %.2f %%)"
          % (os.path.basename(path), own - b_own + matchers - b_matchers,
             own - b_own, matchers - b_matchers), flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("build_dir")
    ap.add_argument("--runs", type=int, default=8)
    ap.add_argument("--files", nargs="+", default=DEFAULT_FILES)
    ap.add_argument("--baseline", default="google-build-using-namespace",
                    help="the cheap check the ratio is taken against")
    ap.add_argument("--checks", default="dtensor-*")
    ap.add_argument("--torch", choices=["pip", "debian"], default="pip",
                    help="whose headers: the 2.13 wheel's (pip) or "
                    "Debian's 1.13")
    ap.add_argument("--profile", action="store_true")
    ap.add_argument("--perf", action="store_true")
    ap.add_argument("--perf-reports", metavar="DIR",
                    help="keep each perf report (by symbol) in DIR")
    ap.add_argument("--tidy",
                    help="the binary (default BUILD_DIR/bin/meshguard-tidy)")
    ap.add_argument("--compare", metavar="BINARY",
                    help="another meshguard-tidy (e.g. before a change) run "
                    "with --checks in the same rounds")
    args = ap.parse_args()
    tidy = args.tidy or os.path.join(args.build_dir, "bin", "meshguard-tidy")
    if not os.access(tidy, os.X_OK):
        sys.exit("no meshguard-tidy at " + tidy)
    includes = ([os.path.join(ROOT, "include")] +
                (pip_torch_includes() if args.torch == "pip"
                 else DEBIAN_TORCH_INCLUDES))
    flags = ["-std=c++17"]
    for path in includes:
        flags += ["-isystem", path]
    flags += ["-DUSE_DISTRIBUTED", "-DUSE_C10D_GLOO"]
    print("binary: %s" % tidy)
    print("headers: %s" % " ".join(includes[1:]))
    print("load average at start: %.2f %.2f %.2f" % os.getloadavg())
    for path in args.files:
        if args.runs:
            measure_pairs(args, tidy, path, flags)
        if args.profile:
            profile_split(args, tidy, path, flags)
        if args.perf:
            perf_shares(args, tidy, path, flags)
    print("load average at end: %.2f %.2f %.2f" % os.getloadavg())


if __name__ == "__main__":
    main()
