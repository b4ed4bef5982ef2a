#!/usr/bin/env python3
"""Convert clang-tidy -export-fixes YAML to SARIF 2.1.0.

    meshguard-tidy -export-fixes=fixes.yaml -p build src/*.cpp
    meshguard-sarif fixes.yaml -o meshguard.sarif [--source-root .]

Every diagnostic of the YAML (findings with and without fix-its, compiler
errors) becomes a SARIF result: ruleId = the check name, level from the
diagnostic level, the location as line/column (1-based, columns in Unicode
code points), the check's notes as relatedLocations, and its fix-its (and
those of its notes) as SARIF fixes with byte-exact deletedRegions. The run's
tool.driver.rules hold one reportingDescriptor per check seen, with a
description and a help URI. With --source-root, paths under it become
relative URIs against the uriBaseId SRCROOT (what code-scanning services such
as GitHub's expect); other paths stay absolute file URIs.

Several YAML files (e.g. one per translation unit) may be given; duplicate
diagnostics (a header seen from several TUs) are reported once.
Exit status: 0 written; 1 unreadable or malformed input.
"""

import argparse
import json
import os
import sys
import urllib.request

try:
    import yaml
except ImportError:  # pragma: no cover
    sys.stderr.write("meshguard-sarif: needs PyYAML (apt install python3-yaml)\n")
    sys.exit(1)

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
LEVELS = {"Warning": "warning", "Error": "error", "Remark": "note"}

# Descriptions of meshguard's own checks; upstream checks get clang-tidy's
# documentation page as their help URI.
MESHGUARD_RULES = {
    "dtensor-collective-without-mesh": (
        "Mesh-inferred collective with no DTensor argument",
        "A mesh-inferred collective (meshguard::dist::broadcast_, all_reduce_, ...) "
        "whose tensor arguments are all plain tensors on every path: DTensor finds "
        "no DeviceMesh and the call fails at run time with 'found no DeviceMesh "
        "from dtensor args for c10d.<op>.default'. Make one argument a DTensor "
        "(distribute_tensor / from_local) or use the guarded:: collective that "
        "takes the mesh.",
        "docs/checks/dtensor-collective-without-mesh.md"),
}


class InputError(Exception):
    pass


class Sources:
    """Maps byte offsets of files to SARIF line/column."""

    def __init__(self):
        self.cache = {}

    def lines(self, path):
        if path not in self.cache:
            try:
                with open(path, "rb") as f:
                    data = f.read()
            except OSError:
                data = None
            self.cache[path] = data
        return self.cache[path]

    def position(self, path, offset):
        data = self.lines(path)
        if data is None or offset is None:
            return None
        offset = max(0, min(offset, len(data)))
        line_start = data.rfind(b"\n", 0, offset) + 1
        line = data.count(b"\n", 0, offset) + 1
        column = len(data[line_start:offset].decode("utf-8", "replace")) + 1
        return line, column

    def snippet(self, path, offset):
        data = self.lines(path)
        if data is None or offset is None:
            return None
        start = data.rfind(b"\n", 0, offset) + 1
        end = data.find(b"\n", offset)
        if end < 0:
            end = len(data)
        return data[start:end].decode("utf-8", "replace")


def rule_descriptor(name, docs_base):
    if name in MESHGUARD_RULES:
        short, full, doc = MESHGUARD_RULES[name]
        rule = {"id": name, "name": name,
                "shortDescription": {"text": short},
                "fullDescription": {"text": full},
                "help": {"text": full + " See " + doc + "."},
                "properties": {"tags": ["correctness", "distributed", "meshguard"]}}
        if docs_base:
            rule["helpUri"] = docs_base.rstrip("/") + "/" + doc
        return rule
    if name.startswith("clang-diagnostic-"):
        return {"id": name, "name": name,
                "shortDescription": {"text": "Clang compiler diagnostic"}}
    if name.startswith("clang-analyzer-"):
        return {"id": name, "name": name,
                "shortDescription": {"text": "Clang Static Analyzer check %s" % name[15:]},
                "helpUri": "https://clang.llvm.org/docs/analyzer/checkers.html"}
    module, _, check = name.partition("-")
    return {"id": name, "name": name,
            "shortDescription": {"text": "clang-tidy check %s" % name},
            "helpUri": "https://clang.llvm.org/extra/clang-tidy/checks/%s/%s.html"
                       % (module, check)}


