#!/usr/bin/env python3
"""One rank of the conformance run on PyTorch's own DTensor (Gloo).

usage (through scripts/meshguard-launch): pytorch_side.py CASES.pt OUT.pt [FIRST]

Runs the cases of CASES.pt whose mesh has WORLD_SIZE ranks, from the FIRST
of them on, and on rank 0 appends one result per case to OUT (results.py
says what a result holds and how the records are written). After each case the ranks compare outcomes
through the store; when they differ (a rank raised where the others ran a
collective, which then times out), the case is recorded as "diverged" and
the side exits with 3: run.py starts a fresh side after it.
"""

import datetime
import os
import sys
import warnings

import torch
import torch.distributed as dist
from torch.distributed.tensor import DTensor, Partial, Replicate, Shard, distribute_tensor, init_device_mesh
from torch.distributed.tensor.debug import CommDebugMode

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import results  # noqa: E402

warnings.filterwarnings("ignore")


def placement(text):
    if text == "R":
        return Replicate()
    if text.startswith("S("):
        return Shard(int(text[2:-1]))
    return Partial(text[2:-1])


def placement_text(p):
    if p.is_replicate():
        return "R"
    if type(p) is Shard:
        return "S(%d)" % p.dim
    if p.is_partial():
        return "P(%s)" % p.reduce_op
    return repr(p)  # _StridedShard(dim=1, sf=2) and other private kinds: meshguard has none


def make_input(spec, mesh, requires_grad):
    full = spec["full"].clone()  # cases share their full tensors; in-place ops write into them
    texts = spec["placements"]
    if not any(t.startswith("P(") for t in texts):
        dt = distribute_tensor(full, mesh, [placement(t) for t in texts])
    else:
        base = distribute_tensor(full, mesh, [Replicate() if t.startswith("P(") else placement(t) for t in texts])
        local = base.to_local() * results.partial_factor(texts, mesh.get_coordinate(), list(mesh.shape))
        dt = DTensor.from_local(local, mesh, [placement(t) for t in texts], run_check=False,
                                shape=full.shape, stride=full.stride())
    if requires_grad:
        dt = dt.detach().requires_grad_(True)
    return dt


def comm_counts(mode):
    counts = {}
    for op, n in mode.get_comm_counts().items():
        kind = results.collective_kind(str(op))
        counts[kind] = counts.get(kind, 0) + n
    return counts


def run_case(case, mesh):
    floating = [s["full"].is_floating_point() for s in case["inputs"]]
    ins = [make_input(s, mesh, case["backward"] and f) for s, f in zip(case["inputs"], floating)]
    pos, kw = results.call_arguments(case, ins)
    op = getattr(getattr(torch.ops.aten, case["op"].split("::")[1]), case["overload"])
    result = {"id": case["id"]}
    try:
        with CommDebugMode() as fwd:
            out = op(*pos, **kw)
    except Exception as e:  # a refusal: PyTorch's message, first line
        result.update(status="refused", error="%s: %s" % (type(e).__name__, (str(e).strip().splitlines() or [""])[0]))
        return result
    result.update(status="ok", comm_fwd=comm_counts(fwd), outputs=[])
    try:
        record(case, mesh, ins, out, result)
    except Exception as e:  # the op ran, but reading or differentiating its output failed
        result.update(status="error", error="%s: %s" % (type(e).__name__, (str(e).strip().splitlines() or [""])[0]))
    return result


def record(case, mesh, ins, out, result):
    outs = results.tensor_outputs(out)
    for o in outs:
        if isinstance(o, DTensor):
            result["outputs"].append({"placements": [placement_text(p) for p in o.placements],
                                      "shape": list(o.shape), "stride": list(o.stride()),
                                      "value": o.full_tensor().detach() if case["values"] else None})
        else:
            result["outputs"].append({"placements": None, "shape": list(o.shape), "stride": list(o.stride()),
                                      "value": o.detach() if case["values"] else None})
    if case["backward"] and outs and isinstance(outs[0], DTensor) and outs[0].requires_grad:
        w = distribute_tensor(results.weights_like(outs[0].shape), mesh, [Replicate()] * mesh.ndim)
        with CommDebugMode() as bwd:
            (outs[0] * w).sum().backward()
        result["comm_bwd"] = comm_counts(bwd)
        result["grads"] = []
        for t in ins:
            g = t.grad if t.requires_grad else None
            result["grads"].append(None if g is None else {
                "placements": [placement_text(p) for p in g.placements], "value": g.full_tensor().detach()})


def main():
    cases_path, out_path = sys.argv[1], sys.argv[2]
    first = int(sys.argv[3]) if len(sys.argv) > 3 else 0
    # A collective that a diverged rank never joins ends after this, in every
    # group the meshes make (new_group reads the module's default).
    timeout = datetime.timedelta(seconds=results.COLLECTIVE_TIMEOUT_S)
    dist.distributed_c10d.default_pg_timeout = timeout
    dist.init_process_group("gloo", timeout=timeout)
    store = dist.distributed_c10d._get_default_store()
    store.set_timeout(datetime.timedelta(seconds=results.STORE_TIMEOUT_S))
    world, rank = dist.get_world_size(), dist.get_rank()
    cases = [c for c in torch.load(cases_path, weights_only=False) if results.mesh_size(c["mesh"]) == world]
    meshes = {}
    sink = open(out_path, "wb") if rank == 0 else None
    code = 0
    for i in range(first, len(cases)):
        case = cases[i]
        key = tuple(case["mesh"])
        if key not in meshes:
            meshes[key] = init_device_mesh("cpu", key)
        if os.environ.get("MESHGUARD_CONFORMANCE_TRACE"):
            print("case %d: %s" % (i, case["id"]), flush=True)
        try:
            r = run_case(case, meshes[key])
        except Exception as e:  # making the inputs failed: recorded, the ranks compare below
            r = {"id": case["id"], "status": "error", "error": "%s: %s" % (type(e).__name__, str(e).splitlines()[0])}
        diverged = results.agree(store, i, rank, world, r)
        if sink:
            results.append_record(sink, diverged or r)
        if diverged:
            code = 3
            break
    if sink:
        sink.close()
    results.finish(code)  # code != 0: the process groups are out of step, no barrier


if __name__ == "__main__":
    main()
