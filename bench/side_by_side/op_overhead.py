#!/usr/bin/env python3
"""PyTorch's side of the per-op overhead benchmark (run.py; op_overhead.cpp
is meshguard's, with the same rows): each row's median ns per call on
DTensors and on their local tensors, interleaved rep by rep, 1 thread. One
rank of a launch; rank 0 prints one JSON object.

  scripts/meshguard-launch --nproc 2 -- python op_overhead.py [ITERS]
"""

import json
import os
import statistics
import sys
import time
import warnings

import torch
import torch.distributed as dist
from torch.distributed.tensor import Replicate, Shard, distribute_tensor, init_device_mesh

warnings.filterwarnings("ignore")


def ns_per_call(f, iters):
    t0 = time.perf_counter_ns()
    for _ in range(iters):
        f()
    return (time.perf_counter_ns() - t0) / iters


def main():
    iters = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    torch.set_num_threads(1)
    dist.init_process_group("gloo")
    mesh = init_device_mesh("cpu", (dist.get_world_size(),))
    torch.manual_seed(0)
    x, y, w, b = torch.randn(64, 64), torch.randn(64, 64), torch.randn(64, 64), torch.randn(64)
    xs, ys = distribute_tensor(x, mesh, [Shard(0)]), distribute_tensor(y, mesh, [Shard(0)])
    xr, wr, br = (distribute_tensor(t, mesh, [Replicate()]) for t in (x, w, b))
    xl, yl = xs.to_local(), ys.to_local()
    # Indexing, convolution and attention on batch shards (issue #39's rows).
    cols = torch.arange(0, 64, 2)
    colsr = distribute_tensor(cols, mesh, [Replicate()])
    img, kernel = torch.randn(8, 4, 8, 8), torch.randn(4, 4, 3, 3)
    imgs, kernelr = distribute_tensor(img, mesh, [Shard(0)]), distribute_tensor(kernel, mesh, [Replicate()])
    imgl = imgs.to_local()
    q = torch.randn(4, 2, 16, 8)
    qs = distribute_tensor(q, mesh, [Shard(0)])
    ql = qs.to_local()
    sdpa = torch.nn.functional.scaled_dot_product_attention
    rows = [
        ("add S(0)+S(0)", lambda: xs + ys, lambda: xl + yl),
        ("add R+R", lambda: xr + wr, lambda: x + w),
        ("mul S(0)*S(0)", lambda: xs * ys, lambda: xl * yl),
        ("mm S(0)xR", lambda: torch.mm(xs, wr), lambda: torch.mm(xl, w)),
        ("mm RxR", lambda: torch.mm(xr, wr), lambda: torch.mm(x, w)),
        ("addmm R+S(0)xR", lambda: torch.addmm(br, xs, wr), lambda: torch.addmm(b, xl, w)),
        ("sum S(0) -> P", lambda: xs.sum(), lambda: xl.sum()),
        ("sum(1) S(0)", lambda: xs.sum(1), lambda: xl.sum(1)),
        ("view S(0)", lambda: xs.view(64, 8, 8), lambda: xl.view(xl.shape[0], 8, 8)),
        ("softmax(-1) S(0)", lambda: torch.softmax(xs, -1), lambda: torch.softmax(xl, -1)),
        ("softmax(-1) R", lambda: torch.softmax(xr, -1), lambda: torch.softmax(x, -1)),
        ("index S(0)[:, cols]", lambda: xs[:, colsr], lambda: xl[:, cols]),
        ("conv2d S(0)", lambda: torch.conv2d(imgs, kernelr), lambda: torch.conv2d(imgl, kernel)),
        ("sdpa S(0)", lambda: sdpa(qs, qs, qs), lambda: sdpa(ql, ql, ql)),
    ]
    out = []
    for name, dtensor, local in rows:
        ns_per_call(dtensor, iters // 10 + 1)  # warm the sharding cache
        ns_per_call(local, iters // 10 + 1)
        d, l = [], []
        for _ in range(7):
            l.append(ns_per_call(local, iters))
            d.append(ns_per_call(dtensor, iters))
        out.append({"name": name, "dtensor_ns": statistics.median(d), "local_ns": statistics.median(l)})
    if dist.get_rank() == 0:
        print(json.dumps({"rows": out}))
    dist.barrier()  # no rank tears its connections down while a peer still uses them
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
    sys.stdout.flush()
    os._exit(0)  # c10d's threads can abort the interpreter's teardown after the work is done
