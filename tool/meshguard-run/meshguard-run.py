#!/usr/bin/env python3
"""Run meshguard-tidy over a compilation database, in parallel, with progress
and a closing summary.

    meshguard-run -p BUILD [-j N] [-checks=...] [--report-skipped]
                  [--sarif OUT.sarif [--source-root DIR]] [--export-fixes OUT.yaml]
                  [--no-summaries | --summaries-only] [--summaries DIR]
                  [--summary-model FILE]
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
  * --sarif writes SARIF 2.1.0 (through meshguard-sarif; paths relative to
    --source-root, default the git repository of the current directory),
    --export-fixes the merged clang-tidy YAML;
  * whole-program summaries (docs/tools/whole-program.md): each check run
    also writes its file's function summaries to BUILD/meshguard-summaries
    (--summaries DIR), and sees those of the files checked before it. Files
    run after the files whose helpers they call (known from the previous
    database, guessed from the source text otherwise); a file that ran before
    a helper it used got its summary, or whose helper's summary changed, is
    checked again. So from an empty database each file is parsed about once,
    and an up-to-date database costs nothing. Files of the compilation
    database the regular expressions do not select are summarised only
    (meshguard-tidy --summarize), and only when out of date.
    --no-summaries: the checks alone, nothing written (an existing database
    is still used where up to date). --summaries-only: the summaries of
    every file, no check (for clang-tidy-diff and editors afterwards).
Exit status: 0 all files ran clean of errors; 1 a file failed (compiler
errors, -warnings-as-errors findings, a crash; with --summaries-only, a file
that could not be summarised); 2 bad usage or configuration.
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
SUMMARY_ENV = "MESHGUARD_SUMMARY_DATABASE"
EXPORT_ENV = "MESHGUARD_SUMMARY_EXPORT"
TAG_ENV = "MESHGUARD_SUMMARY_TAG"

sys.path.insert(0, HERE)
import meshguard_run_order as order  # noqa: E402  (beside this script)


def find_tool(name, explicit):
    if explicit:
        return explicit
    local = os.path.join(HERE, name)
    if os.access(local, os.X_OK):
        return local
    return shutil.which(name)


def source_root(explicit):
    """What SARIF's paths are relative to: code-scanning services map a
    result to the repository's file only through a relative URI."""
    if explicit:
        return explicit
    try:
        top = subprocess.run(["git", "rev-parse", "--show-toplevel"], capture_output=True,
                             text=True, check=True).stdout.strip()
        if top:
            return top
    except (OSError, subprocess.CalledProcessError):
        pass
    return os.getcwd()


def read_diagnostics(path):
    """The diagnostics of the -export-fixes file PATH, or None when it is not
    the YAML clang-tidy writes."""
    try:
        with open(path, errors="replace") as f:
            doc = yaml.safe_load(f) or {}
    except (OSError, yaml.YAMLError):
        return None
    diags = (doc.get("Diagnostics") or []) if isinstance(doc, dict) else None
    if not isinstance(diags, list):
        return None
    return [d for d in diags if isinstance(d, dict)]


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


def read_database(out_dir):
    """tu path -> summary doc of the database in OUT_DIR, and the json paths
    of files to drop (another version, unreadable)."""
    docs, drop = {}, []
    try:
        names = sorted(os.listdir(out_dir))
    except OSError:
        return docs, drop
    for name in names:
        if name.endswith(".json"):
            path = os.path.join(out_dir, name)
            doc = order.read_summary_doc(path)
            if doc is None:
                drop.append(path)
            else:
                docs.setdefault(doc["tu"], doc)
    return docs, drop


