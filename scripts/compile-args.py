#!/usr/bin/env python3
"""Prints the compiler flags a compile database uses for one source file.

Usage: compile-args.py compile_commands.json FILE
The output (defines, include paths, -std, ...) is what a clang tool needs
after `--` to parse a copy of FILE that lives elsewhere.
"""
import json
import os
import shlex
import sys


def flags_for(database, source):
    source = os.path.realpath(source)
    with open(database) as f:
        entries = json.load(f)
    for entry in entries:
        path = os.path.realpath(os.path.join(entry["directory"], entry["file"]))
        if path != source:
            continue
        args = entry.get("arguments") or shlex.split(entry["command"])
        kept, skip = [], False
        for arg in args[1:]:
            if skip:
                skip = False
            elif arg in ("-o", "-MF", "-MT", "-MQ"):
                skip = True
            elif arg in ("-c", "-MD", "-MMD") or os.path.realpath(os.path.join(entry["directory"], arg)) == source:
                continue
            else:
                kept.append(arg)
        return kept
    return None


if __name__ == "__main__":
    flags = flags_for(sys.argv[1], sys.argv[2])
    if flags is None:
        sys.exit("compile-args: %s is not in %s" % (sys.argv[2], sys.argv[1]))
    print(" ".join(shlex.quote(f) for f in flags))
