#!/usr/bin/env python3
"""A brute-force validator of meshguard's sharding rules (issue #39, item 3),
in the manner of PyTorch's torch/distributed/tensor/_ops/strategy_validation.py.

For each overload's cases (cases.py's inputs and arguments), on meshes [2]
and [2, 2], the placement combinations of the tensor inputs (per mesh dim
R, S(d) for each dim, P(sum) for floating operands) are judged twice:

  ground truth  plain torch, no distribution: the op on each rank's local
                pieces. The combination is valid without communication when
                the local outputs are exactly the pieces of the full result
                under some output placement (R, S(d), P(sum|avg|max|min)
                per mesh dim), for two Partial splits and several draws of
                the values, and on [2, 2] per mesh dim as well.
  meshguard     the same combination through meshguard_conformance
                (run.py's launch), read from its record: values, output
                placements, collectives, refusal.

and reported as
  incorrect  meshguard's value differs from the plain call (must be 0)
  missing    valid without communication, but meshguard refused it or
             issued collectives
  failed     meshguard's ranks crashed or diverged, or its output could not
             be read (a bug too)

Cap (--cap, per case and mesh): the combinations that can be valid first
(on [2] the valid ones, on [2, 2] those valid on each mesh dim), then a
fixed random sample of the others.

  validate.py --conformance build/bin/meshguard_conformance
              [--ops aten::mm.default,... | --full] [--cap 256]
              [--report docs/runtime/validation.md] [--work DIR]

Exits 1 when a combination is incorrect or failed, 2 on bad input.
"""

import argparse
import collections
import datetime
import itertools
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)

import torch  # noqa: E402

import cases as C  # noqa: E402
import compare  # noqa: E402
import results as R  # noqa: E402
import run  # noqa: E402

MESHES = [[2], [2, 2]]
CAP = 256  # combinations per case and mesh; two 2-D operands have 256 on [2, 2]
LIMIT_1D = 4096  # 1-D combinations judged to find the valid ones (a sample beyond)

# The default sample: one or two overloads of each kind of rule.
SAMPLE = [
    "aten::mm.default", "aten::addmm.default", "aten::bmm.default", "aten::dot.default",
    "aten::add.Tensor", "aten::mul.Tensor", "aten::div.Tensor", "aten::gelu.default", "aten::where.self",
    "aten::add_.Tensor", "aten::add.out",
    "aten::sum.dim_IntList", "aten::sum.default", "aten::mean.dim", "aten::amax.default", "aten::max.dim",
    "aten::_softmax.default", "aten::_log_softmax.default", "aten::cumsum.default", "aten::topk.default",
    "aten::cat.default", "aten::stack.default", "aten::transpose.int", "aten::t.default", "aten::view.default",
    "aten::unsqueeze.default", "aten::slice.Tensor", "aten::index_select.default", "aten::embedding.default",
    "aten::native_layer_norm.default", "aten::mse_loss.default", "aten::nll_loss_forward.default",
    "aten::convolution.default", "aten::avg_pool2d.default", "aten::constant_pad_nd.default",
]

OUT_PARTIALS = ("P(sum)", "P(avg)", "P(max)", "P(min)")


# ---------------------------------------------------------------------------
# Ground truth: local pieces, the op on them, and the placements that explain
# the local outputs.


