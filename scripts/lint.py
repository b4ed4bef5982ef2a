#!/usr/bin/env python3
"""clang-tidy over every meshguard source, with results cached in the repository.

    scripts/lint.py --check  [BUILD] [FILE...]   lint what the manifest lacks; a finding fails
    scripts/lint.py --update [BUILD] [FILE...]   the same, and record each clean file
    scripts/lint.py --keys   [BUILD] [FILE...]   print each file's key and whether it is recorded

Which files: every tracked .cpp in the compile database (BUILD/compile_commands.json)
under lib/, tool/, unittests/, test/runtime/, test/conformance/, test/oracle/ and bench/
(examples/ is users' code, linted by meshguard's own checks; lit inputs and the corpora
are not in the compile database). Headers are linted through the files that include
them (each configuration's HeaderFilterRegex).

Which configuration: the analysis, tidy and tool sources (and the unit tests) use the
.clang-tidy files clang-tidy finds above them (LLVM style); the runtime and the code
written against libtorch (its tests, conformance sides, benchmarks) use
lib/runtime/.clang-tidy, passed with --config-file (RUNTIME_STYLE below).

Why a manifest: CI runs `make test` on a clean clone, 2 cores, and a runtime file takes
20-30 s to lint (it parses libtorch's headers), an analysis file 10-30 s: ~200 files are
about an hour. So the cache travels with the repository: scripts/lint-manifest.txt holds,
for each file that was clean, the key of what clang-tidy saw:
  - the file and every project header it includes, transitively (quoted and angled
    includes resolved against the command's -I/-isystem directories inside the checkout
    or the build directory; every #include line counts, conditional or not, so the set
    is a superset), with the checkout and build paths replaced by placeholders;
  - the compile command (less -o/-c and the file), normalised the same way;
  - the clang-tidy configuration that applies (every .clang-tidy from the file's folder
    up, or the --config-file) and this script's extra arguments;
  - the toolchain: clang-tidy's --version, the libstdc++ versions installed, and the
    version headers of the libraries outside the checkout (libtorch's torch/version.h,
    LLVM's llvm-config.h): a new libtorch or LLVM relints everything.
A file whose key is recorded costs a hash; any other is linted (--check) and a finding
fails. `make lint` (--update) lints what is missing and rewrites the manifest: entries
of clean files are recorded, those of files with findings, gone or stale are dropped.
"""

import argparse
import concurrent.futures
import hashlib
import json
import os
import re
import shlex
import subprocess
import sys
import time

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
MANIFEST = os.path.join(ROOT, "scripts", "lint-manifest.txt")
# Files with findings not fixed yet (the first full lint of the runtime found
# them): --check skips them and names how many, so that the debt shows in every
# make test without failing it; --update lints them and drops each one found
# clean. A file leaves this list only by being fixed; none may be added to it
# to get a change through.
PENDING = os.path.join(ROOT, "scripts", "lint-pending.txt")
CLANG_TIDY = "clang-tidy-19"
# The runtime's configuration, for every file under these folders.
RUNTIME_CONFIG = "lib/runtime/.clang-tidy"
RUNTIME_STYLE = ("lib/runtime/", "test/runtime/", "test/conformance/", "test/oracle/", "bench/")
LINTED = ("lib/", "tool/", "unittests/") + RUNTIME_STYLE
# The runtime's CMake precompiled header is GCC's; clang ignores it (and parses
# the header itself) but warns, which WarningsAsErrors would make an error.
EXTRA_ARGS = ["-extra-arg=-Wno-ignored-gch"]
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]', re.M)


def sha(data):
    return hashlib.sha256(data).hexdigest()


