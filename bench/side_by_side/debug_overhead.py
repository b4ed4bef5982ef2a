#!/usr/bin/env python3
"""PyTorch's side of the debug-mode comparison (run.py): all_reduce and
broadcast on a Gloo group made with TORCH_DISTRIBUTED_DEBUG=OFF and on one
made with DETAIL (PyTorch then wraps it in a ProcessGroupWrapper that checks
every collective's op and shapes across ranks first), interleaved call by
call as meshguard_debug_bench does with its mode on and off. One rank of a
launch; rank 0 prints one JSON object per row, as meshguard_debug_bench --json.

  scripts/meshguard-launch --nproc 2 -- python debug_overhead.py MAX_BYTES
"""

import json
import os
import statistics
import sys
import time

import torch
import torch.distributed as dist
from torch._C._distributed_c10d import DebugLevel, set_debug_level


def timed_us(f):
    t0 = time.perf_counter_ns()
    f()
    return (time.perf_counter_ns() - t0) / 1e3


def main():
    max_bytes = int(sys.argv[1])
    set_debug_level(DebugLevel.OFF)
    dist.init_process_group("gloo")
    plain = dist.new_group()
    set_debug_level(DebugLevel.DETAIL)
    detail = dist.new_group()  # created under DETAIL: wrapped
    set_debug_level(DebugLevel.OFF)
    size = 4
    while size <= max_bytes:
        numel = size // 4
        iters = 300 if size <= 64 << 10 else 60 if size <= 1 << 20 else 12
        t = torch.zeros(numel)
        for op in ("all_reduce_", "broadcast_"):
            def call(group):
                if op == "all_reduce_":
                    dist.all_reduce(t, group=group)
                else:
                    dist.broadcast(t, 0, group=group)
            offs, ons = [], []
            for i in range(iters + 3):
                a = timed_us(lambda: call(plain))
                b = timed_us(lambda: call(detail))
                if i >= 3:
                    offs.append(a)
                    ons.append(b)
            if dist.get_rank() == 0:
                print(json.dumps({"bytes": size, "op": op, "default_us": statistics.median(offs),
                                  "debug_us": statistics.median(ons)}), flush=True)
        size *= 16
    dist.barrier()  # no rank tears its connections down while a peer still uses them
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
    sys.stdout.flush()
    os._exit(0)  # c10d's threads can abort the interpreter's teardown after the work is done
