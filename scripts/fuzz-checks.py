#!/usr/bin/env python3
"""Mutation fuzzer for the dtensor-* checks.

    scripts/fuzz-checks.py --tidy build/bin/meshguard-tidy [--count 200]
        [--seed 1] [--jobs 2] [--timeout 30] [--slow 2.0] [--out DIR]
        [SEED_FILE ...]

Takes the stub-header tests (test/checks/*.cpp by default; files that need
real headers are left out), makes COUNT mutants of them (deleting,
duplicating and swapping lines and tokens; wrapping a statement in a lambda,
a loop or a branch; switching lambda captures), runs meshguard-tidy with
-checks=-*,dtensor-* on each with a time limit, and flags:

  crash   the tool died of a signal, or printed an assertion / stack dump;
  hang    the run went past --timeout seconds (killed);
  slow    the dtensor-* checks took more than --slow seconds of CPU time on
          the file (clang-tidy's check profile; seeds are small, so this
          bounds the time of the slowest function from above).

Mutants that do not compile are fine: the checks must still not crash or
hang. Everything is deterministic given --seed: mutant i is made from its own
random stream, so a reproducer can be rebuilt alone (--only i). Flagged
mutants are written to --out with the command that reproduces them.

Exit status 0 when nothing was flagged, 1 otherwise. The last line is the
summary: "N mutants: C crash(es), H over the time limit, S slow; slowest
dtensor-* check time T s (mutant I of SEED)".
"""
import argparse
import concurrent.futures
import glob
import json
import os
import random
import re
import shlex
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
STUBS = os.path.join(ROOT, "test", "Inputs", "stubs")
TOKEN = re.compile(r"[A-Za-z_]\w*|\d+|::|->|&&|\|\||[^\s\w]")
CRASH_TEXT = ("Assertion", "Stack dump", "PLEASE submit a bug report",
              "LLVM ERROR", "UNREACHABLE")


def seed_files(paths):
    files = []
    for path in paths or sorted(glob.glob(os.path.join(ROOT, "test", "checks", "*.cpp"))):
        with open(path) as f:
            text = f.read()
        # Only the stub-header tests: real headers cost seconds per run.
        if "%torch_cflags" in text or "REQUIRES:" in text:
            continue
        std = "-std=c++20" if "-std=c++20" in text else "-std=c++17"
        files.append((path, text, std))
    return files


def statement_lines(lines):
    """Indices of lines that look like statements inside a body."""
    return [i for i, l in enumerate(lines)
            if l.startswith((" ", "\t")) and l.rstrip().endswith(";")
            and not l.lstrip().startswith("//")]


def mutate(text, rng):
    lines = text.split("\n")
    # Drop the lit/FileCheck comments: they are not what is being tested.
    lines = [l for l in lines if not re.match(r"\s*// ?(RUN|CHECK|STATS|SMALL)", l)]
    done = []
    for _ in range(rng.randint(1, 3)):
        stmts = statement_lines(lines)
        code = [i for i, l in enumerate(lines)
                if l.strip() and not l.lstrip().startswith(("//", "#"))]
        if not code:
            break
        op = rng.choice(["delete-line", "duplicate-line", "swap-lines", "delete-token",
                         "duplicate-token", "swap-tokens", "wrap-lambda-ref",
                         "wrap-lambda-copy", "wrap-loop", "wrap-branch", "captures",
                         "repeat-block"])
        if op in ("wrap-lambda-ref", "wrap-lambda-copy", "wrap-loop", "wrap-branch",
                  "repeat-block") and not stmts:
            op = "delete-token"
        i = rng.choice(stmts) if op.startswith(("wrap", "repeat")) else rng.choice(code)
        collectives = [j for j in stmts if "dist::" in lines[j]]
        if op == "repeat-block" and collectives and rng.random() < 0.7:
            i = rng.choice(collectives)  # Where the analyser's cost is.
        line = lines[i]
        indent = line[:len(line) - len(line.lstrip())]
        if op == "delete-line":
            del lines[i]
        elif op == "duplicate-line":
            lines.insert(i, line)
        elif op == "swap-lines" and i + 1 < len(lines):
            lines[i], lines[i + 1] = lines[i + 1], lines[i]
        elif op in ("delete-token", "duplicate-token", "swap-tokens"):
            toks = list(TOKEN.finditer(line))
            if not toks:
                continue
            k = rng.randrange(len(toks))
            a, b = toks[k].span()
            if op == "delete-token":
                lines[i] = line[:a] + line[b:]
            elif op == "duplicate-token":
                lines[i] = line[:b] + " " + line[a:b] + line[b:]
            elif k + 1 < len(toks):
                c, d = toks[k + 1].span()
                lines[i] = line[:a] + line[c:d] + line[b:c] + line[a:b] + line[d:]
        elif op == "wrap-lambda-ref":
            lines[i] = indent + "[&] {" + line.strip() + "}();"
        elif op == "wrap-lambda-copy":
            lines[i] = indent + "[=]() mutable {" + line.strip() + "}();"
        elif op == "wrap-loop":
            lines[i] = indent + "for (int fz_i = 0; fz_i < 3; ++fz_i) {" + line.strip() + "}"
        elif op == "wrap-branch":
            lines[i] = (indent + "{ static volatile bool fz_b = true; if (fz_b) {"
                        + line.strip() + "} else {} }")
        elif op == "captures":
            swaps = [("[&]", "[=]"), ("[=]", "[&]"), ("[&", "[="), ("[this]", "[=]")]
            a, b = rng.choice(swaps)
            lines[i] = line.replace(a, b, 1)
        elif op == "repeat-block":
            # Many copies of a statement, each in its own lambda: the shape
            # of the analyser's old blow-ups.
            n = rng.randint(5, 60)
            lines[i:i + 1] = [indent + "[&] {" + line.strip() + "}();"] * n
        done.append(op)
    return "\n".join(lines), done