class Keys:
    """Computes each file's key (see the module's docstring)."""

    def __init__(self, build):
        self.build = build
        self.headers = {}  # path -> (normalised hash, [(kind, name)])
        self.toolchain = self._toolchain()

    def normalise(self, text):
        return text.replace(self.build, "@BUILD@").replace(ROOT, "@ROOT@")

    def _toolchain(self):
        parts = [subprocess.run([CLANG_TIDY, "--version"], capture_output=True,
                                text=True).stdout]
        parts += sorted(os.listdir("/usr/include/c++")) if os.path.isdir("/usr/include/c++") else []
        return "\n".join(parts)

    def _scan(self, path):
        if path not in self.headers:
            with open(path, "rb") as f:
                data = f.read().decode("utf-8", "replace")
            self.headers[path] = (sha(self.normalise(data).encode()),
                                  INCLUDE.findall(data))
        return self.headers[path]

    def _inside(self, path):
        """Whether path is the project's: the build directory's (generated headers)
        or the checkout's, less the virtual environments that hold libtorch."""
        if path.startswith(self.build + os.sep):
            return True
        return path.startswith(ROOT + os.sep) and not \
            os.path.relpath(path, ROOT).startswith(".venv")

    def key(self, entry, config_files):
        args = shlex.split(entry["command"])
        directory = entry["directory"]
        source = os.path.normpath(os.path.join(directory, entry["file"]))
        quote, angled, forced, kept = [], [], [], []
        skip = False
        for i, a in enumerate(args):
            if skip:
                skip = False
                continue
            if a in ("-o", "-c"):
                skip = a == "-o"
                continue
            if os.path.normpath(os.path.join(directory, a)) == source:
                continue
            kept.append(a)
            for flag, into in (("-iquote", quote), ("-I", angled), ("-isystem", angled),
                               ("-include", forced)):
                if a == flag and i + 1 < len(args):
                    value = args[i + 1]
                elif a.startswith(flag) and a != flag and flag != "-include":
                    value = a[len(flag):]
                else:
                    continue
                into.append(os.path.normpath(os.path.join(directory, value)))
        search = [d for d in quote + angled if self._inside(d)]
        external = [d for d in angled if not self._inside(d)]
        # Every project file the TU can see, found by following #include lines.
        seen, todo = {}, [source] + [f for f in forced if os.path.isfile(f)]
        while todo:
            path = todo.pop()
            if path in seen:
                continue
            digest, includes = self._scan(path)
            seen[path] = digest
            for kind, name in includes:
                dirs = ([os.path.dirname(path)] if kind == '"' else []) + search
                for d in dirs:
                    candidate = os.path.normpath(os.path.join(d, name))
                    if os.path.isfile(candidate):
                        if self._inside(candidate):
                            todo.append(candidate)
                        break
        h = hashlib.sha256()
        h.update(self.toolchain.encode())
        h.update(" ".join(EXTRA_ARGS).encode())
        h.update(self.normalise(" ".join(kept)).encode())
        for d in external:  # the libraries' versions
            for version in ("torch/version.h", "llvm/Config/llvm-config.h"):
                if os.path.isfile(os.path.join(d, version)):
                    h.update(self._scan(os.path.join(d, version))[0].encode())
        for c in config_files:
            with open(c, "rb") as f:
                h.update(self.normalise(os.path.relpath(c, ROOT)).encode() + f.read())
        for path in sorted(seen, key=self.normalise):
            h.update(self.normalise(path).encode() + seen[path].encode())
        return h.hexdigest()


def config_files(rel):
    """The configuration clang-tidy reads for ROOT/rel, and its --config-file argument."""
    if rel.startswith(RUNTIME_STYLE):
        path = os.path.join(ROOT, RUNTIME_CONFIG)
        return [path], ["--config-file=" + path]
    found, d = [], os.path.dirname(os.path.join(ROOT, rel))
    while True:
        if os.path.isfile(os.path.join(d, ".clang-tidy")):
            found.append(os.path.join(d, ".clang-tidy"))
        if d == ROOT:
            return found, []
        d = os.path.dirname(d)


def read_manifest():
    entries = {}
    if os.path.exists(MANIFEST):
        for line in open(MANIFEST):
            if line.strip() and not line.startswith("#"):
                key, rel = line.split()
                entries[rel] = key
    return entries


def read_pending():
    if not os.path.exists(PENDING):
        return set()
    return {l.strip() for l in open(PENDING) if l.strip() and not l.startswith("#")}


def write_pending(pending):
    with open(PENDING, "w") as f:
        f.write("# Files whose lint findings are not fixed yet; see PENDING in scripts/lint.py.\n")
        for rel in sorted(pending):
            f.write(rel + "\n")


def write_manifest(entries):
    with open(MANIFEST, "w") as f:
        f.write("# scripts/lint.py's cache: the key of each file clang-tidy found clean.\n"
                "# Written by `make lint` (scripts/lint.py --update); do not edit.\n")
        for rel in sorted(entries):
            f.write("%s %s\n" % (entries[rel], rel))


