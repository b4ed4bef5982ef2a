"""Prints a summary database (a directory of meshguard-tidy's summary files)
in a form FileCheck can read (summary-export.test): one line per file, per
function and per lookup, with each lookup's hash compared against the entry
it names."""
import glob
import json
import os
import re
import sys

docs = {}
for path in sorted(glob.glob(os.path.join(sys.argv[1], "*"))):
    with open(path) as f:
        docs[path] = json.load(f)
entries = {}
for doc in docs.values():
    for fn in doc["functions"]:
        entries[fn["usr"]] = fn
for path, doc in docs.items():
    print("file %s tu=%s version=%d command=%s" % (
        os.path.basename(path), os.path.basename(doc["tu"]), doc["version"], doc["command"]))
    for fn in doc["functions"]:
        ok = re.fullmatch(r"[0-9a-f]{32}", fn["hash"]) is not None
        print("  function %s hash=%s sinks=%s" % (
            fn["qname"], "md5" if ok else fn["hash"],
            [(s["entry"], os.path.basename(doc["files"][s["at"][0]][0]), s["at"][1])
             for s in fn.get("sinks", [])]))
    assert doc["lookups"] == sorted(doc["lookups"]), "lookups not sorted"
    assert len({u for u, _ in doc["lookups"]}) == len(doc["lookups"]), "lookups not unique"
    for usr, h in doc["lookups"]:
        got = entries.get(usr)
        name = got["qname"] if got else usr
        if not h:
            print("  lookup %s -> none" % name)
        else:
            print("  lookup %s -> %s" % (name, "same hash" if got and got["hash"] == h else "other hash"))
