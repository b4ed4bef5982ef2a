"""PyTorch's side of the message oracle (compare_messages.py).

Run on every rank of a launcher job (RANK, WORLD_SIZE, MASTER_ADDR,
MASTER_PORT set): makes in PyTorch's Python DTensor (Gloo) the mistakes that
message_oracle.cpp makes in meshguard and prints the first line of each error
as  ORACLE rank=<r> case=<name> line=<first line>.
Lines starting with NOTE are for the reader, not compared.
"""

import datetime
import os
import sys

import torch
import torch.distributed as dist
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.tensor import DTensor, Replicate, Shard, distribute_tensor


def first_line(exc):
    text = str(exc)
    return text.split("\n", 1)[0] if text else type(exc).__name__


def report(rank, name, mistake, prefix="ORACLE"):
    try:
        mistake()
        line = "<no error>"
    except Exception as exc:  # the message is what is compared
        line = first_line(exc)
        if prefix == "NOTE":
            line = f"{type(exc).__name__}: {line}"
    print(f"{prefix} rank={rank} case={name} line={line}", flush=True)


def main():
    rank = int(os.environ["RANK"])
    dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=60))
    mesh = init_device_mesh("cpu", (int(os.environ["WORLD_SIZE"]),))
    pg = mesh.get_group()
    bcast = torch.ops.c10d.broadcast_.default

    # 1. A broadcast whose arguments carry no DeviceMesh. DTensor's dispatcher
    #    (OpDispatcher.unwrap_to_op_info, torch/distributed/tensor/_dispatch.py)
    #    raises "found no DeviceMesh from dtensor args for <op>!" when no
    #    argument of the op carries a mesh; c10d.broadcast_'s arguments
    #    (tensors, process_group, root_rank, root_tensor, asyncOp, timeout).
    report(rank, "no_mesh", lambda: DTensor._op_dispatcher.unwrap_to_op_info(
        bcast, ([], pg, 0, 0, False, -1), {}))
    # What 2.13 says on the neighbouring paths (not compared).
    report(rank, "no_mesh.plain_list", lambda: DTensor._op_dispatcher.unwrap_to_op_info(
        bcast, ([torch.ones(4, 4)], pg, 0, 0, False, -1), {}), prefix="NOTE")
    replicated = distribute_tensor(torch.ones(4, 4), mesh, [Replicate()])
    report(rank, "dist.broadcast(dtensor)", lambda: dist.broadcast(replicated, 0), prefix="NOTE")

    # 2. A tensor op on a DTensor and a non-scalar plain tensor.
    sharded = distribute_tensor(torch.ones(4, 4), mesh, [Shard(0)])
    report(rank, "mixed.op", lambda: sharded + torch.ones(4, 4))

    # 3. A collective (c10d.broadcast_) given a DTensor and a plain tensor.
    report(rank, "mixed.collective", lambda: pg.broadcast([replicated, torch.ones(4, 4)], dist.BroadcastOptions()))
    # The Python fallback's wording of the same error (not compared).
    report(rank, "dist.all_gather(plain_outputs,dtensor)", lambda: dist.all_gather(
        [torch.empty(4, 4) for _ in range(dist.get_world_size())], replicated), prefix="NOTE")

    dist.barrier()
    dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    code = main()
    sys.stdout.flush()
    os._exit(code)  # c10d's threads can abort the interpreter's teardown after the work is done
