"""PyTorch's side of the safetensors tests: dcp.save of DTensors on a 1-D
mesh (uneven and empty shards, Replicate, plain and 0-dim tensors, several
dtypes) with HuggingFaceStorageWriter(save_distributed=True), one
.safetensors file per rank; `consolidated` also merges them
(enable_consolidation=True: whole tensors in DIR, the rank files in
DIR/sharded; its merge handles floating dtypes only, and writes a 0-dim
tensor's value as 0: both left out there); `dcp` writes the same
with the default FileSystemWriter, for meshguard-checkpoint convert. Rank 0
writes every tensor's full value to DIR.expected.pt.

usage (through scripts/meshguard-launch): pytorch_hf_save.py DIR distributed|consolidated|dcp
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
from torch.distributed.checkpoint import HuggingFaceStorageWriter  # noqa: E402
from torch.distributed.tensor import Replicate, Shard, distribute_tensor, init_device_mesh  # noqa: E402


def main():
    out, mode = sys.argv[1], sys.argv[2]
    dist.init_process_group("gloo")
    mesh = init_device_mesh("cpu", (dist.get_world_size(),))
    g = torch.Generator().manual_seed(17)
    full = {
        "w": torch.randn(5, 3, generator=g),  # 3 and 2 rows on 2 ranks
        "cols": torch.randn(4, 7, generator=g),
        "b": torch.arange(4.0),
        "tiny": torch.randn(1, 4, generator=g),  # an empty shard
        "bf": torch.randn(3, 4, generator=g).to(torch.bfloat16),
        "h": torch.randn(2, 6, generator=g).to(torch.float16),
        "d": torch.randn(3, 3, generator=g).to(torch.float64),
        "scalar": torch.tensor(3.5),
    }
    placements = {"w": Shard(0), "cols": Shard(1), "b": Replicate(), "tiny": Shard(0), "bf": Shard(0),
                  "h": Shard(1), "d": Shard(0)}
    if mode == "consolidated":
        del full["scalar"]  # PyTorch 2.13's merge writes tensor(0.) for it
    else:
        full["ids"] = torch.tensor([3, 1, 4], dtype=torch.int64)
        full["n32"] = torch.randint(-9, 9, (6, 2), generator=g, dtype=torch.int32)
        full["mask"] = torch.tensor([[True, False, True], [False, False, True]])
        placements["n32"] = Shard(0)
    sd = {k: distribute_tensor(v, mesh, [placements[k]]) if k in placements else v.clone() for k, v in full.items()}
    if mode == "dcp":
        dcp.save(sd, checkpoint_id=out)
    else:
        dcp.save(sd, storage_writer=HuggingFaceStorageWriter(
            out, save_distributed=True, enable_consolidation=(mode == "consolidated")))
    if dist.get_rank() == 0:
        torch.save(full, out + ".expected.pt")
    finish()


if __name__ == "__main__":
    main()
