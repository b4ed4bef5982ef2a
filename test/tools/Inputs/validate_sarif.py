#!/usr/bin/env python3
"""Validate a SARIF log against sarif-2.1.0-subset.schema.json (no
third-party modules: a small validator for the JSON-schema keywords that file
uses), then check what meshguard's SARIF must carry beyond the schema: rule
metadata for every ruleId, and, for the result of --rule, a location, the
notes as relatedLocations and a fix whose replacement applies to the file.

    validate_sarif.py LOG.sarif [--rule CHECK] [--apply-fix-to FILE]

Prints a summary line per result; exit status 1 on the first problem.
"""
import argparse
import json
import os
import sys
import urllib.parse
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))


def resolve(schema, root):
    while "$ref" in schema:
        node = root
        for part in schema["$ref"].lstrip("#/").split("/"):
            node = node[part]
        schema = node
    return schema


TYPES = {"object": dict, "array": list, "string": str, "integer": int,
         "number": (int, float), "boolean": bool}


def validate(value, schema, root, path, errors):
    schema = resolve(schema, root)
    t = schema.get("type")
    if t and (not isinstance(value, TYPES[t]) or (t == "integer" and isinstance(value, bool))):
        errors.append("%s: expected %s" % (path, t))
        return
    if "enum" in schema and value not in schema["enum"]:
        errors.append("%s: %r not one of %s" % (path, value, schema["enum"]))
    if "minimum" in schema and isinstance(value, int) and value < schema["minimum"]:
        errors.append("%s: %d < minimum %d" % (path, value, schema["minimum"]))
    if isinstance(value, dict):
        for key in schema.get("required", []):
            if key not in value:
                errors.append("%s: required property '%s' missing" % (path, key))
        if "anyOf" in schema and not any(
                all(k in value for k in alt.get("required", [])) for alt in schema["anyOf"]):
            errors.append("%s: none of %s" % (path, schema["anyOf"]))
        for key, sub in schema.get("properties", {}).items():
            if key in value:
                validate(value[key], sub, root, "%s.%s" % (path, key), errors)
    if isinstance(value, list):
        if len(value) < schema.get("minItems", 0):
            errors.append("%s: fewer than %d items" % (path, schema["minItems"]))
        if "items" in schema:
            for i, item in enumerate(value):
                validate(item, schema["items"], root, "%s[%d]" % (path, i), errors)


def uri_path(loc, run):
    uri = loc["uri"]
    if "uriBaseId" in loc:
        uri = run["originalUriBaseIds"][loc["uriBaseId"]]["uri"] + uri
    return urllib.request.url2pathname(urllib.parse.urlparse(uri).path)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("log")
    ap.add_argument("--rule")
    ap.add_argument("--apply-fix-to", help="print FILE with the --rule result's first fix applied")
    args = ap.parse_args()
    with open(os.path.join(HERE, "sarif-2.1.0-subset.schema.json")) as f:
        schema = json.load(f)
    with open(args.log) as f:
        log = json.load(f)
    errors = []
    validate(log, schema, schema, "$", errors)
    for run in log["runs"]:
        rules = run["tool"]["driver"].get("rules", [])
        ids = [r["id"] for r in rules]
        for i, res in enumerate(run.get("results", [])):
            rid = res.get("ruleId")
            if rid not in ids:
                errors.append("results[%d]: ruleId %s has no rule metadata" % (i, rid))
            elif "ruleIndex" in res and ids[res["ruleIndex"]] != rid:
                errors.append("results[%d]: ruleIndex does not name %s" % (i, rid))
            loc = res["locations"][0]["physicalLocation"]
            print("result: %s %s %s:%d:%d: %s (%d related, %d fixes)" % (
                rid, res.get("level"), os.path.basename(uri_path(loc["artifactLocation"], run)),
                loc["region"]["startLine"], loc["region"]["startColumn"], res["message"]["text"],
                len(res.get("relatedLocations", [])), len(res.get("fixes", []))))
        if args.rule:
            mine = [r for r in run.get("results", []) if r.get("ruleId") == args.rule]
            rule = next((r for r in rules if r["id"] == args.rule), None)
            if not mine or not rule:
                errors.append("no result/rule for %s" % args.rule)
            else:
                print("rule: %s: %s" % (rule["id"], rule.get("shortDescription", {}).get("text")))
                if not rule.get("fullDescription", {}).get("text"):
                    errors.append("rule %s has no fullDescription" % args.rule)
                if args.apply_fix_to:
                    if not mine[0].get("fixes"):
                        errors.append("result of %s has no fix" % args.rule)
                    else:
                        change = mine[0]["fixes"][0]["artifactChanges"][0]
                        with open(args.apply_fix_to, "rb") as f:
                            data = f.read()
                        for rep in sorted(change["replacements"],
                                          key=lambda r: -r["deletedRegion"]["byteOffset"]):
                            reg = rep["deletedRegion"]
                            data = (data[:reg["byteOffset"]]
                                    + rep.get("insertedContent", {}).get("text", "").encode()
                                    + data[reg["byteOffset"] + reg["byteLength"]:])
                        sys.stdout.write("fixed:\n" + data.decode())
    for e in errors:
        print("invalid SARIF: " + e, file=sys.stderr)
    if not errors:
        print("valid SARIF 2.1.0")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
