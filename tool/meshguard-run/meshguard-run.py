#!/usr/bin/env python3
"""Run meshguard-tidy over a compilation database, in parallel, with progress
and a closing summary.

    meshguard-run -p BUILD [-j N] [-checks=...] [--report-skipped]
                  [--sarif OUT.sarif] [--export-fixes OUT.yaml] [FILE_REGEX...]
                  [-- MORE MESHGUARD-TIDY ARGS]

Like run-clang-tidy (which also works: `run-clang-tidy -clang-tidy-binary
meshguard-tidy`), plus:
  * the configuration of every directory is verified first (--verify-config):
    unknown check names, malformed options and a .clang-tidy that does not
    parse stop the run with the message, exit status 2;
  * one progress line per finished file on stderr: [k/N] time findings file;
  * a summary at the end: files, failures, findings by check, functions the
    analysis skipped because of its limits (--report-skipped turns on the
    check's ReportSkipped option on top of the effective .clang-tidy), time;
  * --sarif writes SARIF 2.1.0 (through meshguard-sarif), --export-fixes the
    merged clang-tidy YAML.
Exit status: 0 all files ran clean of errors; 1 a file failed (compiler
errors, -warnings-as-errors findings, a crash); 2 bad usage or configuration.
"""

import argparse
import concurrent.futures
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter

try:
    import yaml
except ImportError:  # pragma: no cover
    sys.stderr.write("meshguard-run: needs PyYAML (apt install python3-yaml)\n")
    sys.exit(2)

HERE = os.path.dirname(os.path.realpath(__file__))
SKIP_OPTION = "dtensor-collective-without-mesh.ReportSkipped"
SKIP_TEXT = " was not checked for collectives without a DeviceMesh: "


def find_tool(name, explicit):
    if explicit:
        return explicit
    local = os.path.join(HERE, name)
    if os.access(local, os.X_OK):
        return local
    return shutil.which(name)


