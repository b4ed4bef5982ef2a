#!/usr/bin/env python3
"""The conformance harness: meshguard's DTensor against PyTorch's, op by op.

For each overload of meshguard's sharding-rule table, cases.py makes calls
on DTensors of many placements; both sides run them on real Gloo ranks
(PyTorch 2.x's torch.distributed.tensor in Python, meshguard in C++), and
compare.py compares values, placements, strides, gradients and collectives
with each other and with the plain call.

  run.py --conformance BIN --launcher scripts/meshguard-launch [--quick | --full]
         [--report docs/runtime/conformance.md] [--work DIR]

--quick (make test): a few overloads per family, 2 ranks. --full: every
overload, 2 ranks (mesh [2]) and 4 ranks (meshes [4] and [2, 2]).
Exits 1 when meshguard computes a wrong value or a difference is not in
known_differences.py; prints "SKIPPED: ..." and exits 0 when this python
has no torch >= 2 with torch.distributed.tensor.
"""

import argparse
import collections
import datetime
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def probe_torch():
    try:
        import torch
        import torch.distributed as dist
        if int(torch.__version__.split(".")[0]) < 2 or not dist.is_gloo_available():
            return None, "torch %s has no Gloo DTensor" % torch.__version__
        import torch.distributed.tensor  # noqa: F401
        return torch.__version__, None
    except ImportError as e:
        return None, str(e)


def families():
    """overload -> family, from docs/runtime/operator-table.md."""
    out, family = {}, None
    with open(os.path.join(ROOT, "docs", "runtime", "operator-table.md")) as f:
        for line in f:
            m = re.match(r"## ([\w-]+) \(", line)
            if m:
                family = m.group(1)
                continue
            m = re.match(r"\| `(aten::\w+)` \| ([^|]+) \|", line)
            if m and family:
                for ov in m.group(2).split(","):
                    out["%s.%s" % (m.group(1), ov.strip())] = family
    return out


def derived_bases():
    """overload -> the overload whose rule it derives from (in-place, out=
    and _foreach_ forms: "as `aten::add.Tensor`" in the strategies column of
    docs/runtime/operator-table.md)."""
    out = {}
    with open(os.path.join(ROOT, "docs", "runtime", "operator-table.md")) as f:
        for line in f:
            m = re.match(r"\| `(aten::\w+)` \| ([^|]+) \| .*(out=|in-place|each element)(?:: | )as `(aten::[\w.]+)`",
                         line)
            if m:
                kind = {"out=": "out", "in-place": "in-place", "each element": "foreach"}[m.group(3)]
                for ov in m.group(2).split(","):
                    out["%s.%s" % (m.group(1), ov.strip())] = (m.group(4), kind)
    return out


def quick_sample(ops, fams, per_family):
    by = collections.defaultdict(list)
    for op in ops:
        by[fams.get(op, "other")].append(op)
    picked = []
    for fam in sorted(by):
        picked += by[fam][:per_family]
    return picked


DIVERGED = 3  # a side's exit code after a case on which its ranks diverged


def launch(launcher, nproc, timeout, program):
    cmd = [sys.executable, launcher, "--nproc", str(nproc), "--timeout", str(timeout), "--"] + program
    env = dict(os.environ, OMP_NUM_THREADS="1", PYTHONWARNINGS="ignore")
    p = subprocess.run(cmd, capture_output=True, text=True, env=env)
    return p.returncode, "\n".join((p.stdout + p.stderr).strip().splitlines()[-12:])


def run_side(launcher, nproc, timeout, program, what, cases_path, ids, work):
    """Every result of one side on `nproc` ranks (`ids`: its cases, in
    order). A side stops after a case on which its ranks diverged (exit 3)
    or crashes in one (Gloo aborts the process on a collective mismatch):
    that case is recorded and a fresh side starts at the next."""
    import results
    out, part, crashes_in_a_row = [], 0, 0
    while len(out) < len(ids):
        path = os.path.join(work, "%s-%d.%d.records" % (what, nproc, part))
        first = len(out)
        code, tail = launch(launcher, nproc, timeout, program + [cases_path, path, str(first)])
        got = results.read_records(path)
        out += got
        part += 1
        if code == 0 and len(out) == len(ids):
            break
        if code == DIVERGED:
            continue
        crashes_in_a_row = crashes_in_a_row + 1 if not got else 0
        if crashes_in_a_row >= 2 or code == 124:
            raise SystemExit("conformance: the %s side failed on %d ranks at case %d (%s), exit %d:\n%s" % (
                what, nproc, len(out), ids[len(out)] if len(out) < len(ids) else "-", code, tail))
        if len(out) < len(ids):
            crashed = {"id": ids[len(out)], "status": "crashed",
                       "error": "exit %d: %s" % (code, tail.splitlines()[-1] if tail else "")}
            with open(path, "ab") as f:  # kept with the side's records (--reuse reads them)
                results.append_record(f, crashed)
            out.append(crashed)
    return out


