"""PyTorch's side of the checkpoint tests: dcp.save of DTensors (uneven and
empty shards, 1-D and 2-D meshes), plain tensors and non-tensor entries,
written by PyTorch 2.x's FileSystemWriter; rank 0 also writes every tensor's
full value to DIR.expected.pt for the loader to compare with.

usage (through scripts/meshguard-launch, 2 or 4 ranks): pytorch_save.py DIR
"""

import os
import sys

import torch
import torch.distributed as dist
import torch.distributed.checkpoint as dcp
# results.finish: a barrier, then os._exit past c10d's teardown, which now
# and then aborts a finished process.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "conformance"))
from results import finish  # noqa: E402
from torch.distributed.tensor import Replicate, Shard, distribute_tensor, init_device_mesh


def main():
    out = sys.argv[1]
    dist.init_process_group("gloo")
    world = dist.get_world_size()
    g = torch.Generator().manual_seed(7)
    full = {}
    sd = {}
    if world == 4:
        mesh = init_device_mesh("cpu", (2, 2))
        full["w2"] = torch.randn(6, 5, generator=g)
        full["r2"] = torch.randn(3, 3, generator=g)
        sd["w2"] = distribute_tensor(full["w2"], mesh, [Shard(0), Shard(1)])
        sd["r2"] = distribute_tensor(full["r2"], mesh, [Replicate(), Shard(0)])
    else:
        mesh = init_device_mesh("cpu", (world,))
        full["w"] = torch.randn(5, 3, generator=g)  # 3 and 2 rows on 2 ranks
        full["cols"] = torch.randn(4, 7, generator=g)
        full["b"] = torch.arange(4.0)
        full["tiny"] = torch.randn(1, 4, generator=g)  # an empty shard
        full["bf"] = torch.randn(3, 4, generator=g).to(torch.bfloat16)
        sd["w"] = distribute_tensor(full["w"], mesh, [Shard(0)])
        sd["cols"] = distribute_tensor(full["cols"], mesh, [Shard(1)])
        sd["b"] = distribute_tensor(full["b"], mesh, [Replicate()])
        sd["tiny"] = distribute_tensor(full["tiny"], mesh, [Shard(0)])
        sd["bf"] = distribute_tensor(full["bf"], mesh, [Shard(0)])
        full["ids"] = torch.tensor([3, 1, 4], dtype=torch.int64)
        full["scalar"] = torch.tensor(3.5)
        sd["ids"] = full["ids"].clone()
        sd["scalar"] = full["scalar"].clone()
        sd["step"] = 7
        sd["name"] = "adam"
        # A model's state dict nested as get_state_dict returns it: DCP
        # flattens it to "model.weight", "model.bias".
        torch.manual_seed(11)  # the same module on every rank
        lin = torch.nn.Linear(3, 2)
        sd["model"] = {k: v.detach().clone() for k, v in lin.state_dict().items()}
        full.update({"model." + k: v.detach().clone() for k, v in lin.state_dict().items()})
    dcp.save(sd, checkpoint_id=out)
    if dist.get_rank() == 0:
        torch.save(full, out + ".expected.pt")
    finish()


if __name__ == "__main__":
    main()