def plan_summaries(db, out_dir, model):
    """What the database needs: (tags, docs, stale). tags: tu -> the tag its
    summary file must carry; docs: tu -> its current summary file; stale: the
    tus whose entries may change when they run (their compile command or a
    file they read changed, they have none, or an entry they looked up is
    gone, changed, or defined by a stale tu)."""
    docs, drop = read_database(out_dir)
    tags = {}
    for entry in db:
        path = os.path.normpath(os.path.join(entry.get("directory", ""), entry["file"]))
        if path not in tags:
            tag = command_tag(entry)
            if model:  # another model, other summaries
                tag = hashlib.md5((tag + (file_md5(model) or "")).encode()).hexdigest()
            tags[path] = tag
    # Entries of files no longer in the compilation database would only be
    # stale; files of another version are rewritten.
    for tu in [t for t in docs if t not in tags]:
        drop.append(os.path.join(out_dir, order.summary_file_name(tu)))
        del docs[tu]
    for path in drop:
        try:
            os.remove(path)
        except OSError:
            pass
    stale = set()
    for tu in tags:
        doc = docs.get(tu)
        if not doc or doc.get("command") != tags[tu] or not doc.get("files") or any(
                h and file_md5(f) != h for f, h in doc["files"]):
            stale.add(tu)
    defined_in, current = {}, {}
    for tu, doc in docs.items():
        for usr, h in order.entry_hashes(doc).items():
            defined_in.setdefault(usr, tu)
            current.setdefault(usr, h)
    grew = True
    while grew:
        grew = False
        for tu, doc in docs.items():
            if tu in stale:
                continue
            for usr, h in order.lookups(doc).items():
                if defined_in.get(usr) in stale or current.get(usr, "") != h:
                    stale.add(tu)
                    grew = True
                    break
    return tags, docs, stale


class UsageError(Exception):
    """Bad usage or configuration: the message, exit status 2."""


def parse_args(argv):
    """The options, and what follows `--` (more meshguard-tidy arguments)."""
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
    ap.add_argument("--source-root",
                    help="SARIF: file URIs relative to this directory (uriBaseId SRCROOT; default: "
                         "the git repository holding the current directory, else the current "
                         "directory)")
    ap.add_argument("--export-fixes", help="write the merged clang-tidy YAML here")
    ap.add_argument("-q", "--quiet", action="store_true", help="no diagnostics, only progress and summary")
    ap.add_argument("--no-summaries", action="store_true",
                    help="skip the summary pass (an existing database is still used where up to date)")
    ap.add_argument("--summaries", help="the summary database (default: BUILD/meshguard-summaries)")
    ap.add_argument("--summary-model", help="the YAML API model (ModelFile) for the summary pass")
    ap.add_argument("--summaries-only", action="store_true",
                    help="write the summaries of every file of the database (in order), check nothing")
    ap.add_argument("files", nargs="*", help="regular expressions selecting files of the database")
    args = ap.parse_args(argv)
    if args.summaries_only and (args.no_summaries or args.files):
        raise UsageError("--summaries-only writes the summaries of every file: it takes neither "
                         "--no-summaries nor file expressions")
    if args.summary_model and not os.path.isfile(args.summary_model):
        raise UsageError("--summary-model %s: no such file" % args.summary_model)
    return args, extra


def selected_files(args):
    """The compilation database and the files of it the expressions select."""
    db_path = os.path.join(args.build, "compile_commands.json")
    try:
        with open(db_path) as f:
            db = json.load(f)
    except (OSError, ValueError) as e:
        raise UsageError("cannot read %s: %s" % (db_path, e))
    files = []
    for entry in db:
        path = os.path.normpath(os.path.join(entry.get("directory", ""), entry["file"]))
        if path not in files and (not args.files or any(re.search(r, path) for r in args.files)):
            files.append(path)
    if not files:
        raise UsageError("no file of %s matches" % db_path)
    return db, files


def verify_configuration(tidy, files, config_args):
    """The configuration, verified in every directory that holds a file
    (.clang-tidy files apply per directory). clang-tidy's own --verify-config
    reports unknown checks and bad options, but only prints a .clang-tidy
    that does not parse ("Error parsing ...") and then goes on with its
    defaults: that is an error here."""
    for d in sorted({os.path.dirname(p) for p in files}):
        try:
            verify = subprocess.run([tidy, "--verify-config"] + config_args, cwd=d,
                                    stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                    errors="replace")
        except OSError as e:
            raise UsageError("cannot verify the configuration for %s: %s; nothing was run" % (d, e))
        if verify.returncode != 0 or "Error parsing" in verify.stdout:
            sys.stderr.write(verify.stdout)
            raise UsageError("the clang-tidy configuration for %s has errors (above); "
                             "nothing was run" % d)


def report_skipped_configs(tidy, files, config_args):
    """--report-skipped: the effective configuration of each directory with
    the check's ReportSkipped option set."""
    per_dir_config = {}
    for path in files:
        d = os.path.dirname(path)
        if d in per_dir_config:
            continue
        dump = subprocess.run([tidy, "--dump-config"] + config_args + [path],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              errors="replace")
        try:
            cfg = yaml.safe_load(dump.stdout) if dump.returncode == 0 else None
        except yaml.YAMLError:
            cfg = None
        if not isinstance(cfg, dict):
            raise UsageError("cannot read the configuration for %s:\n%s" % (path, dump.stderr))
        cfg.setdefault("CheckOptions", {})[SKIP_OPTION] = "true"
        per_dir_config[d] = ["-config=" + json.dumps(cfg)]
    return per_dir_config


