#!/usr/bin/env python3
"""One rank of the side-by-side training run on PyTorch's own DTensor (Gloo).

usage (through scripts/meshguard-launch): pytorch_side.py DATA.pt PARALLEL OUT.json [--time]

PARALLEL: tp (parallelize_module, 1-D mesh), sp (the same with sequence
parallelism, block and llama), fsdp (fully_shard, 1-D mesh),
fsdp_tp (parallelize_module on mesh["tp"], then fully_shard on mesh["dp"],
a 2x2 mesh). Trains on the batches of DATA.pt (models.py) with SGD and
writes on rank 0, per step, the loss (the mean over the whole batch) and the
collectives the step issued (kind -> [count, bytes]); with --time, no
recording and the wall time of each step instead.
"""

import datetime
import json
import os
import sys
import time
import warnings

import torch
import torch.distributed as dist
from torch.distributed.fsdp import fully_shard
from torch.distributed.tensor import DTensor, Replicate, Shard, init_device_mesh
from torch.distributed.tensor.parallel import (ColwiseParallel, PrepareModuleInput, RowwiseParallel,
                                               SequenceParallel, loss_parallel, parallelize_module)
from torch.utils._python_dispatch import TorchDispatchMode

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import models  # noqa: E402
import results  # noqa: E402

warnings.filterwarnings("ignore")

# The styles of each model (PyTorch's names; meshguard_side.cpp has the same plan).
PLANS = {
    "mlp": {"fc1": ColwiseParallel(), "fc2": RowwiseParallel()},
    "block": {
        "tok": RowwiseParallel(input_layouts=Replicate()),
        "wq": ColwiseParallel(), "wk": ColwiseParallel(), "wv": ColwiseParallel(), "wo": RowwiseParallel(),
        "w1": ColwiseParallel(), "w2": RowwiseParallel(),
        "head": ColwiseParallel(output_layouts=Replicate()),
    },
    # torchtitan's llama3 plan (torchtitan/models/llama3/infra/parallelize.py,
    # apply_tp) without its sequence parallelism: the output head keeps the
    # logits sharded on the vocab (Shard(-1), a DTensor) for loss_parallel.
    "llama": {
        "tok_embeddings": RowwiseParallel(input_layouts=Replicate()),
        "attention.wq": ColwiseParallel(), "attention.wk": ColwiseParallel(), "attention.wv": ColwiseParallel(),
        "attention.wo": RowwiseParallel(),
        "feed_forward.w1": ColwiseParallel(), "feed_forward.w2": RowwiseParallel(),
        "feed_forward.w3": ColwiseParallel(),
        "output": ColwiseParallel(output_layouts=Shard(-1), use_local_output=False),
    },
}

# Sequence parallelism (sp): the residual stream sharded on the sequence dim
# between the layers, the norms SequenceParallel (Megatron-SP, torchtitan's plan).
SP_PLANS = {
    "block": {
        "tok": RowwiseParallel(input_layouts=Replicate(), output_layouts=Shard(1)),
        "ln1": SequenceParallel(), "ln2": SequenceParallel(),
        "wq": ColwiseParallel(input_layouts=Shard(1)), "wk": ColwiseParallel(input_layouts=Shard(1)),
        "wv": ColwiseParallel(input_layouts=Shard(1)), "wo": RowwiseParallel(output_layouts=Shard(1)),
        "w1": ColwiseParallel(input_layouts=Shard(1)), "w2": RowwiseParallel(output_layouts=Shard(1)),
        "head": ColwiseParallel(input_layouts=Shard(1), output_layouts=Replicate()),
    },
    # torchtitan's llama3 plan as it is (apply_tp, loss parallel on).
    "llama": {
        "tok_embeddings": RowwiseParallel(input_layouts=Replicate(), output_layouts=Shard(1)),
        "attention_norm": SequenceParallel(),
        "attention": PrepareModuleInput(input_layouts=(Shard(1),), desired_input_layouts=(Replicate(),)),
        "attention.wq": ColwiseParallel(), "attention.wk": ColwiseParallel(), "attention.wv": ColwiseParallel(),
        "attention.wo": RowwiseParallel(output_layouts=Shard(1)),
        "ffn_norm": SequenceParallel(),
        "feed_forward": PrepareModuleInput(input_layouts=(Shard(1),), desired_input_layouts=(Replicate(),)),
        "feed_forward.w1": ColwiseParallel(), "feed_forward.w2": RowwiseParallel(output_layouts=Shard(1)),
        "feed_forward.w3": ColwiseParallel(),
        "norm": SequenceParallel(),
        "output": ColwiseParallel(input_layouts=Shard(1), output_layouts=Shard(-1), use_local_output=False),
    },
}


