#!/usr/bin/env python3
"""Convert clang-tidy -export-fixes YAML to SARIF 2.1.0.

    meshguard-tidy -export-fixes=fixes.yaml -p build src/*.cpp
    meshguard-sarif fixes.yaml -o meshguard.sarif [--source-root .]

Every diagnostic of the YAML (findings with and without fix-its, compiler
errors) becomes a SARIF result: ruleId = the check name, level from the
diagnostic level, the location as line/column (1-based, columns in Unicode
code points), the check's notes as relatedLocations, and its fix-its (and
those of its notes) as SARIF fixes with byte-exact deletedRegions. The run's
tool.driver.rules hold one reportingDescriptor per check seen, with what
code-scanning services require (GitHub's ingestion rules, checked with
Microsoft's SARIF Multitool in test/tools/sarif-multitool.test): a name
distinct from the id, short and full descriptions and help, for meshguard's
checks from the first paragraph of their docs page (docs/checks/<check>.md),
and a helpUri to that page (under --docs-base-uri, else the local copy). With
--source-root, paths under it become
relative URIs against the uriBaseId SRCROOT (what code-scanning services such
as GitHub's expect); other paths stay absolute file URIs.

Several YAML files (e.g. one per translation unit) may be given; duplicate
diagnostics (a header seen from several TUs) are reported once.
Exit status: 0 written; 1 unreadable or malformed input.
"""

import argparse
import json
import os
import re
import sys
import urllib.request

try:
    import yaml
except ImportError:  # pragma: no cover
    sys.stderr.write("meshguard-sarif: needs PyYAML (apt install python3-yaml)\n")
    sys.exit(1)

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
LEVELS = {"Warning": "warning", "Error": "error", "Remark": "note"}

# Substituted by the build (tool/meshguard-sarif/CMakeLists.txt) in the copy
# it writes to <build>/bin and installs; left as they are when this file is
# run from the source tree.
CONFIGURED_VERSION = "@PROJECT_VERSION@"
CONFIGURED_SOURCE_DIR = "@PROJECT_SOURCE_DIR@"

HERE = os.path.dirname(os.path.realpath(__file__))


def configured(value):
    return None if value.startswith("@") else value


def tool_version():
    version = configured(CONFIGURED_VERSION)
    if version:
        return version
    # From the source tree: CMakeLists.txt's project() is the one place.
    try:
        with open(os.path.join(HERE, "..", "..", "CMakeLists.txt")) as f:
            m = re.search(r"project\(meshguard VERSION ([0-9.]+)", f.read())
        return m.group(1) if m else "unknown"
    except OSError:
        return "unknown"


def checks_docs_dir():
    """docs/checks: beside the package (the wheel: meshguard/bin/../docs),
    or in the source tree this script or its build comes from."""
    candidates = [os.environ.get("MESHGUARD_CHECK_DOCS"),
                  os.path.join(HERE, "..", "docs", "checks"),
                  os.path.join(HERE, "..", "..", "docs", "checks")]
    source = configured(CONFIGURED_SOURCE_DIR)
    if source:
        candidates.append(os.path.join(source, "docs", "checks"))
    for c in candidates:
        if c and os.path.isdir(c):
            return os.path.realpath(c)
    return None


def first_paragraph(path):
    """The first paragraph after the page's title, as plain text and as the
    page's Markdown (one line each)."""
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines()
    except OSError:
        return None
    para = []
    for line in lines:
        if line.startswith("#") and not para:
            continue
        if not line.strip():
            if para:
                break
            continue
        para.append(line.strip())
    if not para:
        return None
    markdown = " ".join(para)
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", markdown)
    text = text.replace("`", "").replace("**", "").replace("*", "")
    return text, markdown


def first_sentence(text):
    m = re.match(r"(.+?[.:])(\s|$)", text)
    return m.group(1).rstrip(":") + ("." if m and m.group(1).endswith(":") else "") if m else text


def rule_name(check):
    """SARIF's name is a readable identifier distinct from the id:
    dtensor-partial-local-use -> DtensorPartialLocalUse."""
    return "".join(p[:1].upper() + p[1:] for p in re.split(r"[-_.]", check) if p)


