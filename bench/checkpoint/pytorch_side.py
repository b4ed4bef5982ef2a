"""PyTorch's side of the checkpoint benchmark (run.py): the same state dict
as meshguard_side.cpp (row-sharded DTensors), saved and loaded with dcp.save
and dcp.load, and with dcp.async_save (the time until it returns, and
until its future is done); prints the best times on rank 0. Then the disk itself: each
rank writes and reads its shards' bytes with plain sequential I/O (fsync'd
as meshguard's files are).

usage (through scripts/meshguard-launch): pytorch_side.py DIR TENSORS ROWS REPEATS
"""

import os
import sys
import time

import torch
import torch.distributed as dist
import torch.distributed.checkpoint as dcp
# results.finish: a barrier, then os._exit past c10d's teardown, which now
# and then aborts a finished process.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "test", "conformance"))
from results import finish  # noqa: E402
from torch.distributed.tensor import Shard, distribute_tensor, init_device_mesh


def main():
    path, tensors, rows, repeats = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    dist.init_process_group("gloo")
    mesh = init_device_mesh("cpu", (dist.get_world_size(),))
    sd = {"layer%d.weight" % i: distribute_tensor(torch.randn(rows, 1024), mesh, [Shard(0)]) for i in range(tensors)}
    best_save = best_load = best_write = best_read = 1e9
    for _ in range(repeats):
        t0 = time.perf_counter()
        dcp.save(sd, checkpoint_id=path)
        best_save = min(best_save, time.perf_counter() - t0)
    for _ in range(repeats):
        t0 = time.perf_counter()
        dcp.load(sd, checkpoint_id=path)
        dist.barrier()
        best_load = min(best_load, time.perf_counter() - t0)
    # dcp.async_save on a Gloo group of its own, as PyTorch recommends.
    group = dist.new_group(backend="gloo")
    best_block = best_total = 1e9
    for _ in range(repeats):
        t0 = time.perf_counter()
        future = dcp.async_save(sd, checkpoint_id=path, process_group=group)
        block = time.perf_counter() - t0
        future.result()
        best_block = min(best_block, block)
        best_total = min(best_total, time.perf_counter() - t0)
    raw = os.path.join(path, "raw-%d.bin" % dist.get_rank())
    blobs = [t.to_local().contiguous().numpy().tobytes() for t in sd.values()]
    for _ in range(repeats):
        dist.barrier()
        t0 = time.perf_counter()
        with open(raw, "wb") as f:
            for b in blobs:
                f.write(b)
            f.flush()
            os.fsync(f.fileno())
        dist.barrier()
        best_write = min(best_write, time.perf_counter() - t0)
        t0 = time.perf_counter()
        with open(raw, "rb") as f:
            while f.read(1 << 24):
                pass
        dist.barrier()
        best_read = min(best_read, time.perf_counter() - t0)
    os.remove(raw)
    if dist.get_rank() == 0:
        print("pytorch save %f load %f async_block %f async_total %f" % (best_save, best_load, best_block,
                                                                         best_total))
        print("disk write %f read %f" % (best_write, best_read))
    finish()


if __name__ == "__main__":
    main()