class CollectiveRecorder(TorchDispatchMode):
    """Every c10d collective the step issues, with the bytes of its input
    (an all-gather's local chunk, a reduce-scatter's or all-reduce's whole tensor)."""

    def __init__(self):
        super().__init__()
        self.counts = {}

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        if any(issubclass(t, DTensor) for t in types):
            # Let DTensor dispatch with the mode still on: the collectives of
            # its redistributions then come back here (as CommDebugMode does).
            return NotImplemented
        name = str(func.overloadpacket)
        kind = results.collective_kind(name)
        if name.startswith(("c10d.", "_c10d_functional.")) and kind in results.KINDS.values():
            source = args[1] if ("_base_" in name or "coalesced" in name) else args[0]
            tensors = source if isinstance(source, (list, tuple)) else [source]
            n = sum(t.numel() * t.element_size() for t in tensors if isinstance(t, torch.Tensor))
            c = self.counts.setdefault(kind, [0, 0])
            c[0] += 1
            c[1] += n
        return func(*args, **(kwargs or {}))


def build(kind, sizes, values, parallel, world):
    model = models.MODELS[kind](sizes)
    with torch.no_grad():
        for name, p in model.named_parameters():
            p.copy_(values[name])
    if parallel in ("tp", "sp"):
        mesh = init_device_mesh("cpu", (world,))
        parallelize_module(model, mesh, (PLANS if parallel == "tp" else SP_PLANS)[kind])
        return model, 1, 0
    if parallel == "fsdp":
        mesh = init_device_mesh("cpu", (world,))
        fully_shard(model, mesh=mesh)
        return model, world, dist.get_rank()
    mesh = init_device_mesh("cpu", (2, world // 2), mesh_dim_names=("dp", "tp"))
    parallelize_module(model, mesh["tp"], PLANS[kind])
    fully_shard(model, mesh=mesh["dp"])
    return model, 2, mesh.get_coordinate()[0]


def main():
    data, parallel, out_path = sys.argv[1:4]
    timing = "--time" in sys.argv[4:]
    timeout = datetime.timedelta(seconds=results.COLLECTIVE_TIMEOUT_S)
    dist.init_process_group("gloo", timeout=timeout)
    world, rank = dist.get_world_size(), dist.get_rank()
    torch.set_num_threads(1)
    kind, sizes, lr, values, batches = models.read_data(data)
    model, dp, dp_rank = build(kind, sizes, values, parallel, world)
    opt = torch.optim.SGD(model.parameters(), lr=lr)
    vocab_parallel = kind == "llama" and parallel != "fsdp"
    losses, comms, times = [], [], []
    for x, y in batches:
        x, y = x.chunk(dp)[dp_rank], y.chunk(dp)[dp_rank]
        recorder = CollectiveRecorder()
        start = time.perf_counter()
        with recorder if not timing else _nothing():
            # The llama's vocab-sharded logits (tp, sp, fsdp_tp): PyTorch's
            # vocab-parallel cross-entropy, forward and backward.
            with loss_parallel() if vocab_parallel else _nothing():
                loss = models.MODELS[kind].loss(model(x), y)
                loss.backward()
            opt.step()
            opt.zero_grad()
        times.append((time.perf_counter() - start) * 1e3)
        # The whole batch's loss: each rank's is its dp chunk's mean
        # (a Replicate DTensor under loss_parallel).
        total = (loss.full_tensor() if isinstance(loss, DTensor) else loss).detach().clone()
        dist.all_reduce(total)
        losses.append(total.item() / world)
        comms.append(recorder.counts)
    # Buffers (BatchNorm's running statistics) stay plain tensors under
    # fully_shard, each rank's updated from its own batch: rank 0's.
    buffers = {n: b.detach().double().flatten().tolist() for n, b in model.named_buffers()}
    if rank == 0:
        with open(out_path, "w") as f:
            json.dump({"losses": losses, "comms": comms, "ms": times, "buffers": buffers}, f)
    results.finish()


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


if __name__ == "__main__":
    main()