def path_uri(path, directory=False):
    uri = "file://" + urllib.request.pathname2url(os.path.realpath(path))
    return uri + "/" if directory and not uri.endswith("/") else uri
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


def rule_descriptor(name, docs_base, docs_dir):
    """A reportingDescriptor with what code-scanning services require: a
    name distinct from the id, short and full descriptions, help text and a
    help URI. meshguard's checks take theirs from their docs page
    (docs/checks/<check>.md, its first paragraph)."""
    rule = {"id": name, "name": rule_name(name)}
    page = os.path.join(docs_dir, name + ".md") if docs_dir else None
    described = first_paragraph(page) if page else None
    if described:
        text, markdown = described
        uri = (docs_base.rstrip("/") + "/checks/" + name + ".md") if docs_base else path_uri(page)
        rule.update({
            "shortDescription": {"text": first_sentence(text)},
            "fullDescription": {"text": text},
            "help": {"text": "%s See %s." % (text, uri),
                     "markdown": "%s See [%s.md](%s)." % (markdown, name, uri)},
            "helpUri": uri,
            "properties": {"tags": ["correctness", "distributed", "meshguard"]}})
        return rule
    if name.startswith("clang-diagnostic-"):
        short = "Clang compiler diagnostic -W%s" % name[len("clang-diagnostic-"):]
        uri = "https://clang.llvm.org/docs/DiagnosticsReference.html"
    elif name.startswith("clang-analyzer-"):
        short = "Clang Static Analyzer check %s" % name[len("clang-analyzer-"):]
        uri = "https://clang.llvm.org/docs/analyzer/checkers.html"
    elif name.startswith("dtensor-"):
        short = "meshguard check %s" % name
        uri = (docs_base.rstrip("/") + "/checks/" + name + ".md") if docs_base else \
            "https://clang.llvm.org/extra/clang-tidy/"
    else:
        module, _, check = name.partition("-")
        short = "clang-tidy check %s" % name
        uri = "https://clang.llvm.org/extra/clang-tidy/checks/%s/%s.html" % (module, check)
    rule.update({"shortDescription": {"text": short + "."},
                 "fullDescription": {"text": "%s; its documentation: %s" % (short, uri)},
                 "help": {"text": "See %s." % uri},
                 "helpUri": uri})
    return rule


def main():
    ap = argparse.ArgumentParser(
        description="Convert clang-tidy -export-fixes YAML to SARIF 2.1.0.")
    ap.add_argument("inputs", nargs="+", metavar="FIXES.yaml")
    ap.add_argument("-o", "--output", default="-", help="output file (default: stdout)")
    ap.add_argument("--source-root", help="make paths under this directory relative (uriBaseId SRCROOT)")
    ap.add_argument("--tool-name", default="meshguard-tidy")
    ap.add_argument("--tool-version", default=tool_version())
    ap.add_argument("--docs-base-uri", default=os.environ.get("MESHGUARD_DOCS_BASE_URI"),
                    help="absolute URI of meshguard's docs/ directory (e.g. a repository's "
                         "blob/main/docs URL; default: $MESHGUARD_DOCS_BASE_URI, else the "
                         "file:// URI of the docs beside this script); the tool's "
                         "informationUri and the rules' helpUri point there")
    args = ap.parse_args()
    docs_dir = checks_docs_dir()
    if args.docs_base_uri:
        information_uri = args.docs_base_uri.rstrip("/") + "/"
    elif docs_dir:
        information_uri = path_uri(os.path.dirname(docs_dir), directory=True)
    else:
        information_uri = "https://clang.llvm.org/extra/clang-tidy/"

    root = os.path.realpath(args.source_root) + os.sep if args.source_root else None

    def artifact(path):
        real = os.path.realpath(path)
        if root and real.startswith(root):
            return {"uri": urllib.request.pathname2url(real[len(root):]), "uriBaseId": "SRCROOT"}
        return {"uri": path_uri(real)}

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
                    rules.append(rule_descriptor(check, args.docs_base_uri, docs_dir))
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
                               "informationUri": information_uri, "rules": rules}},
           "columnKind": "unicodeCodePoints",
           "results": results}
    if root:
        run["originalUriBaseIds"] = {"SRCROOT": {"uri": path_uri(root, directory=True)}}
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
