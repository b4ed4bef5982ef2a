#!/usr/bin/env python3
"""The layers of lib/Analysis and the includes between them.

Every file of lib/Analysis/<Layer>/ and include/meshguard/Analysis/<Layer>/
belongs to <Layer>. The layers, bottom to top:

    Api -> Provenance -> Summaries -> Facts, Placements -> Divergence -> Engine

A file may include a header of its own layer or of a layer below it; Facts
and Placements sit side by side and include neither each other. Run with no
option, prints the layer -> layer edges (number of #include lines) as a
table; --check exits 1 naming each file whose include runs backwards (or
sideways between Facts and Placements), and each file that is in no layer
(a header directly in include/meshguard/Analysis is in none);
--mermaid prints the graph as a mermaid flowchart (with the counts);
--doc FILE checks (with --check) or rewrites (with --write) the flowchart
between FILE's `<!-- include-graph begin -->` and `<!-- include-graph end -->`
lines: the edges without the counts, so that the picture changes only when
a layer starts or stops including another.
"""

import argparse
import collections
import os
import re
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
LIB = os.path.join("lib", "Analysis")
INC = os.path.join("include", "meshguard", "Analysis")
LAYERS = ["Api", "Provenance", "Summaries", "Facts", "Placements", "Divergence", "Engine"]
RANK = {"Api": 0, "Provenance": 1, "Summaries": 2, "Facts": 3, "Placements": 3,
        "Divergence": 4, "Engine": 5}
SOURCE = (".h", ".cpp", ".def")
INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]+"([^"]+)"', re.M)


def sources(root):
    """Paths (relative to root) of every source file of the analysis."""
    for top in (LIB, INC):
        for dirpath, _, names in os.walk(os.path.join(root, top)):
            for name in sorted(names):
                if name.endswith(SOURCE):
                    yield os.path.relpath(os.path.join(dirpath, name), root)


def layer_of(root, path, flat_by_stem):
    """The layer of PATH, or None. A header directly in include/meshguard/Analysis
    (the layout before the folders were layers) takes the layer of the .cpp of
    the same name, if there is one."""
    for top in (LIB, INC):
        if path.startswith(top + os.sep):
            first = path[len(top) + 1:].split(os.sep)[0]
            if first in RANK:
                return first
            if top == INC and first.endswith(".h"):
                return flat_by_stem.get(first[:-2])
    return None


def resolve(root, path, name):
    """The file of the analysis that `#include "NAME"` in PATH names, or None
    (a clang or llvm header)."""
    for base in (os.path.dirname(path), LIB, "include"):
        candidate = os.path.normpath(os.path.join(base, name))
        if os.path.isfile(os.path.join(root, candidate)):
            return candidate
    return None


def graph(root, flat):
    """(edges: {(from, to): count}, backward: [(file, line, include, from, to)],
    unplaced: [file]). With FLAT, headers directly in include/meshguard/Analysis
    are placed by the .cpp of their name (to draw the old layout)."""
    files = list(sources(root))
    flat_by_stem = {}
    for path in files if flat else []:
        if path.startswith(LIB + os.sep) and path.endswith(".cpp"):
            flat_by_stem[os.path.basename(path)[:-4]] = path.split(os.sep)[2]
    if flat:
        # The one public header with no .cpp of its name (before it moved).
        flat_by_stem.setdefault("FunctionSummary", "Summaries")
    edges = collections.Counter()
    backward, unplaced = [], []
    for path in files:
        src = layer_of(root, path, flat_by_stem)
        if src is None:
            unplaced.append(path)
            continue
        with open(os.path.join(root, path), encoding="utf-8") as f:
            text = f.read()
        for m in INCLUDE.finditer(text):
            target = resolve(root, path, m.group(1))
            if target is None:
                continue
            dst = layer_of(root, target, flat_by_stem)
            if dst is None:
                if target.startswith((LIB, INC)):
                    unplaced.append(target)
                continue
            line = text.count("\n", 0, m.start()) + 1
            if dst != src:
                edges[(src, dst)] += 1
            if RANK[dst] > RANK[src] or (RANK[dst] == RANK[src] and dst != src):
                backward.append((path, line, m.group(1), src, dst))
    return edges, backward, sorted(set(unplaced))


BEGIN = "<!-- include-graph begin -->"
END = "<!-- include-graph end -->"


def flowchart(edges, counts):
    order = sorted(edges, key=lambda e: (-RANK[e[0]], LAYERS.index(e[0]),
                                         -RANK[e[1]], LAYERS.index(e[1])))
    lines = ["flowchart BT"]
    for src, dst in order:
        lines.append("  %s -->%s %s" % (src, "|%d|" % edges[(src, dst)] if counts else "", dst))
    return lines


def doc_block(edges):
    return [BEGIN, "```mermaid"] + flowchart(edges, counts=False) + ["```", END]


def check_doc(path, edges, write):
    """False when PATH's picture differs from EDGES (rewritten with WRITE)."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    if BEGIN not in lines or END not in lines:
        print("%s: no %s ... %s block" % (path, BEGIN, END))
        return False
    b, e = lines.index(BEGIN), lines.index(END)
    want = doc_block(edges)
    if lines[b:e + 1] == want:
        return True
    if write:
        with open(path, "w", encoding="utf-8") as f:
            f.write("\n".join(lines[:b] + want + lines[e + 1:]))
        return True
    print("%s: the include graph is stale (run scripts/include-graph.py --doc %s --write)"
          % (path, path))
    return False


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", default=ROOT)
    ap.add_argument("--check", action="store_true",
                    help="fail on an include that runs backwards")
    ap.add_argument("--mermaid", action="store_true",
                    help="print a mermaid flowchart instead of a table")
    ap.add_argument("--doc", help="a markdown file whose include-graph block to check")
    ap.add_argument("--write", action="store_true", help="rewrite --doc's block")
    args = ap.parse_args()
    edges, backward, unplaced = graph(args.root, flat=not args.check)
    stale = bool(args.doc) and not check_doc(args.doc, edges, args.write)
    if args.doc and args.write:
        return 0
    if args.check:
        for path, line, name, src, dst in backward:
            print("%s:%d: #include \"%s\" runs backwards: %s -> %s (%s is above %s)"
                  % (path, line, name, src, dst, dst, src) if RANK[dst] > RANK[src] else
                  "%s:%d: #include \"%s\" runs sideways: %s -> %s (side by side)"
                  % (path, line, name, src, dst))
        for path in unplaced:
            print("%s: in no layer (a file of lib/Analysis or include/meshguard/Analysis "
                  "lives in one of %s)" % (path, ", ".join(LAYERS)))
        if backward or unplaced or stale:
            return 1
        print("include-graph: %d includes across %d layer -> layer edges, none backwards"
              % (sum(edges.values()), len(edges)))
        return 0
    if args.mermaid:
        print("\n".join(flowchart(edges, counts=True)))
        return 0
    order = sorted(edges, key=lambda e: (-RANK[e[0]], LAYERS.index(e[0]),
                                         -RANK[e[1]], LAYERS.index(e[1])))
    print("| from | to | includes | direction |")
    print("|---|---|---:|---|")
    for src, dst in order:
        way = ("down" if RANK[dst] < RANK[src] else
               "**sideways**" if RANK[dst] == RANK[src] else "**backwards**")
        print("| %s | %s | %d | %s |" % (src, dst, edges[(src, dst)], way))
    print()
    print("%d edges, %d backwards or sideways (%d include lines); files in no layer: %d"
          % (len(edges), len({(b[3], b[4]) for b in backward}), len(backward), len(unplaced)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