def check_seconds(stderr):
    total = 0.0
    for line in stderr.splitlines():
        if "dtensor-" in line:
            numbers = re.findall(r"([\d.]+)\s+\(\s*[\d.]+%\)", line)
            if numbers:
                total += float(numbers[-2])  # user+system
    return total


def run_one(args, work, index, seeds):
    rng = random.Random("%d:%d" % (args.seed, index))
    path, text, std = seeds[rng.randrange(len(seeds))]
    source, ops = mutate(text, rng)
    name = os.path.join(work, "mutant_%06d.cpp" % index)
    with open(name, "w") as f:
        f.write(source)
    cmd = [args.tidy, "--config={}", "-checks=-*,dtensor-*", "--enable-check-profile",
           name, "--", std, "-I", args.stubs]
    start = time.monotonic()
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=args.timeout)
        out = proc.stdout + proc.stderr
        code = proc.returncode
    except subprocess.TimeoutExpired:
        return {"index": index, "seed": path, "ops": ops, "kind": "hang", "cmd": cmd,
                "seconds": time.monotonic() - start, "source": source}
    seconds = check_seconds(out)
    kind = None
    if code < 0 or any(t in out for t in CRASH_TEXT):
        kind = "crash"
    elif seconds > args.slow:
        kind = "slow"
    result = {"index": index, "seed": path, "ops": ops, "kind": kind, "cmd": cmd,
              "seconds": seconds, "code": code}
    if kind:
        result["source"] = source
        result["tail"] = out[-3000:]
    else:
        os.unlink(name)
    return result


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("seeds", nargs="*", help="seed files (default: test/checks/*.cpp)")
    ap.add_argument("--tidy", required=True)
    ap.add_argument("--stubs", default=STUBS)
    ap.add_argument("--count", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--timeout", type=float, default=30.0,
                    help="seconds per run before it counts as a hang")
    ap.add_argument("--slow", type=float, default=2.0,
                    help="dtensor-* CPU seconds per file before it counts as slow")
    ap.add_argument("--only", type=int, help="run mutant ONLY alone (reproduce)")
    ap.add_argument("--out", help="write flagged mutants here")
    ap.add_argument("--progress", type=int, default=0,
                    help="print a progress line every N mutants")
    args = ap.parse_args()
    seeds = seed_files(args.seeds)
    if not seeds:
        sys.exit("fuzz-checks: no seed files")
    indices = [args.only] if args.only is not None else range(args.count)
    flagged, slowest, done = [], None, 0
    with tempfile.TemporaryDirectory() as work:
        with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
            for r in pool.map(lambda i: run_one(args, work, i, seeds), indices):
                done += 1
                if slowest is None or r["seconds"] > slowest["seconds"]:
                    slowest = r
                if r["kind"]:
                    flagged.append(r)
                    print("fuzz-checks: %s: mutant %d of %s (%s), %.2f s" % (
                        r["kind"], r["index"], os.path.basename(r["seed"]),
                        ", ".join(r["ops"]), r["seconds"]), flush=True)
                if args.progress and done % args.progress == 0:
                    print("fuzz-checks: %d done, %d flagged; slowest so far %.2f s "
                          "(mutant %d of %s)" % (done, len(flagged), slowest["seconds"],
                                                 slowest["index"],
                                                 os.path.basename(slowest["seed"])),
                          flush=True)
        if args.out and flagged:
            os.makedirs(args.out, exist_ok=True)
            for r in flagged:
                base = os.path.join(args.out, "%s_%06d" % (r["kind"], r["index"]))
                with open(base + ".cpp", "w") as f:
                    f.write(r["source"])
                with open(base + ".txt", "w") as f:
                    f.write("seed file: %s\nmutations: %s\ncommand: %s\n\n%s" % (
                        r["seed"], ", ".join(r["ops"]),
                        " ".join(shlex.quote(c) for c in r["cmd"]).replace(
                            r["cmd"][4], base + ".cpp"), r.get("tail", "")))
    count = {k: sum(1 for r in flagged if r["kind"] == k) for k in ("crash", "hang", "slow")}
    print("fuzz-checks: %d mutants: %d crash(es), %d over the time limit, %d slow; "
          "slowest dtensor-* check time %.2f s (mutant %d of %s)" % (
              done, count["crash"], count["hang"], count["slow"], slowest["seconds"],
              slowest["index"], os.path.basename(slowest["seed"])))
    return 1 if flagged else 0


if __name__ == "__main__":
    sys.exit(main())
