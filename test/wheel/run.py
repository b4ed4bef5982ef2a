#!/usr/bin/env python3
"""The wheel as a user meets it: make test's `wheel` step.

    test/wheel/run.py BUILD [--junit OUT.xml]

1. scripts/build-wheel.sh packages BUILD (nothing is compiled) into
   BUILD/wheel/dist.
2. A fresh venv (BUILD/wheel/test-venv) gets the pinned torch and pre-commit;
   its file list is taken; the wheel is installed (timed).
3. From that venv alone (PATH = the venv's bin, /usr/bin and /bin: no build
   directory; LD_LIBRARY_PATH empty), each a test case:
   version      meshguard-tidy --version names meshguard's, LLVM's and torch's versions;
                the docs' examples and CHANGELOG.md name the CMake project's version
   libraries    ldd of every ELF file of the package: everything resolves, inside
                the venv or to a library every Debian 12 has (ALLOWED); no LLVM
   headers      meshguard-tidy parses with the wheel's own clang headers
   demo         meshguard-run (with the wheel's meshguard-tidy) finds the demo's
                mistakes in examples/train.cpp, and writes SARIF
   sarif        Microsoft's SARIF Multitool (npm, pinned) validates that SARIF
                with its SARIF and GitHub rules: no error, no warning, no note
   plugin       Debian's clang-tidy-19 loads the plugin (python -m meshguard --plugin)
   consumer     a CMake project finds meshguard through meshguard.cmake_prefix_path,
                builds, and trains on 2 Gloo ranks (meshguard-launch)
   torch-mismatch-cmake   that project with another libtorch: refused at configure
   pre-commit   pre-commit try-repo with the repository's hook fails on a mistake
                and passes once meshguard-tidy --fix fixed it
   uninstall    pip uninstall meshguard leaves the venv's file list as it was
   torch-missing          without torch: import meshguard and find_package fail
                          with what to install; with another torch, import fails
Writes JUnit XML (--junit); exit status 1 when a case failed.
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
PRE_COMMIT = "pre-commit==4.2.0"
SARIF_MULTITOOL = "@microsoft/sarif-multitool@5.7.0"
# What the binaries may take from the system: libraries of every Debian 12
# (libc6, libstdc++6, libgcc-s1, zlib1g are Priority: required).
ALLOWED = {"linux-vdso.so.1", "ld-linux-x86-64.so.2", "libc.so.6", "libm.so.6", "libdl.so.2",
           "libpthread.so.0", "librt.so.1", "libresolv.so.2", "libstdc++.so.6",
           "libgcc_s.so.1", "libz.so.1"}
# The demo's mistakes (scripts/demo.sh, section 3), by check.
DEMO_CHECKS = {"dtensor-collective-without-mesh", "dtensor-mixed-tensor-op",
               "dtensor-process-group-misuse", "dtensor-rank-divergent-collective",
               "dtensor-partial-local-use"}


class Failure(Exception):
    pass


class Skip(Exception):
    pass


def run(cmd, env=None, cwd=None, check=True, timeout=600):
    p = subprocess.run(cmd, env=env, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True, timeout=timeout)
    if check and p.returncode != 0:
        raise Failure("exit %d: %s\n%s" % (p.returncode, " ".join(cmd), p.stdout[-4000:]))
    return p


def cache_value(build, name):
    with open(os.path.join(build, "CMakeCache.txt")) as f:
        for line in f:
            if line.startswith(name + ":"):
                return line.split("=", 1)[1].strip()
    return None


def file_list(venv):
    out = set()
    for d, _, files in os.walk(venv):
        for f in files:
            path = os.path.relpath(os.path.join(d, f), venv)
            # Bytecode Python writes later for modules of other packages is no
            # install's doing; meshguard's own stays in the comparison.
            if "__pycache__" in path and "meshguard" not in path:
                continue
            out.add(path)
    return out


def is_elf(path):
    with open(path, "rb") as f:
        return f.read(4) == b"\x7fELF"


class Session:
    def __init__(self, build):
        self.build = build
        self.work = os.path.join(build, "wheel")
        self.venv = os.path.join(self.work, "test-venv")
        self.version = cache_value(build, "CMAKE_PROJECT_VERSION")
        with open(os.path.join(build, "meshguardConfig.cmake")) as f:
            self.torch = re.search(r'set\(MESHGUARD_TORCH_VERSION "([^"]+)"\)', f.read()).group(1)
        self.tmp = tempfile.mkdtemp(prefix="meshguard-wheel.")
        self.env = {"PATH": os.path.join(self.venv, "bin") + ":/usr/bin:/bin",
                    "HOME": os.environ.get("HOME", self.tmp), "LD_LIBRARY_PATH": "",
                    "LANG": "C.UTF-8", "TMPDIR": self.tmp,
                    "PRE_COMMIT_HOME": os.path.join(self.work, "pre-commit-cache")}
        for keep in ("PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL", "PIP_FIND_LINKS", "PIP_CONFIG_FILE",
                     "http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY",
                     "npm_config_registry"):
            if keep in os.environ:
                self.env[keep] = os.environ[keep]
        self.python = os.path.join(self.venv, "bin", "python")
        self.wheel = None

    def site(self, venv=None):
        lib = os.path.join(venv or self.venv, "lib")
        return os.path.join(lib, [d for d in os.listdir(lib) if d.startswith("python")][0],
                            "site-packages")

    def package(self):
        return os.path.join(self.site(), "meshguard")

    # --- the cases -------------------------------------------------------

    def case_build(self):
        dist = os.path.join(self.work, "dist")
        shutil.rmtree(dist, ignore_errors=True)
        start = time.monotonic()
        run(["bash", os.path.join(ROOT, "scripts", "build-wheel.sh"), self.build, dist])
        wheels = os.listdir(dist)
        if len(wheels) != 1:
            raise Failure("expected one wheel in %s, found %s" % (dist, wheels))
        self.wheel = os.path.join(dist, wheels[0])
        m = re.match(r"meshguard-([0-9.]+)-py3-none-(manylinux_2_\d+_x86_64|linux_x86_64)\.whl$",
                     wheels[0])
        if not m or m.group(1) != self.version:
            raise Failure("wheel name %s: not meshguard-%s-py3-none-<linux tag>.whl"
                          % (wheels[0], self.version))
        return "%s, %.1f MB, made in %.0f s" % (wheels[0], os.path.getsize(self.wheel) / 1e6,
                                                time.monotonic() - start)

    def case_install(self):
        shutil.rmtree(self.venv, ignore_errors=True)
        run([sys.executable, "-m", "venv", self.venv])
        run([self.python, "-m", "pip", "install", "--disable-pip-version-check", "-q",
             "torch==%s" % self.torch, PRE_COMMIT], env=self.env)
        self.before = file_list(self.venv)
        start = time.monotonic()
        run([self.python, "-m", "pip", "install", "--disable-pip-version-check", "-q", self.wheel],
            env=self.env)
        took = time.monotonic() - start
        for tool in ("meshguard-tidy", "meshguard-clangd", "meshguard-run", "meshguard-sarif",
                     "meshguard-launch"):
            where = shutil.which(tool, path=self.env["PATH"])
            if not where or not where.startswith(self.venv):
                raise Failure("%s is not the venv's console command (found %s)" % (tool, where))
        return "pip install of the wheel beside torch %s: %.1f s" % (self.torch, took)

    def case_version(self):
        out = run(["meshguard-tidy", "--version"], env=self.env).stdout
        for want in ("meshguard %s" % self.version, "built with LLVM 19.",
                     "libtorch %s" % self.torch):
            if want not in out:
                raise Failure("meshguard-tidy --version lacks %r:\n%s" % (want, out))
        out = run([self.python, "-m", "meshguard", "--version"], env=self.env).stdout
        if "meshguard %s" % self.version not in out or self.torch not in out:
            raise Failure("python -m meshguard --version: %s" % out)
        # The docs name the same release (CMakeLists.txt's project() is the one
        # place it is set; the docs' examples must follow it).
        stale = []
        for doc in ("README.md", "docs/tools/README.md", "docs/tools/ci.md",
                    "docs/tools/pre-commit.md"):
            with open(os.path.join(ROOT, doc)) as f:
                text = f.read()
            for m in re.finditer(r"(?:meshguard-|meshguard==|rev: v|blob/v)([0-9]+\.[0-9]+\.[0-9]+)", text):
                if m.group(1) != self.version:
                    stale.append("%s: %s" % (doc, m.group(0)))
        with open(os.path.join(ROOT, "CHANGELOG.md")) as f:
            if not re.search(r"^## %s\b" % re.escape(self.version), f.read(), re.M):
                stale.append("CHANGELOG.md has no section for %s" % self.version)
        if stale:
            raise Failure("docs name another version than %s:\n%s" % (self.version, "\n".join(stale)))
        return out.strip()

    def case_libraries(self):
        # The package's programs and libraries; what auditwheel copied into
        # meshguard.libs is loaded through them (their RPATHs), so it is
        # checked as what they resolve.
        site = self.site()
        files = []
        for d, _, names in os.walk(self.package()):
            files += [os.path.join(d, n) for n in names if is_elf(os.path.join(d, n))]
        if len(files) < 5:
            raise Failure("only %d ELF files in the package" % len(files))
        problems, system = [], set()
        for path in files:
            out = run(["ldd", path], env=self.env, check=False).stdout
            for line in out.splitlines():
                line = line.strip()
                if line == "statically linked":
                    continue
                if "not found" in line or "llvm" in line.lower() or "clang" in line.lower():
                    problems.append("%s: %s" % (os.path.relpath(path, site), line))
                    continue
                m = re.match(r"(\S+)(?: => (\S+))?", line)
                name, target = m.group(1), m.group(2) or m.group(1)
                if target.startswith(site):
                    continue
                if os.path.basename(name) not in ALLOWED:
                    problems.append("%s needs %s from the system" % (os.path.relpath(path, site), line))
                system.add(os.path.basename(name))
        if problems:
            raise Failure("\n".join(problems))
        return "%d ELF files; from the system only %s" % (len(files), " ".join(sorted(system)))

    def case_headers(self):
        src = os.path.join(self.tmp, "headers.cpp")
        with open(src, "w") as f:
            f.write("#include <stddef.h>\n#include <stdarg.h>\n#include <immintrin.h>\n"
                    "size_t n(va_list) { return sizeof(__m128); }\n")
        out = run(["meshguard-tidy", "--checks=-*,dtensor-*", src, "--", "-v"], env=self.env).stdout
        own = os.path.join(self.package(), "lib", "clang")
        dirs = [l.strip() for l in out.splitlines() if l.startswith(" /")]
        if not any(d.startswith(own) for d in dirs) or any("/usr/lib/llvm" in d for d in dirs):
            raise Failure("include search path is not the wheel's clang headers:\n%s" % out)
        return "builtin headers from %s" % own

    def case_demo(self):
        with open(os.path.join(self.build, "compile_commands.json")) as f:
            db = [e for e in json.load(f) if e["file"].endswith("examples/train.cpp")]
        if not db:
            raise Failure("examples/train.cpp is not in the build's compile_commands.json")
        dbdir = os.path.join(self.tmp, "db")
        os.makedirs(dbdir)
        with open(os.path.join(dbdir, "compile_commands.json"), "w") as f:
            json.dump(db[:1], f)
        self.sarif = os.path.join(self.tmp, "demo.sarif")
        fixes = os.path.join(self.tmp, "demo.yaml")
        run(["meshguard-run", "-p", dbdir, "--no-summaries", "--checks=-*,dtensor-*",
             "--export-fixes", fixes, "--sarif", self.sarif],
            env=self.env, cwd=ROOT)
        import yaml  # noqa: E402  (the build's Python has it: meshguard-sarif needs it)
        with open(fixes) as f:
            diags = yaml.safe_load(f)["Diagnostics"] or []
        found = {d["DiagnosticName"] for d in diags}
        if not DEMO_CHECKS <= found:
            raise Failure("missing findings of %s (found %s)" % (sorted(DEMO_CHECKS - found),
                                                                   sorted(found)))
        with open(self.sarif) as f:
            log = json.load(f)
        uris = {l["physicalLocation"]["artifactLocation"].get("uri")
                for r in log["runs"][0]["results"] for l in r.get("locations", [])}
        if uris != {"examples/train.cpp"}:
            raise Failure("SARIF locations are not repository-relative: %s" % uris)
        return "%d findings of %d checks in examples/train.cpp" % (len(diags), len(found))

    def case_sarif(self):
        tool_dir = os.path.join(self.work, "sarif-multitool")
        exe = os.path.join(tool_dir, "node_modules", ".bin", "sarif-multitool")
        if not os.path.exists(exe):
            if not shutil.which("npm"):
                raise Failure("npm is missing (scripts/bootstrap.sh installs nodejs and npm)")
            os.makedirs(tool_dir, exist_ok=True)
            run(["npm", "install", "--no-audit", "--no-fund", "--prefix", tool_dir, SARIF_MULTITOOL],
                env=dict(os.environ))
        # Its package's postinstall (chmod u+x) does not run where npm blocks
        # install scripts.
        native = os.path.join(tool_dir, "node_modules", "@microsoft", "sarif-multitool-linux",
                              "Sarif.Multitool")
        if os.path.exists(native):
            os.chmod(native, 0o755)
        summary = []
        for kind in ("Sarif", "Gh"):
            out = os.path.join(self.tmp, "validation-%s.sarif" % kind)
            p = run([exe, "validate", self.sarif, "-o", out, "--rule-kind", kind,
                     "--log", "ForceOverwrite"], env=dict(os.environ, DOTNET_CLI_TELEMETRY_OPTOUT="1"),
                    check=False)
            if not os.path.exists(out):
                raise Failure("the validator wrote no log (exit %d):\n%s" % (p.returncode, p.stdout))
            with open(out) as f:
                results = json.load(f)["runs"][0].get("results", [])
            if results:
                raise Failure("--rule-kind %s: %s" % (kind, "\n".join(
                    "%s %s: %s" % (r.get("level", "warning"), r["ruleId"],
                                   r["message"].get("text", r["message"].get("arguments")))
                    for r in results)))
            summary.append("%s rules: 0 results" % kind)
        return "SARIF Multitool 5.7.0 on meshguard-run --sarif: " + ", ".join(summary)

    def case_plugin(self):
        plugin = run([self.python, "-m", "meshguard", "--plugin"], env=self.env).stdout.strip()
        if not plugin.startswith(self.package()):
            raise Failure("python -m meshguard --plugin printed %s" % plugin)
        out = run(["clang-tidy-19", "-load", plugin, "--checks=-*,dtensor-*", "--list-checks"],
                  env=self.env).stdout
        listed = set(re.findall(r"^\s+(dtensor-[a-z-]+)$", out, re.M))
        pages = {n[:-3] for n in os.listdir(os.path.join(ROOT, "docs", "checks"))
                 if n.startswith("dtensor-") and n.endswith(".md")}
        if not pages or listed != pages:
            raise Failure("clang-tidy-19 lists %s, docs/checks has %s" % (sorted(listed), sorted(pages)))
        return "clang-tidy-19 lists the %d dtensor checks" % len(listed)

    def consumer_configure(self, prefix, build_dir, extra=()):
        return run(["cmake", "-S", os.path.join(ROOT, "test", "wheel", "consumer"), "-B", build_dir,
                    "-G", "Ninja", "-DCMAKE_BUILD_TYPE=Release", "-DCMAKE_PREFIX_PATH=" + prefix]
                   + list(extra), env=self.env, check=False)

    def case_consumer(self):
        prefix = run([self.python, "-c", "import meshguard; print(meshguard.cmake_prefix_path)"],
                     env=self.env).stdout.strip()
        build_dir = os.path.join(self.tmp, "consumer")
        p = self.consumer_configure(prefix, build_dir)
        if p.returncode != 0:
            raise Failure("configure failed:\n%s" % p.stdout[-4000:])
        run(["cmake", "--build", build_dir], env=self.env)
        out = run(["meshguard-launch", "--nproc", "2", "--timeout", "120", "--",
                   os.path.join(build_dir, "consumer")], env=self.env).stdout
        losses = {}
        for rank, step, loss in re.findall(r"rank (\d) step (\d+) loss ([0-9.e+-]+)", out):
            losses.setdefault(int(rank), []).append(float(loss))
        if sorted(losses) != [0, 1] or any(len(v) != 5 for v in losses.values()):
            raise Failure("expected 5 steps on ranks 0 and 1:\n%s" % out)
        if losses[0] != losses[1] or not losses[0][-1] < losses[0][0]:
            raise Failure("losses differ across ranks or do not fall: %s" % losses)
        return "2 Gloo ranks, loss %.4f -> %.4f, equal on both" % (losses[0][0], losses[0][-1])

    def case_torch_mismatch_cmake(self):
        other = "/usr/lib/x86_64-linux-gnu/cmake/Torch"
        if not os.path.exists(os.path.join(other, "TorchConfig.cmake")):
            raise Skip("Debian's libtorch (libtorch-dev, another libtorch) is not installed")
        prefix = os.path.join(self.package(), "lib", "cmake")
        p = self.consumer_configure(prefix, os.path.join(self.tmp, "mismatch"),
                                    ["-DCONSUMER_TORCH_DIR=" + other])
        want = "meshguard was built against libtorch %s (the meshguard wheel needs torch==%s)" % (
            self.torch, self.torch)
        text = " ".join(p.stdout.split())
        if p.returncode == 0 or want not in text:
            raise Failure("configure with Debian's libtorch (exit %d) did not say %r:\n%s"
                          % (p.returncode, want, p.stdout[-3000:]))
        return "refused: " + want

    def case_pre_commit(self):
        hooks = os.path.join(self.tmp, "hooks")
        os.makedirs(hooks)
        shutil.copy(os.path.join(ROOT, ".pre-commit-hooks.yaml"), hooks)
        git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "init.defaultBranch=main",
               "-c", "commit.gpgsign=false"]
        run(git + ["init", "-q"], cwd=hooks)
        run(git + ["add", "."], cwd=hooks)
        run(git + ["commit", "-q", "-m", "hooks"], cwd=hooks)
        repo = os.path.join(self.tmp, "sample")
        os.makedirs(os.path.join(repo, "build"))
        shutil.copy(os.path.join(ROOT, "test", "tools", "Inputs", "fixable.cpp"),
                    os.path.join(repo, "train.cpp"))
        stubs = os.path.join(ROOT, "test", "Inputs", "stubs")
        with open(os.path.join(repo, "build", "compile_commands.json"), "w") as f:
            json.dump([{"directory": repo, "file": "train.cpp",
                        "command": "c++ -std=c++17 -I%s -c train.cpp" % stubs}], f)
        run(git + ["init", "-q"], cwd=repo)
        run(git + ["add", "train.cpp"], cwd=repo)
        try_repo = ["pre-commit", "try-repo", hooks, "meshguard-tidy", "--all-files"]
        p = run(try_repo, env=self.env, cwd=repo, check=False)
        if p.returncode == 0 or "dtensor-collective-without-mesh" not in p.stdout:
            raise Failure("the hook passed a file with a mistake (exit %d):\n%s"
                          % (p.returncode, p.stdout))
        run(["meshguard-tidy", "-p", "build", "--checks=-*,dtensor-*", "--fix", "train.cpp"],
            env=self.env, cwd=repo)
        run(git + ["add", "train.cpp"], cwd=repo)
        p = run(try_repo, env=self.env, cwd=repo, check=False)
        if p.returncode != 0:
            raise Failure("the hook failed on the fixed file:\n%s" % p.stdout)
        return "%s: fails on the mistake, passes once fixed" % PRE_COMMIT

    def case_uninstall(self):
        run([self.python, "-m", "pip", "uninstall", "-y", "-q", "meshguard"], env=self.env)
        after = file_list(self.venv)
        added, removed = sorted(after - self.before), sorted(self.before - after)
        if added or removed:
            raise Failure("left behind: %s\nremoved: %s" % (added[:20], removed[:20]))
        return "%d files, as before the install" % len(after)

    def case_torch_missing(self):
        venv = os.path.join(self.work, "no-torch-venv")
        shutil.rmtree(venv, ignore_errors=True)
        run([sys.executable, "-m", "venv", venv])
        python = os.path.join(venv, "bin", "python")
        run([python, "-m", "pip", "install", "--disable-pip-version-check", "-q", "--no-deps",
             self.wheel], env=self.env)
        p = run([python, "-c", "import meshguard"], env=self.env, check=False)
        want = "has no torch package: pip install torch==%s" % self.torch
        if p.returncode == 0 or want not in p.stdout:
            raise Failure("import meshguard without torch (exit %d): %s" % (p.returncode, p.stdout))
        prefix = os.path.join(self.site(venv), "meshguard", "lib", "cmake")
        c = self.consumer_configure(prefix, os.path.join(self.tmp, "no-torch"))
        text = " ".join(c.stdout.split())
        if c.returncode == 0 or "has no torch package: pip install torch==%s" % self.torch not in text:
            raise Failure("configure without torch (exit %d):\n%s" % (c.returncode, c.stdout[-3000:]))
        # Another torch (its metadata is what import meshguard reads).
        info = os.path.join(self.site(venv), "torch-2.12.0.dist-info")
        os.makedirs(info)
        with open(os.path.join(info, "METADATA"), "w") as f:
            f.write("Metadata-Version: 2.1\nName: torch\nVersion: 2.12.0\n")
        p = run([python, "-c", "import meshguard"], env=self.env, check=False)
        want2 = "meshguard %s was built for PyTorch %s, but this Python environment has torch 2.12.0" % (
            self.version, self.torch)
        if p.returncode == 0 or want2 not in p.stdout:
            raise Failure("import meshguard with torch 2.12.0 (exit %d): %s" % (p.returncode, p.stdout))
        shutil.rmtree(venv, ignore_errors=True)
        return "import and configure say %r; torch 2.12.0 is refused at import" % want

    CASES = ["build", "install", "version", "libraries", "headers", "demo", "sarif", "plugin",
             "consumer", "torch_mismatch_cmake", "pre_commit", "uninstall", "torch_missing"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("build")
    ap.add_argument("--junit")
    ap.add_argument("--only", action="append", help="run these cases (after build and install)")
    args = ap.parse_args()
    build = os.path.abspath(args.build)
    session = Session(build)
    suite = ET.Element("testsuite", name="wheel")
    failed = 0
    broken = False
    for name in Session.CASES:
        if args.only and name not in args.only and name not in ("build", "install"):
            continue
        case = ET.SubElement(suite, "testcase", classname="wheel", name=name.replace("_", "-"))
        if broken:
            ET.SubElement(case, "skipped", message="the wheel was not built or installed")
            print("SKIP: wheel.%s" % name, flush=True)
            continue
        start = time.monotonic()
        try:
            note = getattr(session, "case_" + name)()
            print("PASS: wheel.%s (%.1f s): %s" % (name, time.monotonic() - start, note), flush=True)
        except Skip as e:
            ET.SubElement(case, "skipped", message=str(e))
            print("SKIP: wheel.%s: %s" % (name, e), flush=True)
        except (Failure, subprocess.TimeoutExpired, OSError, KeyError, ValueError) as e:
            failed += 1
            ET.SubElement(case, "failure", message=str(e)[:200]).text = str(e)
            print("FAIL: wheel.%s (%.1f s): %s" % (name, time.monotonic() - start, e), flush=True)
            if name in ("build", "install"):
                broken = True
        case.set("time", "%.1f" % (time.monotonic() - start))
    shutil.rmtree(session.tmp, ignore_errors=True)
    if args.junit:
        ET.ElementTree(suite).write(args.junit)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
