"""What both sides share: how a case's arguments are passed, how Partial
inputs are made, how collectives are named, and what a result holds.

A result (one per case, written by rank 0 of each side):
  id, status "ok" | "refused", error (refused: the first line)
  outputs   [{"placements": ["S(0)"] or None for a plain tensor, "shape", "stride", "value"}]
  grads     per input: {"placements", "value"} or None (backward cases)
  comm_fwd, comm_bwd   {"all_reduce": 1, "all_gather": 2, ...}
meshguard_side.cpp writes the same fields.
"""

import io
import os
import struct
import sys

import torch
import torch.distributed as dist


def mesh_size(mesh):
    n = 1
    for s in mesh:
        n *= s
    return n


def partial_factor(texts, coordinate, shape):
    """This rank's share of a Partial input: along each Partial mesh dim of
    size n, coordinate c holds (2c+1)/n^2 of the value for a sum (the
    shares add up to 1) and (2c+1)/n for an avg (they average to 1), so
    that no rank's local value equals the global one."""
    f = 1.0
    for m, t in enumerate(texts):
        n, c = shape[m], coordinate[m]
        if t == "P(sum)":
            f *= (2 * c + 1) / (n * n)
        elif t == "P(avg)":
            f *= (2 * c + 1) / n
    return f


KINDS = {
    "all_reduce": "all_reduce", "allreduce": "all_reduce",
    "all_gather_into_tensor": "all_gather", "all_gather": "all_gather", "allgather": "all_gather",
    "_allgather_base": "all_gather", "allgather_into_tensor_coalesced": "all_gather",
    "reduce_scatter_tensor": "reduce_scatter", "reduce_scatter": "reduce_scatter",
    "_reduce_scatter_base": "reduce_scatter", "reduce_scatter_tensor_coalesced": "reduce_scatter",
    "all_to_all_single": "all_to_all", "alltoall": "all_to_all",
    "broadcast": "broadcast", "scatter": "scatter",
}


def collective_kind(op_text):
    """'_c10d_functional.all_gather_into_tensor.default' -> 'all_gather'."""
    for part in op_text.replace("_.", ".").split("."):
        if part.rstrip("_") in KINDS:
            return KINDS[part.rstrip("_")]
    return op_text


# c10::ScalarType's codes of the dtypes cases name (c10/core/ScalarType.h).
DTYPE_CODES = {torch.int32: 3, torch.int64: 4, torch.float16: 5, torch.float32: 6, torch.float64: 7}


def call_arguments(case, ins):
    pos, kw = [], {}
    for a in case["args"]:
        if a["kind"] == "input":
            v = ins[a["index"]]
        elif a["kind"] == "inputs":  # -1: None in a Tensor?[]
            v = [ins[i] if i >= 0 else None for i in a["indices"]]
        elif a.get("dtype"):
            v = {code: dtype for dtype, code in DTYPE_CODES.items()}[a["value"]]
        else:
            v = a["value"]
        if a["kwarg_only"]:
            kw[a["name"]] = v
        else:
            pos.append(v)
    return pos, kw


def tensor_outputs(out):
    if isinstance(out, torch.Tensor):
        return [out]
    if isinstance(out, (tuple, list)):  # nested: _fused_adam returns lists of tensors
        return [t for o in out for t in tensor_outputs(o)]
    return []


def weights_like(shape):
    """The loss weights the output by this, so that every element's
    gradient differs (as test/runtime/DifferentialCase.h does)."""
    n = mesh_size(shape)
    return torch.arange(n, dtype=torch.float32).reshape(shape).remainder(7).sub(3)


# Seconds a collective waits for a rank that diverged (raised and went on);
# the store waits longer, so that the outcomes of the ranks that waited
# arrive.
COLLECTIVE_TIMEOUT_S = 15
STORE_TIMEOUT_S = 90


def agree(store, index, rank, world, result):
    """The ranks publish their outcome of case `index` through the store and
    read each other's. Returns None when all agree, else the "diverged"
    result that replaces this case's (which ranks did what)."""
    mine = "%s|%s" % (result["status"], result.get("error", ""))
    store.set("case%d/%d" % (index, rank), mine)
    theirs = [store.get("case%d/%d" % (index, r)).decode() for r in range(world)]
    # The same outcome everywhere; a failure only when it is the same failure
    # (a rank that failed differently may have skipped a collective).
    if len(set(t.split("|")[0] for t in theirs)) == 1 and (theirs[0].startswith("ok|") or len(set(theirs)) == 1):
        return None
    return {"id": result["id"], "status": "diverged",
            "error": "; ".join("rank %d %s" % (r, t.replace("|", ": ", 1)) for r, t in enumerate(theirs))}


def finish(code=0):
    """Ends a PyTorch side: when the ranks are in step (code 0), a barrier so
    that no rank tears its connections down while a peer still uses them,
    then the process group goes. Then os._exit: the interpreter's teardown
    destroys c10d's threads in no fixed order and now and then aborts with
    "terminate called without an active exception" after all the work is
    done (seen on block:sp in CI), which would turn a finished run into a
    failure."""
    if code == 0:
        dist.barrier()
        dist.destroy_process_group()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


# A side's results file is a stream of records, one per case, written as the
# case ends (so a side that crashes loses only the case it was in): an
# 8-byte little-endian length, then torch.save's bytes (pickle_save's in C++).
def append_record(f, result):
    buf = io.BytesIO()
    torch.save(result, buf)
    data = buf.getvalue()
    f.write(struct.pack("<Q", len(data)))
    f.write(data)
    f.flush()


def read_records(path):
    out = []
    try:
        with open(path, "rb") as f:
            while True:
                head = f.read(8)
                if len(head) < 8:
                    return out
                (n,) = struct.unpack("<Q", head)
                data = f.read(n)
                if len(data) < n:
                    return out  # cut short by a crash
                out.append(torch.load(io.BytesIO(data), weights_only=False))
    except FileNotFoundError:
        return out
