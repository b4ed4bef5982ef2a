#!/usr/bin/env python3
"""Runs one meshguard check on a test file and FileChecks the result.

Usage (from lit, as %check_meshguard):
  check_meshguard.py --tidy BIN [-check-suffix=S | -check-suffixes=A,B]
                     [-std=c++17] [-expect-tidy-error]
                     INPUT CHECKS TEMP [-- TIDY_ARGS... [-- COMPILER_ARGS...]]

Semantics follow clang-tidy's check_clang_tidy.py:
  * the CHECK comments are blanked out of a copy of INPUT (TEMP.cpp), and
    the check runs on that copy with -fix;
  * CHECK-MESSAGES[-S] lines are matched against the warnings and errors, and
    any warning or error without a CHECK line fails the test;
  * CHECK-NOTES[-S] lines are matched against warnings, errors and notes, and
    any unmatched one fails the test;
  * CHECK-FIXES[-S] lines are matched against the fixed copy.
"""

import argparse
import os
import re
import subprocess
import sys


def fail(message):
    sys.exit("check_meshguard.py: error: " + message)


def run(args, input_text=None):
    """Runs args, returns (exit code, stdout+stderr as text)."""
    proc = subprocess.run(args, input=input_text, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True)
    return proc.returncode, proc.stdout


def filecheck(input_file, check_file, prefixes, extra):
    code, out = run(["FileCheck", "-input-file=" + input_file, check_file,
                     "-check-prefixes=" + ",".join(prefixes), "-dump-input=fail"] + extra)
    if code != 0:
        sys.stdout.write(out)
        fail("FileCheck failed for " + ",".join(prefixes))


def split_dashes(rest):
    """Splits [-- TIDY_ARGS [-- COMPILER_ARGS]]."""
    if not rest:
        return [], []
    if rest[0] != "--":
        fail("unexpected arguments: " + " ".join(rest))
    rest = rest[1:]
    if "--" in rest:
        cut = rest.index("--")
        return rest[:cut], rest[cut + 1:]
    return rest, []


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--tidy", required=True)
    parser.add_argument("-check-suffix", "-check-suffixes", dest="suffixes", default="")
    parser.add_argument("-std", default="c++17")
    parser.add_argument("-expect-tidy-error", action="store_true")
    parser.add_argument("input")
    parser.add_argument("checks")
    parser.add_argument("temp")
    argv = sys.argv[1:]
    cut = argv.index("--") if "--" in argv else len(argv)
    args = parser.parse_args(argv[:cut])
    tidy_args, compiler_args = split_dashes(argv[cut:])

    suffixes = [s for s in args.suffixes.split(",") if s]
    def prefixes(base):
        return [base + "-" + s for s in suffixes] if suffixes else [base]
    fixes, messages, notes = prefixes("CHECK-FIXES"), prefixes("CHECK-MESSAGES"), prefixes("CHECK-NOTES")

    with open(args.input, encoding="utf-8") as f:
        text = f.read()
    def has(prefix_list):
        return any(re.search(r"\b" + re.escape(p) + r":", text) for p in prefix_list)
    has_fixes, has_messages, has_notes = has(fixes), has(messages), has(notes)
    if not (has_fixes or has_messages or has_notes):
        fail("no %s, %s or %s found in the input" % (fixes[0], messages[0], notes[0]))
    if has_messages and has_notes:
        fail("use either CHECK-MESSAGES or CHECK-NOTES, not both")

    # Blank the CHECK comments so they cannot match themselves in the output;
    # keep the line so [[@LINE]] stays right.
    cleaned = re.sub(r"//\s*CHECK-[A-Z0-9-]*:[^\r\n]*", "//", text)
    temp_file = args.temp + ".cpp"
    os.makedirs(os.path.dirname(os.path.abspath(temp_file)), exist_ok=True)
    for path in (temp_file, args.temp + ".orig"):
        with open(path, "w", encoding="utf-8") as f:
            f.write(cleaned)

    command = [args.tidy, temp_file, "-fix", "--checks=-*," + args.checks,
               "--config={}"] + tidy_args + ["--", "-std=" + args.std] + compiler_args
    print("Running " + " ".join(command))
    code, output = run(command)
    print("------------------------ meshguard-tidy output -----------------------")
    print(output)
    print("----------------------------------------------------------------------")
    if code != 0 and not args.expect_tidy_error:
        fail("meshguard-tidy exited with %d" % code)
    if code == 0 and args.expect_tidy_error:
        fail("meshguard-tidy succeeded where an error was expected")

    # Lines clang-tidy prints for its own bookkeeping, never a finding.
    output_lines = [l for l in output.splitlines()
                    if "note: FIX-IT applied" not in l and "clang-tidy applied" not in l]
    if has_messages:
        msg_file = args.temp + ".msg"
        with open(msg_file, "w", encoding="utf-8") as f:
            f.write("\n".join(output_lines) + "\n")
        filecheck(msg_file, args.input, messages, ["-implicit-check-not={{warning|error}}:"])
    if has_notes:
        notes_file = args.temp + ".notes"
        with open(notes_file, "w", encoding="utf-8") as f:
            f.write("\n".join(output_lines) + "\n")
        filecheck(notes_file, args.input, notes, ["-implicit-check-not={{note|warning|error}}:"])
    if has_fixes:
        code, diff = run(["diff", "-u", args.temp + ".orig", temp_file])
        print("------------------------------ Fixes ---------------------------------")
        print(diff)
        print("----------------------------------------------------------------------")
        filecheck(temp_file, args.input, fixes, ["-strict-whitespace"])


if __name__ == "__main__":
    main()