def lint(build, rel, extra):
    """Runs clang-tidy on one file; returns (rel, clean, output, seconds)."""
    start = time.time()
    command = [CLANG_TIDY, "-p", build, "-quiet"] + EXTRA_ARGS + extra + [os.path.join(ROOT, rel)]
    run = subprocess.run(command, capture_output=True, text=True, cwd=ROOT)
    # "N warnings generated." counts the headers' suppressed warnings too: noise.
    output = "\n".join(l for l in (run.stdout + run.stderr).splitlines()
                       if not re.match(r"^\d+ warnings? (and \d+ errors? )?generated\.$", l))
    return rel, run.returncode == 0, output, time.time() - start


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--check", action="store_true")
    mode.add_argument("--update", action="store_true")
    mode.add_argument("--keys", action="store_true")
    parser.add_argument("--all", action="store_true", help="ignore the manifest: lint every file")
    parser.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("build", nargs="?", default="build")
    parser.add_argument("files", nargs="*", help="only these (paths from the checkout)")
    args = parser.parse_intermixed_args()
    build = os.path.realpath(args.build)
    database = os.path.join(build, "compile_commands.json")
    if not os.path.exists(database):
        print("lint: no %s; run 'make build' first" % database, file=sys.stderr)
        return 2
    tracked = set(subprocess.run(["git", "-C", ROOT, "ls-files", "*.cpp"], capture_output=True,
                                 text=True, check=True).stdout.split())
    entries = {}
    for entry in json.load(open(database)):
        path = os.path.normpath(os.path.join(entry["directory"], entry["file"]))
        rel = os.path.relpath(path, ROOT)
        if rel in tracked and rel.startswith(LINTED):
            entries[rel] = entry
    wanted = [os.path.relpath(os.path.abspath(f), ROOT) for f in args.files] or sorted(entries)
    missing = [f for f in wanted if f not in entries]
    if missing:
        print("lint: not in the compile database: %s" % " ".join(missing), file=sys.stderr)
        return 2
    start = time.time()
    keys, manifest, pending = Keys(build), read_manifest(), read_pending()
    todo, hits, computed, skipped = [], 0, {}, []
    for rel in wanted:
        configs, extra = config_files(rel)
        computed[rel] = keys.key(entries[rel], configs)
        if args.keys:
            print("%s %s %s" % (computed[rel], "recorded" if manifest.get(rel) == computed[rel]
                                else "missing", rel))
        elif manifest.get(rel) == computed[rel] and not args.all:
            hits += 1
        elif args.check and rel in pending:
            skipped.append(rel)
        else:
            todo.append((rel, extra))
    if args.keys:
        return 0
    print("lint: %d files, %d recorded clean in the manifest (%.1f s), %d to lint" %
          (len(wanted), hits, time.time() - start, len(todo)), flush=True)
    if skipped:
        print("lint: %d files skipped with known findings not fixed yet (scripts/lint-pending.txt)"
              % len(skipped), flush=True)
    failed = []
    with concurrent.futures.ThreadPoolExecutor(max(1, args.jobs)) as pool:
        futures = [pool.submit(lint, build, rel, extra) for rel, extra in todo]
        for n, future in enumerate(concurrent.futures.as_completed(futures), 1):
            rel, clean, output, seconds = future.result()
            print("lint: [%d/%d] %s %s (%.0f s)" % (n, len(todo), rel,
                                                   "clean" if clean else "FINDINGS", seconds),
                  flush=True)
            if clean:
                manifest[rel] = computed[rel]
                if args.update and rel in pending:
                    pending.discard(rel)
                    write_pending(pending)
            else:
                failed.append(rel)
                manifest.pop(rel, None)
                print(output, flush=True)
            if args.update:  # after each file: an interrupted run keeps what it did
                write_manifest(manifest)
    if args.update:  # forget the files that are gone and the keys that are stale
        for rel in entries:
            if rel not in computed:
                computed[rel] = keys.key(entries[rel], config_files(rel)[0])
        write_manifest({rel: key for rel, key in manifest.items() if computed.get(rel) == key})
    print("lint: %d files, %d linted in %.0f s, %d with findings%s" %
          (len(wanted), len(todo), time.time() - start, len(failed),
           "" if not failed else ": " + " ".join(failed)))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
