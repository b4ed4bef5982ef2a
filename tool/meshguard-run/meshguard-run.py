#!/usr/bin/env python3
"""Run meshguard-tidy over a compilation database, in parallel, with progress
and a closing summary.

    meshguard-run -p BUILD [-j N] [-checks=...] [--report-skipped]
                  [--sarif OUT.sarif] [--export-fixes OUT.yaml]
                  [--no-summaries] [--summaries DIR] [--summary-model FILE]
                  [FILE_REGEX...]
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
    merged clang-tidy YAML;
  * whole-program summaries (docs/tools/whole-program.md): a first pass
    (meshguard-tidy --summarize, in parallel) writes the function summaries
    of every file of the database to BUILD/meshguard-summaries (--summaries
    DIR), reusing a file's entry while its compile command and the files it
    read are unchanged; the checks then see helpers of other files.
    --no-summaries skips that pass (the checks still use the entries of an
    existing database that are up to date).
Exit status: 0 all files ran clean of errors; 1 a file failed (compiler
errors, -warnings-as-errors findings, a crash); 2 bad usage or configuration.
"""

import argparse
import concurrent.futures
import hashlib
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
SUMMARY_VERSION = 2
SUMMARY_ENV = "MESHGUARD_SUMMARY_DATABASE"


def find_tool(name, explicit):
    if explicit:
        return explicit
    local = os.path.join(HERE, name)
    if os.access(local, os.X_OK):
        return local
    return shutil.which(name)


def file_md5(path):
    try:
        with open(path, "rb") as f:
            return hashlib.md5(f.read()).hexdigest()
    except OSError:
        return None


def command_tag(entry):
    """What decides a file's summaries besides the files it reads."""
    cmd = entry.get("arguments") or entry.get("command") or ""
    text = json.dumps([entry.get("directory", ""), entry["file"], cmd])
    return hashlib.md5(text.encode()).hexdigest()


def read_summary_files(out_dir):
    """tu path -> (json path, command tag, [(file, md5)]) of the database."""
    known = {}
    try:
        names = sorted(os.listdir(out_dir))
    except OSError:
        return known
    for name in names:
        if not name.endswith(".json"):
            continue
        path = os.path.join(out_dir, name)
        try:
            with open(path) as f:
                doc = json.load(f)
            if doc.get("version") != SUMMARY_VERSION:
                continue
            known[doc["tu"]] = (path, doc.get("command", ""),
                                [tuple(pair) for pair in doc.get("files", [])])
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            continue  # rewritten below if its TU is in the database
    return known


def summarise(tidy, build, db, out_dir, jobs, model):
    """Pass 1: the summaries of every file of the compilation database.
    Returns (summarised, reused, failed, seconds, bytes)."""
    start = time.monotonic()
    try:
        os.makedirs(out_dir, exist_ok=True)
    except OSError as e:
        print("meshguard-run: cannot create %s: %s; no summaries" % (out_dir, e), file=sys.stderr)
        return 0, 0, 1, 0.0, 0
    known = read_summary_files(out_dir)
    todo, reused, seen = [], 0, set()
    for entry in db:
        path = os.path.normpath(os.path.join(entry.get("directory", ""), entry["file"]))
        if path in seen:
            continue
        seen.add(path)
        tag = command_tag(entry)
        if model:  # another model, other summaries
            tag = hashlib.md5((tag + (file_md5(model) or "")).encode()).hexdigest()
        old = known.get(path)
        if old and old[1] == tag and old[2] and all(
                not h or file_md5(f) == h for f, h in old[2]):
            reused += 1
        else:
            todo.append((path, tag))
    # Entries of files no longer in the database would only be stale.
    for tu, (json_path, _, _) in known.items():
        if tu not in seen:
            try:
                os.remove(json_path)
            except OSError:
                pass

    def run_one(item):
        path, tag = item
        return path, subprocess.run(
            [tidy, "--summarize=" + out_dir, "-p", build, "--summary-tag=" + tag]
            + (["--summary-model=" + model] if model else []) + [path],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    failed = 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        for path, proc in pool.map(run_one, todo):
            if proc.returncode != 0:
                failed += 1
                sys.stderr.write(proc.stderr)
                print("meshguard-run: no summaries for %s (exit %d); its functions are "
                      "unknown to the other files" % (path, proc.returncode), file=sys.stderr)
    size = 0
    for name in os.listdir(out_dir):
        if name.endswith(".json"):
            size += os.path.getsize(os.path.join(out_dir, name))
    return len(todo) - failed, reused, failed, time.monotonic() - start, size


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
    ap.add_argument("--no-summaries", action="store_true",
                    help="skip the summary pass (an existing database is still used where up to date)")
    ap.add_argument("--summaries", help="the summary database (default: BUILD/meshguard-summaries)")
    ap.add_argument("--summary-model", help="the YAML API model (ModelFile) for the summary pass")
    ap.add_argument("files", nargs="*", help="regular expressions selecting files of the database")
    args = ap.parse_args(argv)

    if args.summary_model and not os.path.isfile(args.summary_model):
        print("meshguard-run: --summary-model %s: no such file" % args.summary_model, file=sys.stderr)
        return 2
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

    # 3. The summary pass, over every file of the database (a helper may be
    #    in a file the regular expressions do not select).
    summary_dir = os.path.abspath(args.summaries or os.path.join(args.build, "meshguard-summaries"))
    env = dict(os.environ)
    if not args.no_summaries:
        done_n, reused_n, failed_n, secs, size = summarise(tidy, args.build, db, summary_dir, args.j,
                                                         args.summary_model)
        print("meshguard-run: summaries: %d file%s summarised, %d reused, %d failed in %.1f s; "
              "database %s (%d KiB)" % (done_n, "" if done_n == 1 else "s", reused_n, failed_n, secs,
                                        summary_dir, (size + 1023) // 1024),
              file=sys.stderr, flush=True)
        env[SUMMARY_ENV] = summary_dir
    elif args.summaries:
        env[SUMMARY_ENV] = summary_dir

    tmp = tempfile.mkdtemp(prefix="meshguard-run.")
    start = time.monotonic()

    def run_one(index, path):
        fixes = os.path.join(tmp, "%d.yaml" % index)
        cmd = ([tidy] + common + per_dir_config.get(os.path.dirname(path), config_args)
               + ["-export-fixes=" + fixes] + extra + [path])
        t0 = time.monotonic()
        proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
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