def tuplify(x):
    if isinstance(x, dict):
        return {k: tuplify(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return tuple(tuplify(v) for v in x)
    return x


def plain_reference(case):
    """(outputs, gradients) of the call on plain tensors, the loss weighted
    as both sides weight it; None when the plain call fails."""
    import torch
    import cases as C
    import results as R
    leaves = [s["full"].clone().requires_grad_(case["backward"] and s["full"].is_floating_point())
              for s in case["inputs"]]
    try:
        out = C._plain_call(case["op"], case["overload"], case["args"], [C.Input(t) for t in leaves])
    except Exception:
        return None, None
    outs = R.tensor_outputs(out)
    grads = None
    if case["backward"] and outs and outs[0].requires_grad:
        (outs[0] * R.weights_like(list(outs[0].shape))).sum().backward()
        grads = [t.grad if t.requires_grad else None for t in leaves]
    return [o.detach() for o in outs], grads


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--conformance", required=True, help="build/bin/meshguard_conformance")
    ap.add_argument("--launcher", default=os.path.join(ROOT, "scripts", "meshguard-launch"))
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument("--quick", action="store_true")
    mode.add_argument("--full", action="store_true")
    ap.add_argument("--ops", help="only these overloads (comma-separated, e.g. aten::mm.default)")
    ap.add_argument("--report", help="write the markdown report here")
    ap.add_argument("--work", help="keep cases and results here")
    ap.add_argument("--reuse", action="store_true",
                    help="compare the results already in --work (same cases) instead of running both sides")
    ap.add_argument("--timeout", type=int, default=1500, help="per side and rank count, seconds")
    args = ap.parse_args()

    version, why = probe_torch()
    if version is None:
        print("SKIPPED: %s" % why)
        return 0
    sys.path.insert(0, HERE)
    import torch
    import cases as C
    import compare
    import known_differences as K
    import results as R

    ops = subprocess.run([args.conformance, "--list-rules"], capture_output=True, text=True, check=True).stdout.split()
    fams = families()
    if args.ops:
        ops = [o for o in ops if o in args.ops.split(",")]
    elif not args.full:
        ops = quick_sample(ops, fams, 24)
    worlds = {2: [[2]], 4: [[4], [2, 2]]} if args.full else {2: [[2]]}
    meshes = [m for ms in worlds.values() for m in ms]
    all_cases, uncovered = C.make_cases(ops, meshes, quick=not args.full)
    print("conformance: torch %s, %d overloads, %d cases on meshes %s" % (
        version, len(ops), len(all_cases), ", ".join("x".join(map(str, m)) for m in meshes)), flush=True)

    work = args.work or tempfile.mkdtemp(prefix="meshguard-conformance-")
    os.makedirs(work, exist_ok=True)
    cases_path = os.path.join(work, "cases.pt")
    if args.reuse:
        all_cases = torch.load(cases_path, weights_only=False)
    else:
        # Lists as tuples: libtorch 1.13's unpickler lacks the APPEND opcode
        # that Python writes for one-element lists.
        all_cases = tuplify(all_cases)
        torch.save(all_cases, cases_path)
    ours, theirs = {}, {}
    for nproc in worlds:
        for side, program, into in (
                ("PyTorch", [sys.executable, os.path.join(HERE, "pytorch_side.py")], theirs),
                ("meshguard", [args.conformance], ours)):
            ids = [c["id"] for c in all_cases if R.mesh_size(c["mesh"]) == nproc]
            if args.reuse:
                import glob
                for path in sorted(glob.glob(os.path.join(work, "%s-%d.*.records" % (side, nproc)))):
                    for r in R.read_records(path):
                        into[r["id"]] = r
                for i in ids:  # a crash record from before they were kept
                    into.setdefault(i, {"id": i, "status": "crashed", "error": "no record: the side crashed here"})
                continue
            for r in run_side(args.launcher, nproc, args.timeout, program, side, cases_path, ids, work):
                into[r["id"]] = r

    rows = collections.OrderedDict((op, collections.Counter()) for op in ops)
    notes = collections.defaultdict(set)
    unexplained, wrong = [], []
    findings = collections.defaultdict(list)
    bases = derived_bases()
    for case in all_cases:
        op = "%s.%s" % (case["op"], case["overload"])
        if op in bases:
            case["base"], case["derived"] = bases[op]
        case["family"] = fams.get(case.get("base", op))
        o, t = ours.get(case["id"]), theirs.get(case["id"])
        if o is None or t is None:
            raise SystemExit("conformance: no result for %s (%s)" % (case["id"], "meshguard" if o is None else "PyTorch"))
        outcome, fields, detail = compare.classify(case, o, t, *plain_reference(case))
        rows[op][outcome] += 1
        if outcome == "WRONG":
            wrong.append("%s: %s" % (case["id"], detail))
            continue
        if outcome.startswith("pytorch-") or outcome == "meshguard-extends":
            # PyTorch's own failures and wrong values, and what meshguard runs
            # beyond PyTorch (its values checked): findings, not differences
            # to explain; the report lists them.
            findings[outcome].append("%s: %s" % (case["id"], detail))
            continue
        items = fields if outcome == "differs" else ([outcome] if outcome != "agree" and outcome != "both-refuse" else [])
        for item in items:
            known = K.explain(case, item, o, t)
            text = compare.describe_difference(o, t, item) if item in compare_fields() else (detail or item)
            if known is None:
                unexplained.append("%s [%s] %s" % (case["id"], item, text))
            else:
                notes[op].add(known)

    summary = collections.Counter()
    for c in rows.values():
        summary.update(c)
    print("conformance: %s" % ", ".join("%s %d" % (k, v) for k, v in sorted(summary.items())))
    if uncovered:
        print("conformance: %d overloads without a case: %s" % (len(uncovered), " ".join(uncovered)))
    if args.report:
        write_report(args.report, version, meshes, rows, notes, uncovered, fams, summary, unexplained, wrong, findings)
    for line in wrong:
        print("WRONG: " + line)
    for line in unexplained[:200]:
        print("UNEXPLAINED: " + line)
    if len(unexplained) > 200:
        print("UNEXPLAINED: ... %d more" % (len(unexplained) - 200))
    return 1 if wrong or unexplained else 0


def compare_fields():
    return ("placements", "stride", "comm-fwd", "comm-bwd", "grad-placements")


def write_report(path, version, meshes, rows, notes, uncovered, fams, summary, unexplained, wrong, findings):
    import known_differences as K
    out = []
    out.append("# Conformance: meshguard's DTensor against PyTorch's\n")
    out.append("Generated by `python3 test/conformance/run.py --full` (`make conformance`) on %s against PyTorch %s's "
               "`torch.distributed.tensor`, Gloo, meshes %s. Do not edit by hand; how the harness works: "
               "[test/conformance/README.md](../../test/conformance/README.md).\n" % (
                   datetime.date.today().isoformat(), version, ", ".join("x".join(map(str, m)) for m in meshes)))
    out.append("Each case calls one aten overload on DTensors of given placements in both runtimes and compares the "
               "values (with each other and with the plain call), the output placements and strides, the gradients' "
               "values and placements, and the collectives issued (PyTorch's `CommDebugMode` against meshguard's "
               "counting process group). Outcomes: **agree**; **differs** (values right, something else differs); "
               "**mg-refuses** (PyTorch runs it); **mg-extends** (PyTorch refuses, meshguard's values are right); "
               "**both-refuse**; **pt-fails** (PyTorch runs the op but fails reading its output or in backward, or its "
               "ranks diverge: one raises while the others wait in a collective, a hang without a timeout); **pt-wrong** (PyTorch's value or gradient differs "
               "from the plain call's, meshguard's agrees with it); "
               "**WRONG** (a wrong value, or meshguard failing after the op: a bug). Every difference is explained below.\n")
    out.append("## Totals\n")
    out.append("| outcome | cases |\n|---|---|")
    for k, v in sorted(summary.items()):
        out.append("| %s | %d |" % (k, v))
    out.append("\n%d overloads compared, %d without a case." % (len(rows) - len(uncovered), len(uncovered)))
    out.append("\n## Known differences\n")
    for key, (kind, reason) in K.REASONS.items():
        out.append("- **%s** (%s): %s" % (key, kind, reason))
    out.append("\n## Per overload\n")
    out.append("| overload | family | agree | differs | mg-refuses | mg-extends | both-refuse | pt-fails | pt-wrong | WRONG | why |")
    out.append("|---|---|---|---|---|---|---|---|---|---|---|")
    for op, c in rows.items():
        if op in uncovered:
            out.append("| `%s` | %s | | | | | | | | | no case yet |" % (op, fams.get(op, "?")))
            continue
        out.append("| `%s` | %s | %d | %d | %d | %d | %d | %d | %d | %d | %s |" % (
            op, fams.get(op, "?"), c["agree"], c["differs"], c["meshguard-refuses"], c["meshguard-extends"],
            c["both-refuse"], c["pytorch-fails"] + c["pytorch-diverges"], c["pytorch-wrong"],
            c["WRONG"] + c["meshguard-fails"] + c["meshguard-diverges"], ", ".join(sorted(notes.get(op, ())))))
    titles = {"pytorch-wrong": "PyTorch computes a wrong value (meshguard's is the plain call's)",
              "pytorch-diverges": "PyTorch's ranks diverge (one raises, the others hang or abort)",
              "pytorch-fails": "PyTorch fails after the op (reading the output or in backward)"}
    for kind, title in titles.items():
        if findings.get(kind):
            out.append("\n## %s: %d cases\n" % (title, len(findings[kind])))
            by_op = collections.defaultdict(list)
            for line in findings[kind]:
                by_op[line.split(" ")[0]].append(line)
            for op, lines in sorted(by_op.items()):
                out.append("- `%s` (%d): e.g. %s" % (op, len(lines), lines[0].split(" ", 1)[1].replace("|", "\\|")[:300]))
    if unexplained or wrong:
        out.append("\n## Not yet explained\n")
        for line in wrong + unexplained:
            out.append("- " + line.replace("|", "\\|"))
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


if __name__ == "__main__":
    sys.exit(main())