def main():
    ap = argparse.ArgumentParser(
        description="Convert clang-tidy -export-fixes YAML to SARIF 2.1.0.")
    ap.add_argument("inputs", nargs="+", metavar="FIXES.yaml")
    ap.add_argument("-o", "--output", default="-", help="output file (default: stdout)")
    ap.add_argument("--source-root", help="make paths under this directory relative (uriBaseId SRCROOT)")
    ap.add_argument("--tool-name", default="meshguard-tidy")
    ap.add_argument("--tool-version", default="0.1.0")
    ap.add_argument("--docs-base-uri",
                    help="absolute URI of the meshguard source tree (e.g. a repository's "
                         "blob/main URL); gives meshguard's rules a helpUri to docs/checks/")
    args = ap.parse_args()

    root = os.path.realpath(args.source_root) + os.sep if args.source_root else None

    def artifact(path):
        real = os.path.realpath(path)
        if root and real.startswith(root):
            return {"uri": urllib.request.pathname2url(real[len(root):]), "uriBaseId": "SRCROOT"}
        return {"uri": "file://" + urllib.request.pathname2url(real)}

    sources = Sources()

    def region_at(path, offset):
        pos = sources.position(path, offset)
        if not pos:
            return None
        return {"startLine": pos[0], "startColumn": pos[1]}

    def location(path, offset, message=None):
        phys = {"artifactLocation": artifact(path)}
        region = region_at(path, offset)
        if region:
            phys["region"] = region
            text = sources.snippet(path, offset)
            if text is not None:
                phys["contextRegion"] = {"startLine": region["startLine"],
                                         "snippet": {"text": text}}
        loc = {"physicalLocation": phys}
        if message:
            loc["message"] = {"text": message}
        return loc

    def fix(description, replacements):
        by_file = {}
        for r in replacements or []:
            path = r.get("FilePath")
            if not path:
                continue
            offset, length = int(r.get("Offset", 0)), int(r.get("Length", 0))
            start = sources.position(path, offset)
            end = sources.position(path, offset + length)
            deleted = {"byteOffset": offset, "byteLength": length}
            if start and end:
                deleted.update({"startLine": start[0], "startColumn": start[1],
                                "endLine": end[0], "endColumn": end[1]})
            by_file.setdefault(path, []).append({
                "deletedRegion": deleted,
                "insertedContent": {"text": r.get("ReplacementText", "")}})
        if not by_file:
            return None
        return {"description": {"text": description},
                "artifactChanges": [{"artifactLocation": artifact(p), "replacements": reps}
                                    for p, reps in sorted(by_file.items())]}

    results, rules, rule_index, seen = [], [], {}, set()
    for name in args.inputs:
        try:
            with open(name, encoding="utf-8") as f:
                docs = [d for d in yaml.safe_load_all(f) if d]
        except (OSError, yaml.YAMLError) as e:
            sys.stderr.write("meshguard-sarif: cannot read %s: %s\n" % (name, e))
            return 1
        for doc in docs:
            if not isinstance(doc, dict) or not isinstance(doc.get("Diagnostics", []), list):
                sys.stderr.write("meshguard-sarif: %s is not clang-tidy -export-fixes output\n" % name)
                return 1
            for diag in doc.get("Diagnostics") or []:
                check = diag.get("DiagnosticName", "clang-tidy")
                msg = diag.get("DiagnosticMessage") or {}
                path, offset = msg.get("FilePath") or "", msg.get("FileOffset")
                key = (check, path, offset, msg.get("Message"))
                if key in seen:
                    continue
                seen.add(key)
                if check not in rule_index:
                    rule_index[check] = len(rules)
                    rules.append(rule_descriptor(check, args.docs_base_uri))
                result = {"ruleId": check, "ruleIndex": rule_index[check],
                          "level": LEVELS.get(diag.get("Level"), "warning"),
                          "message": {"text": msg.get("Message", "")}}
                if path:
                    result["locations"] = [location(path, offset)]
                notes = diag.get("Notes") or []
                related = [location(n["FilePath"], n.get("FileOffset"), n.get("Message"))
                           for n in notes if n.get("FilePath")]
                for i, rel in enumerate(related):
                    rel["id"] = i
                if related:
                    result["relatedLocations"] = related
                fixes = [fix("Apply the fix-it of %s" % check, msg.get("Replacements"))]
                fixes += [fix(n.get("Message", "Apply the note's fix-it"), n.get("Replacements"))
                          for n in notes]
                fixes = [f for f in fixes if f]
                if fixes:
                    result["fixes"] = fixes
                results.append(result)

    run = {"tool": {"driver": {"name": args.tool_name, "version": args.tool_version,
                               "rules": rules}},
           "columnKind": "unicodeCodePoints",
           "results": results}
    if root:
        run["originalUriBaseIds"] = {"SRCROOT": {"uri": "file://" + urllib.request.pathname2url(root)}}
    log = {"$schema": SARIF_SCHEMA, "version": "2.1.0", "runs": [run]}
    text = json.dumps(log, indent=2) + "\n"
    if args.output == "-":
        sys.stdout.write(text)
    else:
        with open(args.output, "w", encoding="utf-8") as f:
            f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
