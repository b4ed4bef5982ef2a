#!/usr/bin/env python3
"""Fails when a diagnostic message of lib/Tidy/DiagnosticMessages.h opens with
code: clangd capitalises a message's first letter ("item() reads" is shown as
"Item() reads"), so code that opens a message is quoted ("'item()' reads").
Each alternative of a leading %select{...} is an opening too.

    message_openings.py HEADER
"""

import re
import sys

# `name()`, `ns::name`, `name_with_underscore` at the start of an opening.
CODE = re.compile(r"^([A-Za-z_]\w*(::\w+)*\(\)|[A-Za-z_]\w*::\w+|[a-z]+_\w+)")


def messages(text):
    """(name, message) of each `inline constexpr llvm::StringLiteral`."""
    pattern = re.compile(r"StringLiteral\s+(\w+)\s*=\s*((?:\s*\"(?:[^\"\\]|\\.)*\")+)\s*;")
    for m in pattern.finditer(text):
        parts = re.findall(r"\"((?:[^\"\\]|\\.)*)\"", m.group(2))
        yield m.group(1), "".join(parts)


def openings(message):
    m = re.match(r"%select\{", message)
    if not m:
        return [message]
    depth, i, start, alts = 1, m.end(), m.end(), []
    while i < len(message) and depth:
        c = message[i]
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
        if (c == "|" and depth == 1) or depth == 0:
            alts.append(message[start:i])
            start = i + 1
        i += 1
    return alts


def main():
    text = open(sys.argv[1], encoding="utf-8").read()
    bad, count = [], 0
    for name, message in messages(text):
        count += 1
        for opening in openings(message):
            if CODE.match(opening):
                bad.append("%s: opens with code: %r" % (name, opening[:40]))
    if count < 50:
        print("message_openings: only %d messages found: the header's form changed?" % count)
        return 1
    for line in bad:
        print(line)
    print("message_openings: %d messages, %d open with code" % (count, len(bad)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