def main():
    argv = sys.argv[1:]
    extra = []
    if "--" in argv:
        i = argv.index("--")
        argv, extra = argv[:i], argv[i + 1:]
    ap = argparse.ArgumentParser(description="Run meshguard-tidy over a compilation database.")
    ap.add_argument("-p", dest="build", required=True, help="directory with compile_commands.json")
    ap.add_argument("-j", type=int, default=os.cpu_count() or 1, help="parallel jobs")
    ap.add_argument("-checks", "--checks", dest="checks")
    ap.add_argument("-config", "--config", dest="config")
    ap.add_argument("-warnings-as-errors", "--warnings-as-errors", dest="werror")
    ap.add_argument("-header-filter", "--header-filter", dest="header_filter")
    ap.add_argument("--tidy", help="the clang-tidy binary (default: meshguard-tidy)")
    ap.add_argument("--report-skipped", action="store_true",
                    help="count functions skipped by the analysis limits")
    ap.add_argument("--sarif", help="write SARIF 2.1.0 here")
    ap.add_argument("--export-fixes", help="write the merged clang-tidy YAML here")
    ap.add_argument("-q", "--quiet", action="store_true", help="no diagnostics, only progress and summary")
    ap.add_argument("files", nargs="*", help="regular expressions selecting files of the database")
    args = ap.parse_args(argv)

    tidy = find_tool("meshguard-tidy", args.tidy)
    if not tidy:
        print("meshguard-run: meshguard-tidy not found (use --tidy)", file=sys.stderr)
        return 2
    db_path = os.path.join(args.build, "compile_commands.json")
    try:
        with open(db_path) as f:
            db = json.load(f)
    except (OSError, ValueError) as e:
        print("meshguard-run: cannot read %s: %s" % (db_path, e), file=sys.stderr)
        return 2
    files = []
    for entry in db:
        path = os.path.normpath(os.path.join(entry.get("directory", ""), entry["file"]))
        if path not in files and (not args.files or any(re.search(r, path) for r in args.files)):
            files.append(path)
    if not files:
        print("meshguard-run: no file of %s matches" % db_path, file=sys.stderr)
        return 2

    config_args = []
    if args.checks:
        config_args.append("-checks=" + args.checks)
    if args.config:
        config_args.append("-config=" + args.config)
    common = ["-p", args.build]
    if args.werror is not None:
        common.append("-warnings-as-errors=" + args.werror)
    if args.header_filter:
        common.append("-header-filter=" + args.header_filter)

    # 1. The configuration, verified in every directory that holds a file
    #    (.clang-tidy files apply per directory). clang-tidy's own
    #    --verify-config reports unknown checks and bad options, but only
    #    prints a .clang-tidy that does not parse ("Error parsing ...") and
    #    then goes on with its defaults: that is an error here.
    for d in sorted({os.path.dirname(p) for p in files}):
        verify = subprocess.run([tidy, "--verify-config"] + config_args, cwd=d,
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if verify.returncode != 0 or "Error parsing" in verify.stdout:
            sys.stderr.write(verify.stdout)
            print("meshguard-run: the clang-tidy configuration for %s has errors (above); "
                  "nothing was run" % d, file=sys.stderr)
            return 2

    # 2. --report-skipped: the effective configuration of each directory with
    #    the check's ReportSkipped option set.
    per_dir_config = {}
    if args.report_skipped:
        for path in files:
            d = os.path.dirname(path)
            if d in per_dir_config:
                continue
            dump = subprocess.run([tidy, "--dump-config"] + config_args + [path],
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            try:
                cfg = yaml.safe_load(dump.stdout) if dump.returncode == 0 else None
            except yaml.YAMLError:
                cfg = None
            if not isinstance(cfg, dict):
                print("meshguard-run: cannot read the configuration for %s:\n%s" % (path, dump.stderr),
                      file=sys.stderr)
                return 2
            cfg.setdefault("CheckOptions", {})[SKIP_OPTION] = "true"
            per_dir_config[d] = ["-config=" + json.dumps(cfg)]

    tmp = tempfile.mkdtemp(prefix="meshguard-run.")
    start = time.monotonic()

    def run_one(index, path):
        fixes = os.path.join(tmp, "%d.yaml" % index)
        cmd = ([tidy] + common + per_dir_config.get(os.path.dirname(path), config_args)
               + ["-export-fixes=" + fixes] + extra + [path])
        t0 = time.monotonic()
        proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        return index, path, proc, fixes, time.monotonic() - t0

    findings, skipped, failed, errors = Counter(), Counter(), [], 0
    yaml_docs = []
    done = 0
    try:
        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.j)) as pool:
            futures = [pool.submit(run_one, i, p) for i, p in enumerate(files)]
            for fut in concurrent.futures.as_completed(futures):
                index, path, proc, fixes, secs = fut.result()
                done += 1
                n = 0
                if os.path.exists(fixes):
                    with open(fixes) as f:
                        doc = yaml.safe_load(f) or {}
                    yaml_docs.append(fixes)
                    for diag in doc.get("Diagnostics") or []:
                        name = diag.get("DiagnosticName", "?")
                        message = (diag.get("DiagnosticMessage") or {}).get("Message", "")
                        if diag.get("Level") == "Remark" and SKIP_TEXT in message:
                            skipped[message.split(SKIP_TEXT, 1)[1]] += 1
                        elif name.startswith("clang-diagnostic-") and diag.get("Level") == "Error":
                            errors += 1
                        elif diag.get("Level") != "Remark":
                            findings[name] += 1
                            n += 1
                status = "" if proc.returncode == 0 else " FAILED (exit %d)" % proc.returncode
                if proc.returncode != 0:
                    failed.append(path)
                print("[%*d/%d] %6.2fs %3d finding%s %s%s" % (
                    len(str(len(files))), done, len(files), secs, n, " " if n == 1 else "s",
                    path, status), file=sys.stderr, flush=True)
                if not args.quiet or proc.returncode < 0:
                    sys.stdout.write(proc.stdout)
                    if proc.returncode != 0 or not args.quiet:
                        err = "\n".join(l for l in proc.stderr.splitlines()
                                        if not re.match(r"^(\d+ warnings? generated|Suppressed \d+ warnings|Use -header-filter)", l))
                        if err.strip():
                            sys.stderr.write(err + "\n")
        elapsed = time.monotonic() - start

        if args.export_fixes:
            merged = {"MainSourceFile": "", "Diagnostics": []}
            for y in sorted(yaml_docs):
                with open(y) as f:
                    merged["Diagnostics"] += (yaml.safe_load(f) or {}).get("Diagnostics") or []
            with open(args.export_fixes, "w") as f:
                yaml.safe_dump(merged, f, sort_keys=False)
        if args.sarif:
            sarif = find_tool("meshguard-sarif", None)
            if not sarif:
                print("meshguard-run: meshguard-sarif not found; no SARIF written", file=sys.stderr)
                failed.append("(sarif)")
            else:
                inputs = sorted(yaml_docs)
                if not inputs:
                    empty = os.path.join(tmp, "empty.yaml")
                    with open(empty, "w") as f:
                        f.write("Diagnostics: []\n")
                    inputs = [empty]
                r = subprocess.run([sys.executable, sarif, "-o", args.sarif] + inputs)
                if r.returncode != 0:
                    failed.append("(sarif)")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    total = sum(findings.values())
    print("meshguard-run: %d file%s in %.1f s (%d job%s, %.2f s/file), %d failed" % (
        len(files), "" if len(files) == 1 else "s", elapsed, args.j, "" if args.j == 1 else "s",
        elapsed * max(1, args.j) / len(files), len(failed)), file=sys.stderr)
    print("meshguard-run: %d finding%s%s" % (total, "" if total == 1 else "s", ":" if total else ""),
          file=sys.stderr)
    for name, count in sorted(findings.items(), key=lambda kv: (-kv[1], kv[0])):
        print("  %-50s %d" % (name, count), file=sys.stderr)
    if errors:
        print("meshguard-run: %d compiler error%s" % (errors, "" if errors == 1 else "s"), file=sys.stderr)
    if args.report_skipped:
        n = sum(skipped.values())
        print("meshguard-run: %d function%s skipped by the analysis limits%s" % (
            n, "" if n == 1 else "s", ":" if n else ""), file=sys.stderr)
        for reason, count in sorted(skipped.items(), key=lambda kv: -kv[1]):
            print("  %-50s %d" % (reason, count), file=sys.stderr)
    else:
        print("meshguard-run: functions skipped by the analysis limits: not counted "
              "(--report-skipped counts them)", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
