#!/usr/bin/env python3
"""Checks the lit tests' stub headers against the real meshguard headers.

    scripts/check-stubs.py BUILD_DIR

The check tests run on small stubs (test/Inputs/stubs/meshguard/...), which
must spell the runtime's API as include/meshguard/ does: a stub that drifts
(a parameter added, moved or retyped in the runtime) would let the checks
pass their tests against an API that no longer exists. clang-19 parses a TU
of the stubs and one of the real headers (with the runtime's own compile
flags from BUILD_DIR/compile_commands.json) and compares every function,
method and constructor the stubs declare in namespace meshguard: the real
headers must declare it with the same qualified name and the same parameter
types, where the real one may add trailing parameters with defaults (the
CallSite every entry point takes). A deliberate difference is listed in
ALLOWED, with its reason.
Exits 1 on a difference, 2 when it cannot run.
"""
import json
import os
import re
import shlex
import shutil
import subprocess
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
STUBS = os.path.join(ROOT, "test", "Inputs", "stubs")
HEADERS = ["meshguard/meshguard.h", "meshguard/runtime/Factories.h",
           "meshguard/runtime/Parallelize.h", "meshguard/runtime/Checkpoint.h"]
# Stub declarations that differ on purpose.
ALLOWED = {
    # The tests make meshes without process groups; the checks never look
    # at the constructor's parameters.
    "meshguard::DeviceMesh::DeviceMesh(std::string,std::vector<long>)",
}


def clang():
    for name in ("clang++-19", "/usr/lib/llvm-19/bin/clang++"):
        path = shutil.which(name)
        if path:
            return path
    sys.exit("check-stubs: clang++-19 not found (make bootstrap installs it)")


def runtime_flags(build):
    db = os.path.join(build, "compile_commands.json")
    if not os.path.exists(db):
        sys.exit("check-stubs: no %s; run 'make build' first" % db)
    for entry in json.load(open(db)):
        if entry["file"].endswith(os.path.join("lib", "runtime", "DTensor.cpp")):
            args = entry.get("arguments") or shlex.split(entry["command"])
            keep, it = [], iter(args[1:])
            for a in it:
                if a in ("-isystem", "-I"):
                    keep += [a, next(it)]
                elif a.startswith(("-I", "-D", "-std=")):
                    keep.append(a)
            return keep
    sys.exit("check-stubs: lib/runtime/DTensor.cpp is not in %s" % db)


def declarations(flags):
    """Qualified name -> list of parameter type lists, for every function
    the TU declares in namespace meshguard (not in detail namespaces)."""
    source = "".join("#include <%s>\n" % h for h in HEADERS)
    cmd = [clang(), "-x", "c++", "-fsyntax-only", "-w", "-Xclang", "-ast-dump=json",
           "-Xclang", "-ast-dump-filter=meshguard"] + flags + ["-"]
    out = subprocess.run(cmd, input=source, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit("check-stubs: clang could not parse the headers:\n" + out.stderr[-3000:])
    decls = {}
    dec = json.JSONDecoder()
    text, pos = out.stdout, 0
    while True:
        m = re.compile(r"\S").search(text, pos)
        if not m:
            break
        node, pos = dec.raw_decode(text, m.start())
        walk(node, [], decls)
    return decls


def walk(node, scope, decls):
    kind = node.get("kind")
    name = node.get("name")
    if node.get("isImplicit"):
        return
    if kind == "NamespaceDecl":
        if name in ("detail", "compat", "internal"):
            return
        scope = scope + [name]
    elif kind in ("CXXRecordDecl", "ClassTemplateDecl") and name:
        scope = scope + [name]
    elif kind in ("FunctionDecl", "CXXMethodDecl", "CXXConstructorDecl"):
        if not scope or scope[0] != "meshguard":
            return
        params = [(normal(p.get("type", {})), "init" in p) for p in node.get("inner", [])
                  if p.get("kind") == "ParmVarDecl"]
        decls.setdefault("::".join(scope + [name]), []).append(params)
        return
    for child in node.get("inner", []):
        walk(child, scope, decls)


def normal(t):
    text = t.get("desugaredQualType") or t.get("qualType", "")
    text = re.sub(r"\b(class|struct|enum)\s+", "", text)
    text = text.replace("std::__cxx11::", "std::").replace("std::basic_string<char>", "std::string")
    # at::Tensor is c10's TensorOptions, Scalar, ... by another name.
    text = re.sub(r"\b(meshguard|at|c10)::", "", text)
    text = re.sub(r",\s*std::allocator<[^<>]*(<[^<>]*>)?[^<>]*>", "", text)
    return re.sub(r"\s+", "", text)


def matches(stub_types, real_params):
    """The stub's parameters are the real one's first ones; the real one's
    others have defaults."""
    n = len(stub_types)
    return (len(real_params) >= n and [t for t, _ in real_params[:n]] == stub_types
            and all(has_default for _, has_default in real_params[n:]))


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: scripts/check-stubs.py BUILD_DIR")
    build = sys.argv[1]
    real = declarations(runtime_flags(build) + ["-I", os.path.join(ROOT, "include")])
    stub = declarations(["-std=c++17", "-I", STUBS])
    problems = []
    checked = 0
    for name, overloads in sorted(stub.items()):
        for params in overloads:
            types = [t for t, _ in params]
            key = "%s(%s)" % (name, ",".join(types))
            checked += 1
            if key in ALLOWED:
                continue
            if name not in real:
                problems.append("%s: the real headers declare no '%s'" % (key, name))
            elif not any(matches(types, r) for r in real[name]):
                problems.append("%s: the real headers declare it as %s" % (key, " or ".join(
                    "(%s)" % ",".join(t for t, _ in r) for r in real[name])))
    for p in problems:
        print("check-stubs: " + p)
    print("check-stubs: %d stub declaration(s) checked against include/meshguard, %d differ"
          % (checked, len(problems)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
