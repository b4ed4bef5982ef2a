"""PyTorch's side of the checkpoint tests, loading what meshguard saved:
dcp.load into DTensors of other placements (1-D, and 2x2 on 4 ranks) and
into plain tensors; every value must equal DIR.expected.pt's (written by
meshguard's rank 0), and the non-tensor entries must read back.

usage (through scripts/meshguard-launch, 2 or 4 ranks): pytorch_load.py DIR
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
    path = sys.argv[1]
    dist.init_process_group("gloo")
    world = dist.get_world_size()
    # (Written by the test itself, with libtorch's type tags: trusted.)
    expected = torch.load(path + ".expected.pt", weights_only=False)
    layouts = [((world,), [Replicate()]), ((world,), [Shard(0)])]
    if world == 4:
        layouts.append(((2, 2), [Shard(0), Shard(1)]))
    bad = []
    for shape, placements in layouts:
        mesh = init_device_mesh("cpu", shape)
        sd = {}
        for name, full in expected.items():
            ps = [p if not isinstance(p, Shard) or p.dim < full.dim() else Replicate() for p in placements]
            sd[name] = distribute_tensor(torch.zeros_like(full), mesh, ps)
        sd["step"] = 0
        sd["name"] = ""
        dcp.load(sd, checkpoint_id=path)
        for name, full in expected.items():
            if not torch.equal(sd[name].full_tensor(), full):
                bad.append("%s on %s %s" % (name, shape, placements))
        if sd["step"] != 11 or sd["name"] != "meshguard":
            bad.append("objects: step=%r name=%r" % (sd["step"], sd["name"]))
    plain = {name: torch.zeros_like(full) for name, full in expected.items()}
    dcp.load(plain, checkpoint_id=path)
    bad += ["%s into a plain tensor" % n for n, full in expected.items() if not torch.equal(plain[n], full)]
    if bad:
        print("rank %d: dcp.load of meshguard's checkpoint differs: %s" % (dist.get_rank(), ", ".join(bad)))
    else:
        print("dcp.load on %d ranks: every value equal" % world)
    finish(1 if bad else 0)


if __name__ == "__main__":
    main()
