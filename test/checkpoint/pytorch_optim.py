"""PyTorch's side of the optimizer-state checkpoint test: an MLP whose
parameters are Shard(0) DTensors, trained by Adam from gradients of the
full model (the same on every rank).

  save DIR    (2 ranks) two steps, then dcp.save of get_state_dict's
              {"model", "optim"} into DIR/adam; two more steps give the
              parameters after steps 3 and 4, written with the data to
              DIR/adam.expected.pt.
  resume DIR  (any world size) a fresh model and Adam (a wrong lr) take
              DIR/adam_mg, meshguard's save after its step 3, through
              dcp.load and set_state_dict; step 4 must give the expected
              parameters, and the lr must be the checkpoint's.

usage (through scripts/meshguard-launch): pytorch_optim.py save|resume DIR
"""

import os
import sys

import torch
import torch.distributed as dist
import torch.distributed.checkpoint as dcp
from torch.distributed.checkpoint.state_dict import get_state_dict, set_state_dict
# results.finish: a barrier, then os._exit past c10d's teardown.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "conformance"))
from results import finish  # noqa: E402
from torch.distributed.tensor import Shard, distribute_tensor, init_device_mesh


def mlp():
    return torch.nn.Sequential(torch.nn.Linear(5, 3), torch.nn.Tanh(), torch.nn.Linear(3, 2))


def sharded(mesh, init):
    """The MLP with `init`'s values, every parameter Shard(0) over `mesh`."""
    model = mlp()
    for name, p in list(model.named_parameters()):
        module, attr = name.rsplit(".", 1)
        setattr(model.get_submodule(module), attr,
                torch.nn.Parameter(distribute_tensor(init[name].clone(), mesh, [Shard(0)])))
    return model


def step(model, opt, mesh, x, y):
    """One Adam step, the gradients taken on the full model."""
    full = mlp()
    full.load_state_dict({n: p.full_tensor() for n, p in model.named_parameters()})
    ((full(x) - y) ** 2).mean().backward()
    grads = dict(full.named_parameters())
    for name, p in model.named_parameters():
        p.grad = distribute_tensor(grads[name].grad, mesh, [Shard(0)])
    opt.step()
    opt.zero_grad()


def full_params(model):
    return {n: p.full_tensor().detach().clone() for n, p in model.named_parameters()}


def main():
    mode, out = sys.argv[1], sys.argv[2]
    dist.init_process_group("gloo")
    mesh = init_device_mesh("cpu", (dist.get_world_size(),))
    if mode == "save":
        torch.manual_seed(3)
        init = {n: p.detach().clone() for n, p in mlp().named_parameters()}
        g = torch.Generator().manual_seed(5)
        x, y = torch.randn(6, 5, generator=g), torch.randn(6, 2, generator=g)
        model = sharded(mesh, init)
        opt = torch.optim.Adam(model.parameters(), lr=0.01, betas=(0.8, 0.99))
        for _ in range(2):
            step(model, opt, mesh, x, y)
        msd, osd = get_state_dict(model, opt)
        dcp.save({"model": msd, "optim": osd}, checkpoint_id=os.path.join(out, "adam"))
        expected = {"x": x, "y": y}
        expected.update({"init." + n: v for n, v in init.items()})
        expected.update({"step2." + n: v for n, v in full_params(model).items()})
        for k in ("exp_avg", "exp_avg_sq"):
            expected.update({"%s.%s" % (k, n): opt.state[p][k].full_tensor().clone()
                             for n, p in model.named_parameters()})
        step(model, opt, mesh, x, y)
        expected.update({"step3." + n: v for n, v in full_params(model).items()})
        step(model, opt, mesh, x, y)
        expected.update({"step4." + n: v for n, v in full_params(model).items()})
        if dist.get_rank() == 0:
            torch.save(expected, os.path.join(out, "adam.expected.pt"))
        finish()
        return
    expected = torch.load(os.path.join(out, "adam.expected.pt"))
    init = {n[len("init."):]: v for n, v in expected.items() if n.startswith("init.")}
    model = sharded(mesh, {n: torch.zeros_like(v) for n, v in init.items()})
    opt = torch.optim.Adam(model.parameters(), lr=0.5, betas=(0.8, 0.99))
    msd, osd = get_state_dict(model, opt)
    dcp.load({"model": msd, "optim": osd}, checkpoint_id=os.path.join(out, "adam_mg"))
    set_state_dict(model, opt, model_state_dict=msd, optim_state_dict=osd)
    bad = []
    if opt.param_groups[0]["lr"] != 0.01:
        bad.append("lr %r, not the checkpoint's 0.01" % opt.param_groups[0]["lr"])
    for n, v in full_params(model).items():
        if not torch.allclose(v, expected["step3." + n], rtol=1e-5, atol=1e-6):
            bad.append("%s after loading" % n)
    step(model, opt, mesh, expected["x"], expected["y"])
    for n, v in full_params(model).items():
        if not torch.allclose(v, expected["step4." + n], rtol=1e-5, atol=1e-6):
            bad.append("%s after step 4" % n)
    if bad:
        print("rank %d: resuming meshguard's Adam state differs: %s" % (dist.get_rank(), ", ".join(bad)))
    else:
        print("PyTorch resumed meshguard's Adam on %d ranks: step 4 as expected" % dist.get_world_size())
    finish(1 if bad else 0)


if __name__ == "__main__":
    main()