def chunk(t, n, c, d):
    """Rank c's piece of t along d among n: torch.chunk's blocks, the last
    ones short or empty (as distribute_tensor in both runtimes)."""
    size = t.size(d)
    block = -(-size // n)
    start = min(c * block, size)
    return t.narrow(d, start, max(0, min(size, start + block) - start))


def checker(t):
    """+1/-1 alternating along every dim (PyTorch's checkerboard mask)."""
    if t.dim() == 0:
        return torch.tensor(1.0)
    grids = torch.meshgrid(*[torch.arange(s) for s in t.shape], indexing="ij")
    return 1.0 - 2.0 * (sum(grids) % 2).to(t.dtype)


def split_sum(t, c, n, offset):
    """Rank c's share of a P(sum) value among n. The harness's split
    (results.partial_factor: (2c+1)/n^2 of it) is what meshguard gets; it
    keeps every share's sign, so relu or abs would look linear. The offset
    split adds sign-varying amounts that cancel in the sum, which catches
    that (as PyTorch's validator does)."""
    share = t * ((2 * c + 1) / (n * n))
    if offset:
        share = share + (c - (n - 1) / 2) * 2 * (t.abs() + 1) * checker(t)
    return share


def local_piece(full, placements, mesh, coord, offset):
    """This rank's local tensor, mesh dims outermost first."""
    t = full
    for m, p in enumerate(placements):
        if p.startswith("S("):
            t = chunk(t, mesh[m], coord[m], int(p[2:-1]))
        elif p == "P(sum)":
            t = split_sum(t, coord[m], mesh[m], offset)
    return t.clone()


def coords(mesh):
    return list(itertools.product(*[range(n) for n in mesh]))


def out_choices(t):
    ps = ["R"] + ["S(%d)" % d for d in range(t.dim())]
    if t.is_floating_point():
        return ps + list(OUT_PARTIALS)
    return ps + (["P(max)", "P(min)"] if t.dtype != torch.bool else [])


def combine(ts, p):
    """The value that n pieces along one mesh dim make under placement p, or
    None when they are not such pieces."""
    if p == "R":
        return ts[0] if all(compare.close(ts[0], t) for t in ts[1:]) else None
    if p.startswith("S("):
        d = int(p[2:-1])
        rest = [t.shape[:d] + t.shape[d + 1:] if t.dim() > d else None for t in ts]
        if rest[0] is None or any(r != rest[0] for r in rest):
            return None
        whole = torch.cat(ts, d)
        # Exactly torch.chunk's blocks: uneven pieces that happen to cat
        # to the right shape are not shards.
        ok = all(t.shape == chunk(whole, len(ts), c, d).shape for c, t in enumerate(ts))
        return whole if ok else None
    if any(t.shape != ts[0].shape for t in ts):
        return None
    stacked = torch.stack(ts)
    return {"P(sum)": lambda: stacked.sum(0), "P(avg)": lambda: stacked.mean(0),
            "P(max)": lambda: stacked.amax(0), "P(min)": lambda: stacked.amin(0)}[p]()


def explanations(pieces, mesh, full):
    """Every output placement under which `pieces` (coord -> local output)
    are the pieces of `full`; mesh dims are undone innermost first (a
    piece of rank (i, j) is a piece along mesh dim 1 of one along dim 0)."""
    found = []

    def walk(pieces, k, chosen):
        if k < 0:
            if compare.close(pieces[()], full):
                found.append(tuple(chosen))
            return
        for p in out_choices(full):
            merged = {}
            for head in itertools.product(*[range(n) for n in mesh[:k]]):
                m = combine([pieces[head + (c,)] for c in range(mesh[k])], p)
                if m is None:
                    break
                merged[head] = m
            else:
                walk(merged, k - 1, [p] + chosen)

    walk(pieces, len(mesh) - 1, [])
    return found


def written_inputs(name, overload, args):
    """(per output, the input index it is written into, else None; the
    out= inputs). In-place and out= outputs keep that operand's placement."""
    schema = C.schema_of(name, overload)
    by_alias, outs = {}, set()
    for a in schema.arguments:
        if a.alias_info is not None and a.alias_info.is_write:
            spec = next((s for s in args if s["name"] == a.name and s["kind"] == "input"), None)
            if spec is not None:
                by_alias[frozenset(a.alias_info.before_set)] = spec["index"]
                if a.kwarg_only:
                    outs.add(spec["index"])
    return [by_alias.get(frozenset(r.alias_info.before_set)) if r.alias_info is not None else None
            for r in schema.returns], outs


def call(case, ins):
    """The op on these tensors: its tensor outputs, or None when it fails."""
    pos, kw = R.call_arguments(case, ins)
    try:
        return [o.detach() for o in R.tensor_outputs(C.op_of(case["op"], case["overload"])(*pos, **kw))]
    except Exception:
        return None


def permuted(t, seed):
    """t's values in another order (the same values: an op's domain holds)."""
    g = torch.Generator().manual_seed(seed)
    return t.flatten()[torch.randperm(t.numel(), generator=g)].reshape(t.shape)


def context(case, inputs, plain):
    """What every combination of one case shares: the written inputs, the
    other draws of its values, and which outputs depend on which input."""
    written, outs_in = written_inputs(case["op"], case["overload"], case["args"])
    fulls = [t.tensor for t in inputs]
    # Two more draws, the floating inputs' values permuted: a placement that
    # explains the outputs by chance (a median that happens to be the max of
    # the shards' medians) does not do it three times.
    draws = [(fulls, plain)]
    for seed in (1, 2):
        other = [permuted(f, seed) if f.is_floating_point() else f for f in fulls]
        outs = call(case, [f.clone() for f in other])
        if outs is not None and len(outs) == len(plain):
            draws.append((other, outs))
    # Input i's values changed (permuted, scaled, a 0 and an inf put in):
    # the outputs that change depend on it. An output that depends on a
    # P(sum) input must stay Partial on that mesh dim; one that does not
    # (layer norm's mean from its weight) may be anything. Without the 0 and
    # inf, logical_not and isposinf of a Partial look Replicate.
    depends = []
    for i, f in enumerate(fulls):
        if not f.is_floating_point() or f.numel() == 0:
            depends.append([False] * len(plain))
            continue
        changed = permuted(f, 3) * -1.5 + 0.25
        changed.view(-1)[0] = 0.0
        changed.view(-1)[-1] = float("inf")
        outs = call(case, [changed if j == i else g.clone() for j, g in enumerate(fulls)])
        depends.append([outs is None or len(outs) != len(plain) or not compare.close(o, p)
                        for o, p in zip(outs or plain, plain)])
    return {"written": written, "outs_in": outs_in, "draws": draws, "depends": depends, "zeros": {}}


def zero_draw(case, combo, ctx):
    """One more draw for a combination with P(sum) inputs: a 0 in each of
    them (logical_not of a Partial whose pieces are all nonzero looks right
    otherwise; a 0 elsewhere would break what is right: x / y, y
    Replicate). None when the plain call fails there."""
    idx = frozenset(i for i, pl in enumerate(combo) if "P(sum)" in pl)
    if idx not in ctx["zeros"]:
        fulls = [f.clone() for f in ctx["draws"][0][0]]
        for i in idx:
            fulls[i].view(-1)[0] = 0.0
        outs = call(case, [f.clone() for f in fulls])
        ctx["zeros"][idx] = (fulls, outs) if outs is not None and len(outs) == len(ctx["draws"][0][1]) else None
    return ctx["zeros"][idx]


def local_truth(case, combo, fulls, plain, ctx):
    """Per output, the placements under which the op on local pieces of
    `fulls` gives the pieces of `plain` under both Partial splits (an empty
    set: none); None when the local call fails."""
    mesh = case["mesh"]
    has_partial = any(p == "P(sum)" for pl in combo for p in pl)
    per_output = None
    for offset in ((False, True) if has_partial else (False,)):
        pieces = collections.defaultdict(dict)  # output index -> coord -> local output
        for coord in coords(mesh):
            ins = [local_piece(f, pl, mesh, coord, offset) for f, pl in zip(fulls, combo)]
            for i in ctx["outs_in"]:  # an out= piece is only written: empty, so that resizing it is no warning
                ins[i] = ins[i].new_empty(0)
            outs = call(case, ins)
            if outs is None or len(outs) != len(plain):
                return None
            for i, o in enumerate(outs):
                pieces[i][coord] = o
        found = [set(explanations(pieces[i], mesh, full)) for i, full in enumerate(plain)]
        per_output = found if per_output is None else [a & b for a, b in zip(per_output, found)]
    return per_output


def ground_truth(case, combo, ctx):
    """(valid, placements per output): whether some output placement
    explains the local outputs in every draw of the values."""
    per_output = None
    zeros = zero_draw(case, combo, ctx) if any("P(sum)" in pl for pl in combo) else None
    for fulls, plain in ctx["draws"] + ([zeros] if zeros else []):
        found = local_truth(case, combo, fulls, plain, ctx)
        if found is None:
            return False, None
        per_output = found if per_output is None else [a & b for a, b in zip(per_output, found)]
    for o, ps in enumerate(per_output):
        w = ctx["written"][o] if o < len(ctx["written"]) else None
        if w is not None:  # in-place and out=: the written operand's placement
            ps &= {tuple(combo[w])}
        partial_dims = {k for i, pl in enumerate(combo) if ctx["depends"][i][o]
                        for k, p in enumerate(pl) if p == "P(sum)"}
        per_output[o] = {p for p in ps if all(p[k].startswith("P(") for k in partial_dims)}
    if not all(per_output):
        return False, None
    return True, per_output


# ---------------------------------------------------------------------------
# The combinations, and the cases meshguard runs


def space(inputs, ndim):
    """Per input, its placements on a mesh of `ndim` dims (one choice per
    mesh dim from cases.py's 1-D choices), and how many combinations."""
    per_input = [list(itertools.product([c[0] for c in C.one_d_choices(t)], repeat=ndim)) for t in inputs]
    total = 1
    for choices in per_input:
        total *= len(choices)
    return per_input, total


def decode(k, per_input):
    """Combination number k (mixed radix, one digit per input)."""
    combo = []
    for choices in reversed(per_input):
        k, r = divmod(k, len(choices))
        combo.insert(0, list(choices[r]))
    return combo


def key(combo):
    return tuple(tuple(p) for p in combo)


def candidates(valid1, ndim, cap, seed):
    """The combinations on a mesh of `ndim` dims whose placements on each
    mesh dim form a valid 1-D combination (the ones that can be valid), at
    most `cap` (a fixed sample beyond)."""
    n = len(valid1) ** ndim
    out = []
    for k in range(n) if n <= cap else sorted(random.Random(seed).sample(range(n), cap)):
        dims = []
        for _ in range(ndim):
            k, r = divmod(k, len(valid1))
            dims.insert(0, valid1[r])
        out.append([[d[i][0] for d in dims] for i in range(len(dims[0]))])
    return out


def pick(per_input, total, first, cap, seed):
    """`first` (the combinations that can be valid), then a fixed random
    sample of the others, `cap` in all: a uniform sample of a space where
    few are valid (a 2x2 mesh's layer norm: 10 of 1296) would miss them."""
    rng = random.Random(seed)
    chosen = {key(c) for c in first}
    rest = []
    for k in sorted(rng.sample(range(total), min(total, cap + len(first)))):
        c = decode(k, per_input)
        if len(first) + len(rest) < cap and key(c) not in chosen:
            rest.append(c)
    return first + rest


def build(ops, cap):
    """The cases (one per overload, variant, mesh and combination) with
    their plain results and ground truth; (cases, per-op notes, totals)."""
    made, notes, totals = [], {}, collections.Counter()
    for op in ops:
        name, overload = op.rsplit(".", 1)
        if C.nondeterministic(name):
            notes[op] = "random or uninitialised output: skipped"
            continue
        vs = C.variants(name, overload)
        if not vs:
            notes[op] = "no case (cases.py cannot make one)"
            continue
        for vi, (args, inputs) in enumerate(vs):
            base = {"op": name, "overload": overload, "args": args, "backward": False, "values": True}
            plain, _ = run.plain_reference(dict(base, inputs=[{"full": t.tensor} for t in inputs]))
            if not plain:
                notes[op] = "no tensor output: skipped"
                continue
            ctx = context(base, inputs, plain)

            def judged(combo, mesh):
                case = dict(base, id="%s v%d %s" % (op, vi, C.describe(mesh, combo)), mesh=list(mesh),
                            inputs=[{"full": t.tensor, "placements": p} for t, p in zip(inputs, combo)])
                valid, placements = ground_truth(case, combo, ctx)
                return {"case": case, "op": op, "plain": plain, "valid": valid, "truth": placements}

            # Every 1-D combination is judged (cheap, no launch): its valid
            # ones are tried first, and on [2, 2] those whose placements on
            # each mesh dim form valid 1-D combinations.
            judged1 = {}

            def one_d(combo):
                if key(combo) not in judged1:
                    judged1[key(combo)] = judged(combo, MESHES[0])
                return judged1[key(combo)]

            per1, total1 = space(inputs, 1)
            ones = [decode(k, per1) for k in range(total1)] if total1 <= LIMIT_1D else \
                [decode(k, per1) for k in sorted(random.Random(op).sample(range(total1), LIMIT_1D))]
            valid1 = [c for c in ones if one_d(c)["valid"]]
            for mesh in MESHES:
                per_input, total = space(inputs, len(mesh))
                totals[(op, len(mesh))] += total
                seed = "%s v%d %s" % (op, vi, mesh)
                for combo in pick(per_input, total, candidates(valid1, len(mesh), cap, seed), cap, seed):
                    if len(mesh) == 1:
                        made.append(one_d(combo))
                    else:
                        made.append(per_mesh_dim(judged(combo, mesh), [one_d([[pl[k]] for pl in combo])
                                                                       for k in range(len(mesh))]))
    return made, notes, totals


def per_mesh_dim(m, ones):
    """Keeps of a 2-D combination's output placements those whose part on
    each mesh dim k explains the 1-D combination on k (`ones`), as DTensor
    expands a rule per mesh dim. Without it, P(max) on one mesh dim and
    P(sum) on the other can match by chance: dot on [R,S(0)] x [S(0),R] has
    local x_j.y_i, and max over j then sum over i can equal x.y."""
    if m["valid"]:
        truth = [{p for p in ps if all(o["valid"] and (p[k],) in o["truth"][i] for k, o in enumerate(ones))}
                 for i, ps in enumerate(m["truth"])]
        m["valid"], m["truth"] = (True, truth) if all(truth) else (False, None)
    return m


def run_meshguard(made, program, launcher, timeout, work):
    """id -> meshguard's record, through run.py's launch (2 ranks, then 4)."""
    cases_path = os.path.join(work, "validate-cases.pt")
    torch.save(run.tuplify([m["case"] for m in made]), cases_path)
    records = {}
    for nproc in sorted({R.mesh_size(m["case"]["mesh"]) for m in made}):
        ids = [m["case"]["id"] for m in made if R.mesh_size(m["case"]["mesh"]) == nproc]
        for r in run.run_side(launcher, nproc, timeout, [program], "meshguard", cases_path, ids, work):
            records[r["id"]] = r
    return records


# ---------------------------------------------------------------------------
# Judging and reporting


def judge(m, rec):
    """(verdict, detail): incorrect, failed, missing-refused, missing-moved,
    local (valid, run without collectives), or ok (needs communication)."""
    status = rec.get("status")
    if status in ("error", "diverged", "crashed"):
        return "failed", rec.get("error", "")
    if status == "ok":
        got = [o["value"] for o in rec["outputs"]]
        if len(got) != len(m["plain"]) or not all(compare.close(g, p) for g, p in zip(got, m["plain"])):
            return "incorrect", "output %s differs from the plain call" % _placed(rec)
    truth = "valid as %s" % " ".join("/".join("[%s]" % ",".join(p) for p in sorted(ps, key=_plainest)[:2])
                                     for ps in m["truth"]) if m["valid"] else ""
    if status != "ok":
        return ("missing-refused" if m["valid"] else "ok"), "%s; meshguard refuses: %s" % (truth, rec.get("error", ""))
    comm = dict(rec.get("comm_fwd", {}))
    if not m["valid"]:
        return "ok", ""
    if sum(comm.values()):
        return "missing-moved", "%s; meshguard issues %s -> %s" % (truth, compare._comm(comm), _placed(rec))
    if reduced_unrecorded(m, rec):
        return "missing-moved", "%s; meshguard reduce-scatters a Partial input -> %s" % (truth, _placed(rec))
    return "local", ""


def reduced_unrecorded(m, rec):
    """Whether meshguard reduced a Partial input with a collective its record
    leaves out: meshguard_side.cpp counts all_reduce, all_gather and
    broadcast, not reduce_scatter (P -> S). A P(sum) input on mesh dim k
    must be reduced by a collective unless the output stays Partial on k;
    an output placement the local call does not give, with no Partial on k,
    means a reduce-scatter."""
    got = [tuple(o["placements"] or ()) for o in rec["outputs"]]
    if all(g in t for g, t in zip(got, m["truth"])):
        return False
    combo = [s["placements"] for s in m["case"]["inputs"]]
    return any(any(pl[k] == "P(sum)" for pl in combo) and not any(len(g) > k and g[k].startswith("P(") for g in got)
               for k in range(len(m["case"]["mesh"])))


def _plainest(placements):
    """Fewest Partials, then fewest Shards: the simplest output placement first."""
    return sum(p[0] == "P" for p in placements), sum(p[0] == "S" for p in placements), placements


def _placed(rec):
    return " ".join("[%s]" % ",".join(o["placements"] or ["plain"]) for o in rec.get("outputs", []))


COLUMNS = ("combinations", "valid", "incorrect", "missing-refused", "missing-moved", "failed")


def tally(made, records):
    """(rows: (op, mesh ndim) -> Counter, examples: verdict -> lines)."""
    rows = collections.OrderedDict()
    examples = collections.defaultdict(list)
    for m in made:
        key = (m["op"], len(m["case"]["mesh"]))
        row = rows.setdefault(key, collections.Counter())
        verdict, detail = judge(m, records[m["case"]["id"]])
        row["combinations"] += 1
        row["valid"] += m["valid"]
        row[verdict] += 1
        if verdict not in ("ok", "local"):
            examples[verdict].append("%s: %s" % (m["case"]["id"], detail))
    return rows, examples


def summary_line(rows, seconds):
    total = sum(rows.values(), collections.Counter())
    return ("validate: %d overloads, %d combinations (%d valid without communication): incorrect %d, "
            "missing %d (refused %d, moved data %d), failed %d; %.0f s" % (
                len({op for op, _ in rows}), total["combinations"], total["valid"], total["incorrect"],
                total["missing-refused"] + total["missing-moved"], total["missing-refused"],
                total["missing-moved"], total["failed"], seconds))


def write_report(path, rows, examples, notes, totals, cap, seconds, command, full_note):
    out = ["# Validation: meshguard's sharding rules against brute force\n",
           "Generated by `%s` on %s against PyTorch %s (plain torch for the ground truth, no distribution; "
           "meshguard through `meshguard_conformance` on Gloo). How it works: the docstring of "
           "[test/conformance/validate.py](../../test/conformance/validate.py); in the manner of PyTorch's "
           "`torch/distributed/tensor/_ops/strategy_validation.py`.\n" % (
               command, datetime.date.today().isoformat(), torch.__version__),
           "For each case of cases.py and each placement combination of its tensor inputs (per mesh dim R, S(d), "
           "P(sum) for floating operands) on meshes 2 and 2x2, the op runs on each rank's local pieces in plain "
           "torch: the combination is **valid without communication** when the local outputs are exactly the pieces "
           "of the full result under some output placement (R, S(d), P(sum/avg/max/min)). Against chance matches: "
           "two splits of a Partial input (the harness's and a sign-varying one), the values as given, permuted "
           "twice, and with a 0 in each Partial input; an output that depends on a Partial input stays "
           "Partial on its mesh dim, and on 2x2 the output placement must also hold per mesh dim (as DTensor "
           "expands a rule). meshguard runs the same combination. **incorrect**: meshguard's value differs from "
           "the plain call (0 allowed). **missing**: valid without communication, but meshguard refuses it or "
           "issues collectives. **failed**: meshguard's ranks crash or diverge.\n",
           "Cap: %d combinations per case and mesh: first those that can be valid (on 2 the valid ones, on 2x2 "
           "those valid on each mesh dim), then a fixed random sample of the others; *tried (of)* below gives how "
           "many exist. Run time: %.0f s on this machine (2 cores), %s.\n" % (cap, seconds, full_note)]
    out.append("## Totals per mesh\n")
    out.append("| mesh | " + " | ".join(COLUMNS) + " |\n|---|" + "---|" * len(COLUMNS))
    for nd in (1, 2):
        t = sum((c for (op, d), c in rows.items() if d == nd), collections.Counter())
        out.append("| %s | %s |" % ("x".join(map(str, MESHES[nd - 1])), " | ".join(str(t[k]) for k in COLUMNS)))
    out.append("\n## Per overload\n")
    out.append("| overload | mesh | tried (of) | valid | incorrect | missing: refused | missing: moved | failed |")
    out.append("|---|---|---|---|---|---|---|---|")
    for (op, nd), c in rows.items():
        out.append("| `%s` | %s | %d (%d) | %d | %d | %d | %d | %d |" % (
            op, "x".join(map(str, MESHES[nd - 1])), c["combinations"], totals[(op, nd)], c["valid"], c["incorrect"],
            c["missing-refused"], c["missing-moved"], c["failed"]))
    for op, why in sorted(notes.items()):
        out.append("| `%s` | | | | | | | %s |" % (op, why))
    for verdict in ("incorrect", "failed", "missing-refused", "missing-moved"):
        lines = examples.get(verdict, [])
        if lines:
            out.append("\n## %s: %d, e.g.\n" % (verdict, len(lines)))
            out += ["- " + line.replace("|", "\\|")[:300] for line in _spread(lines, 12)]
    out.append("\n## Limits\n")
    out.append("- The ground truth calls the op on local pieces with the case's own arguments. Arguments that "
               "carry global sizes or indices (a view's size, slice and select indices, split sizes) make that "
               "call fail or differ, so for those ops *missing* is a lower bound (meshguard rewrites them).")
    out.append("- meshguard_conformance records all_reduce, all_gather and broadcast, not reduce_scatter: a "
               "reduce-scatter of a Partial input is inferred (its output is neither Partial on that mesh dim nor "
               "what the local call gives); one that leaves such a trace nowhere is not seen.")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


def _spread(lines, n):
    """n examples spread over the overloads (not the first overload's n)."""
    by_op = collections.OrderedDict()
    for line in lines:
        by_op.setdefault(line.split(" ")[0], []).append(line)
    picked = []
    while len(picked) < min(n, len(lines)):
        for op in by_op:
            if by_op[op] and len(picked) < n:
                picked.append(by_op[op].pop(0))
    return picked


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--conformance", required=True, help="build/bin/meshguard_conformance")
    ap.add_argument("--launcher", default=os.path.join(ROOT, "scripts", "meshguard-launch"))
    which = ap.add_mutually_exclusive_group()
    which.add_argument("--ops", help="these overloads (comma-separated, e.g. aten::mm.default)")
    which.add_argument("--full", action="store_true", help="every overload of meshguard's rule table")
    ap.add_argument("--cap", type=int, default=CAP, help="combinations per case and mesh (default %d)" % CAP)
    ap.add_argument("--report", help="write the markdown report here")
    ap.add_argument("--work", help="keep the cases and meshguard's records here")
    ap.add_argument("--timeout", type=int, default=1500, help="per launch of meshguard's ranks, seconds")
    args = ap.parse_args()
    if args.cap < 1:
        ap.error("--cap must be at least 1")
    if not os.access(args.conformance, os.X_OK):
        ap.error("not an executable: %s" % args.conformance)
    started = time.time()
    torch.set_num_threads(1)  # tiny tensors: threads only contend for the shared cores (8x slower on 2)
    work = args.work or tempfile.mkdtemp(prefix="meshguard-validate-")
    os.makedirs(work, exist_ok=True)
    # A copy: a rebuild of the binary while the ranks start would mix versions.
    program = shutil.copy(args.conformance, os.path.join(work, "meshguard_conformance"))
    table = subprocess.run([program, "--list-rules"], capture_output=True, text=True, check=True).stdout.split()
    if args.ops:
        ops = [o.strip() for o in args.ops.split(",") if o.strip()]
        unknown = [o for o in ops if o not in table and not _aten_overload(o)]
        if unknown:
            ap.error("unknown overload(s): %s (spelled aten::name.overload, e.g. aten::mm.default)" % ", ".join(unknown))
    else:
        ops = table if args.full else [o for o in SAMPLE if o in table]
    made, notes, totals = build(ops, args.cap)
    if args.ops:
        for kv in notes.items():
            print("validate: %s: %s" % kv, file=sys.stderr)
    if not made:
        ap.error("nothing to validate: no overload here has a case cases.py can make")
    truth_s = time.time() - started
    print("validate: %d overloads, %d combinations on meshes 2 and 2x2 (cap %d); ground truth in %.0f s" % (
        len(ops), len(made), args.cap, truth_s), flush=True)
    records = run_meshguard(made, program, args.launcher, args.timeout, work)
    rows, examples = tally(made, records)
    seconds = time.time() - started
    for verdict in ("incorrect", "failed"):
        for line in examples.get(verdict, []):
            print("%s: %s" % (verdict.upper(), line))
    if args.report:
        command = "python3 test/conformance/validate.py --conformance build/bin/meshguard_conformance"
        command += " --full" if args.full else (" --ops " + args.ops if args.ops else "")
        command += "" if args.cap == CAP else " --cap %d" % args.cap
        write_report(args.report, rows, examples, notes, totals, args.cap, seconds, command + " --report " + args.report,
                     full_estimate(args.full, len(table), len({op for op, _ in rows}), seconds))
    print(summary_line(rows, seconds))
    return 1 if examples.get("incorrect") or examples.get("failed") else 0


def full_estimate(full, table_size, ran, seconds):
    """How long --full takes, at this run's rate per overload."""
    if full:
        return "every overload of the rule table"
    return "`--full` (the rule table's %d overloads) about %.0f minutes at this run's rate" % (
        table_size, table_size * seconds / max(ran, 1) / 60)


def _aten_overload(name):
    try:
        return name.startswith("aten::") and C.schema_of(*name.rsplit(".", 1)) is not None
    except (AttributeError, RuntimeError, TypeError, ValueError):
        return False


if __name__ == "__main__":
    sys.exit(main())