def run_tool(cmd, job_env):
    """CompletedProcess of CMD; one that failed to start is a failure of its
    file (exit 127), not of the whole run."""
    try:
        return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              errors="replace", env=job_env)
    except OSError as e:
        return subprocess.CompletedProcess(cmd, 127, "", "meshguard-run: cannot run %s: %s\n"
                                           % (cmd[0], e))


def is_finding(diag):
    name = diag.get("DiagnosticName", "?")
    if diag.get("Level") == "Remark":
        return False
    return not (name.startswith("clang-diagnostic-") and diag.get("Level") == "Error")


class Run:
    """One meshguard-run: the files, the summary plan, the parallel runs of
    meshguard-tidy, and what they found."""

    def __init__(self, args, extra, tidy, db, files):
        self.args, self.extra, self.tidy, self.files = args, extra, tidy, files
        self.config_args = []
        if args.checks:
            self.config_args.append("-checks=" + args.checks)
        if args.config:
            self.config_args.append("-config=" + args.config)
        self.common = ["-p", args.build]
        if args.werror is not None:
            self.common.append("-warnings-as-errors=" + args.werror)
        if args.header_filter:
            self.common.append("-header-filter=" + args.header_filter)
        self.db = db
        self.per_dir_config = {}
        self.parsed = {}  # fixes file -> its diagnostics (each file read once)
        self.results = {}  # path -> (proc, fixes) of its last check run
        self.rerun, self.summary_failed = set(), set()
        self.wrote = set()  # paths whose last run wrote their summary file
        self.done = 0

    def plan_summaries(self):
        """The whole-program summaries: which files' entries may change (they
        run first, in dependency order), which unselected files need theirs
        rewritten (a helper may be in a file the expressions do not select)."""
        args = self.args
        self.summary_dir = os.path.abspath(
            args.summaries or os.path.join(args.build, "meshguard-summaries"))
        self.env = dict(os.environ)
        self.summaries = not args.no_summaries
        if self.summaries:
            try:
                os.makedirs(self.summary_dir, exist_ok=True)
            except OSError as e:
                if args.summaries_only:
                    raise UsageError("cannot create %s: %s" % (self.summary_dir, e))
                print("meshguard-run: cannot create %s: %s; no summaries" % (self.summary_dir, e),
                      file=sys.stderr)
                self.summaries = False
        self.tags, docs, self.stale, deps, self.summarise_only = {}, {}, set(), {}, []
        if self.summaries:
            self.tags, docs, self.stale = plan_summaries(self.db, self.summary_dir, args.summary_model)
            if args.summaries_only:
                self.files = []
            self.summarise_only = [tu for tu in self.tags
                                   if tu in self.stale and tu not in self.files]
            moving = [p for p in self.files + self.summarise_only if p in self.stale]
            guessed = order.lexical_dependencies(moving)
            recorded = order.database_dependencies(docs)
            deps = {p: (guessed.get(p, set()) | recorded.get(p, set())) & self.stale for p in moving}
            self.env[SUMMARY_ENV] = self.env[EXPORT_ENV] = self.summary_dir
        elif args.summaries:
            self.env[SUMMARY_ENV] = self.summary_dir
        self.only_summary = set(self.summarise_only)
        self.schedule = order.Schedule(self.files + self.summarise_only, deps, docs)
        self.names = {}  # usr -> qualified name, for the "checked again" lines
        for doc in docs.values():
            self.names.update({f.get("usr"): f.get("qname") for f in doc.get("functions") or []
                               if isinstance(f, dict)})
        self.index_of = {p: i for i, p in enumerate(self.files)}

    def run_one(self, path, attempt):
        args, t0 = self.args, time.monotonic()
        if path in self.only_summary:
            cmd = ([self.tidy, "--summarize=" + self.summary_dir, "-p", args.build,
                    "--summary-tag=" + self.tags[path]]
                   + (["--summary-model=" + args.summary_model] if args.summary_model else [])
                   + [path])
            return path, run_tool(cmd, self.env), None, time.monotonic() - t0
        fixes = os.path.join(self.tmp, "%d-%d.yaml" % (self.index_of[path], attempt))
        cmd = ([self.tidy] + self.common
               + self.per_dir_config.get(os.path.dirname(path), self.config_args)
               + ["-export-fixes=" + fixes] + self.extra + [path])
        job_env = self.env
        if self.summaries:
            job_env = dict(self.env)
            job_env[TAG_ENV] = self.tags[path]
        return path, run_tool(cmd, job_env), fixes, time.monotonic() - t0

    def diagnostics(self, fixes):
        """The diagnostics of an -export-fixes file (none when it is absent),
        or None when it cannot be read."""
        if not fixes or not os.path.exists(fixes):
            return []
        if fixes not in self.parsed:
            self.parsed[fixes] = read_diagnostics(fixes)
        return self.parsed[fixes]

    def say_again(self, paths):
        for other in paths:
            usr = self.schedule.again.get(other, "")
            print("meshguard-run: %s runs again: the summary of '%s' changed after it ran" % (
                other, self.names.get(usr) or usr), file=sys.stderr, flush=True)

    def run_all(self):
        """Runs the schedule with -j jobs; a file runs again when a helper's
        summary changes after it ran."""
        jobs = max(1, self.args.j)
        with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
            running = {}
            while True:
                while len(running) < jobs:
                    path = self.schedule.next()
                    if path is None:
                        break
                    running[pool.submit(self.run_one, path, self.schedule.runs[path])] = path
                if not running:
                    break
                finished, _ = concurrent.futures.wait(
                    running, return_when=concurrent.futures.FIRST_COMPLETED)
                for fut in finished:
                    del running[fut]
                    self.finished(*fut.result())

    def summary_doc(self, path):
        """The summary file PATH's run wrote, if it is this run's."""
        doc = order.read_summary_doc(
            os.path.join(self.summary_dir, order.summary_file_name(path)))
        if doc is None or doc.get("tu") != path or doc.get("command") != self.tags[path]:
            return None
        self.names.update({f.get("usr"): f.get("qname")
                           for f in doc.get("functions") or [] if isinstance(f, dict)})
        return doc

    def finished(self, path, proc, fixes, secs):
        doc = self.summary_doc(path) if self.summaries else None
        if doc is None:
            self.wrote.discard(path)
        else:
            self.wrote.add(path)
        again = self.schedule.done(path, doc)
        self.rerun.update(again)
        if path in self.only_summary:
            self.summary_failed.discard(path)
            if proc.returncode != 0:
                self.summary_failed.add(path)
                sys.stderr.write(proc.stderr)
                print("meshguard-run: no summaries for %s (exit %d); its functions are "
                      "unknown to the other files" % (path, proc.returncode),
                      file=sys.stderr, flush=True)
            self.say_again(again)
            return
        first = path not in self.results
        self.results[path] = (proc, fixes)
        if first:
            self.done += 1
            label = "%*d/%d" % (len(str(len(self.files))), self.done, len(self.files))
        else:
            label = "again"
        n = sum(1 for d in self.diagnostics(fixes) or [] if is_finding(d))
        status = "" if proc.returncode == 0 else " FAILED (exit %d)" % proc.returncode
        print("[%s] %6.2fs %3d finding%s %s%s" % (
            label, secs, n, " " if n == 1 else "s", path, status),
            file=sys.stderr, flush=True)
        self.say_again(again)

    def collect(self):
        """Findings by check, skipped functions by reason, failed files,
        compiler errors and the fixes files; prints each file's output."""
        findings, skipped, failed, errors = Counter(), Counter(), [], 0
        yaml_docs = []
        for path in self.files:
            proc, fixes = self.results[path]
            if fixes and os.path.exists(fixes):
                yaml_docs.append(fixes)
            diags = self.diagnostics(fixes)
            if diags is None:
                print("meshguard-run: %s: cannot read the diagnostics file meshguard-tidy wrote"
                      % path, file=sys.stderr)
                failed.append(path)
            for diag in diags or []:
                name = diag.get("DiagnosticName", "?")
                message = (diag.get("DiagnosticMessage") or {}).get("Message", "")
                if diag.get("Level") == "Remark" and SKIP_TEXT in message:
                    skipped[message.split(SKIP_TEXT, 1)[1]] += 1
                elif name.startswith("clang-diagnostic-") and diag.get("Level") == "Error":
                    errors += 1
                elif is_finding(diag):
                    findings[name] += 1
            if proc.returncode != 0 and path not in failed:
                failed.append(path)
            if not self.args.quiet or proc.returncode < 0:
                sys.stdout.write(proc.stdout)
                if proc.returncode != 0 or not self.args.quiet:
                    err = "\n".join(l for l in proc.stderr.splitlines()
                                    if not re.match(r"^(\d+ warnings? generated|Suppressed \d+ warnings|Use -header-filter)", l))
                    if err.strip():
                        sys.stderr.write(err + "\n")
        return findings, skipped, failed, errors, yaml_docs

    def print_summary_stats(self):
        summary_dir = self.summary_dir
        size = sum(os.path.getsize(os.path.join(summary_dir, n))
                   for n in os.listdir(summary_dir) if n.endswith(".json"))
        written = len([p for p in self.files + self.summarise_only
                       if p in self.stale and p in self.wrote])
        up_to_date = len([t for t in self.tags if t not in self.stale])
        print("meshguard-run: summaries: %d file%s written (%d summarised only), %d up to date, "
              "%d run again after a helper's summary changed, %d failed; database %s (%d KiB)" % (
                  written, "" if written == 1 else "s", len(self.wrote & self.only_summary),
                  up_to_date, len(self.rerun), len(self.summary_failed), summary_dir,
                  (size + 1023) // 1024), file=sys.stderr)
        for path in self.schedule.unsettled():
            print("meshguard-run: %s: the summary of a function it calls still changed after %d "
                  "runs (files whose helpers call each other?); its findings may lack what the "
                  "newest summaries say" % (path, order.MAX_RUNS), file=sys.stderr)

    def write_outputs(self, yaml_docs, failed):
        """--export-fixes and --sarif."""
        args = self.args
        if args.export_fixes:
            merged = {"MainSourceFile": "", "Diagnostics": []}
            for y in sorted(yaml_docs):
                merged["Diagnostics"] += self.diagnostics(y) or []
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
                    empty = os.path.join(self.tmp, "empty.yaml")
                    with open(empty, "w") as f:
                        f.write("Diagnostics: []\n")
                    inputs = [empty]
                r = subprocess.run([sys.executable, sarif, "-o", args.sarif,
                                    "--source-root", source_root(args.source_root)] + inputs)
                if r.returncode != 0:
                    failed.append("(sarif)")

    def execute(self):
        """Runs everything; the totals for the closing lines."""
        self.tmp = tempfile.mkdtemp(prefix="meshguard-run.")
        start = time.monotonic()
        try:
            self.run_all()
            findings, skipped, failed, errors, yaml_docs = self.collect()
            if self.summaries:
                self.print_summary_stats()
            elapsed = time.monotonic() - start
            self.write_outputs(yaml_docs, failed)
        finally:
            shutil.rmtree(self.tmp, ignore_errors=True)
        return findings, skipped, failed, errors, elapsed


def print_totals(args, files, findings, skipped, failed, errors, elapsed):
    total = sum(findings.values())
    print("meshguard-run: %d file%s in %.1f s (%d job%s, %.2f s/file), %d failed" % (
        len(files), "" if len(files) == 1 else "s", elapsed, args.j, "" if args.j == 1 else "s",
        elapsed * max(1, args.j) / max(1, len(files)), len(failed)), file=sys.stderr)
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


def main():
    try:
        args, extra = parse_args(sys.argv[1:])
        tidy = find_tool("meshguard-tidy", args.tidy)
        if not tidy:
            raise UsageError("meshguard-tidy not found (use --tidy)")
        db, files = selected_files(args)
        run = Run(args, extra, tidy, db, files)
        verify_configuration(tidy, files, run.config_args)
        if args.report_skipped:
            run.per_dir_config = report_skipped_configs(tidy, files, run.config_args)
        run.plan_summaries()
    except UsageError as e:
        print("meshguard-run: %s" % e, file=sys.stderr)
        return 2
    findings, skipped, failed, errors, elapsed = run.execute()
    print_totals(args, run.files, findings, skipped, failed, errors, elapsed)
    # A file that cannot be summarised fails --summaries-only (its whole
    # job); in a check run it only leaves that file's functions unknown.
    return 1 if failed or (args.summaries_only and run.summary_failed) else 0


if __name__ == "__main__":
    sys.exit(main())
