"""PyTorch's side of the safetensors tests, loading what meshguard wrote:
dcp.load into DTensors (Replicate, Shard(0); 2x2 on 4 ranks) and plain
tensors, through HuggingFaceStorageReader (`safetensors`) or the default
FileSystemReader (`dcp`); every value must equal DIR.expected.pt's.

usage (through scripts/meshguard-launch):
  pytorch_hf_load.py DIR EXPECTED safetensors|dcp [DIR EXPECTED FORMAT]...
"""

import os
import sys

import torch
import torch.distributed as dist
import torch.distributed.checkpoint as dcp
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "conformance"))
from results import finish  # noqa: E402
from torch.distributed.checkpoint import HuggingFaceStorageReader  # noqa: E402
from torch.distributed.tensor import Replicate, Shard, distribute_tensor, init_device_mesh  # noqa: E402


def load(sd, path, fmt):
    if fmt == "safetensors":
        dcp.load(sd, storage_reader=HuggingFaceStorageReader(path))
    else:
        dcp.load(sd, checkpoint_id=path)


def check(path, expected_path, fmt, world):
    # (Written by the test itself: trusted.)
    expected = torch.load(expected_path, weights_only=False)
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
        load(sd, path, fmt)
        for name, full in expected.items():
            if not torch.equal(sd[name].full_tensor(), full):
                bad.append("%s on %s %s" % (name, shape, placements))
    plain = {name: torch.zeros_like(full) for name, full in expected.items()}
    load(plain, path, fmt)
    bad += ["%s into a plain tensor" % n for n, full in expected.items() if not torch.equal(plain[n], full)]
    if bad:
        print("rank %d: dcp.load (%s) of %s differs: %s" % (dist.get_rank(), fmt, path, ", ".join(bad)))
    else:
        print("dcp.load (%s) of %s on %d ranks: every value equal (%d entries)"
              % (fmt, os.path.basename(path), world, len(expected)))
    return not bad


def main():
    args = sys.argv[1:]
    dist.init_process_group("gloo")
    world = dist.get_world_size()
    ok = True
    for i in range(0, len(args), 3):
        ok = check(args[i], args[i + 1], args[i + 2], world) and ok
    finish(0 if ok else 1)


if __name__ == "__main__":
    main()
