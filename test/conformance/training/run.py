#!/usr/bin/env python3
"""Training side by side: the same models, trained with PyTorch's DTensor
(parallelize_module, fully_shard) and with meshguard's, step by step.

  run.py --training BIN [--launcher scripts/meshguard-launch] [--steps N]
         [--configs mlp:tp,block:fsdp,...] [--report FILE]
  run.py --training BIN --time [--rounds R] [--steps N] [--report FILE]

Each config (a model of models.py and a parallelism: tp, sp and fsdp on 2
ranks, fsdp_tp on a 2x2 mesh of 4) starts both sides from the same parameters and
batches (one data file) and compares, step by step, the whole batch's loss
(equal within 1e-5, else exit 1), rank 0's buffers after the last step
(BatchNorm's running statistics; equal within 1e-5, else exit 1) and the collectives of the step (kind,
count, bytes: reported, not required to be equal; the report says why they
differ). --time: the "bench" sizes, no recording, meshguard and PyTorch run
alternately R rounds each; prints the median ms per step and the ratio.
Prints "SKIPPED: ..." and exits 0 when this python has no torch >= 2.
"""

import argparse
import json
import os
import statistics
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import run as conformance  # noqa: E402

sys.path.append(HERE)  # models.py (after the conformance folder: both have a run.py)

CONFIGS = ["mlp:tp", "mlp:fsdp", "mlp:fsdp_tp", "block:tp", "block:sp", "block:fsdp", "block:fsdp_tp",
           "llama:tp", "llama:sp", "llama:fsdp", "llama:fsdp_tp", "convnet:fsdp"]
NPROC = {"tp": 2, "sp": 2, "fsdp": 2, "fsdp_tp": 4}
TOLERANCE = 1e-5
WARMUP = 3  # timed steps dropped at the start of each run


def run_sides(args, config, data, work, timing):
    model, parallel = config.split(":")
    out = {}
    for side, program in (("meshguard", [args.training]),
                          ("pytorch", [sys.executable, os.path.join(HERE, "pytorch_side.py")])):
        path = os.path.join(work, "%s-%s-%s.json" % (model, parallel, side))
        if os.path.exists(path):
            os.remove(path)
        code, tail = conformance.launch(args.launcher, NPROC[parallel], args.timeout,
                                        program + [data, parallel, path] + (["--time"] if timing else []))
        if code != 0 or not os.path.exists(path):
            out[side] = {"error": "exit %d: %s" % (code, tail)}
        else:
            with open(path) as f:
                out[side] = json.load(f)
    return out


def buffer_diff(mg, pt):
    """Max |diff| over rank 0's buffers after the last step; None without any.
    A buffer on one side only is a difference (inf)."""
    a, b = mg.get("buffers", {}), pt.get("buffers", {})
    if not a and not b:
        return None
    if set(a) != set(b) or any(len(a[k]) != len(b[k]) for k in a):
        return float("inf")
    return max((abs(x - y) for k in a for x, y in zip(a[k], b[k])), default=0.0)


def comm_text(step):
    return ", ".join("%s %d (%d B)" % (k, c, b) for k, (c, b) in sorted(step.items())) or "none"


def compare(args, work):
    import models
    rows, failed = [], False
    for config in args.configs:
        model = config.split(":")[0]
        data = os.path.join(work, "%s-test.pt" % model)
        if not os.path.exists(data):
            models.write_data(data, model, "test", args.steps)
        sides = run_sides(args, config, data, work, timing=False)
        errors = [s + ": " + sides[s]["error"] for s in sides if "error" in sides[s]]
        if errors:
            rows.append((config, None, "failed", None, "; ".join(errors), ""))
            print("%-14s FAILED: %s" % (config, "\n".join(errors)))
            failed = True
            continue
        mg, pt = sides["meshguard"], sides["pytorch"]
        diff = max(abs(a - b) for a, b in zip(mg["losses"], pt["losses"]))
        ok = len(mg["losses"]) == len(pt["losses"]) == args.steps and diff <= TOLERANCE
        bdiff = buffer_diff(mg, pt)
        buffers_ok = bdiff is None or bdiff <= TOLERANCE
        failed = failed or not ok or not buffers_ok
        rows.append((config, diff, "equal" if ok else "DIFFERENT", bdiff, comm_text(mg["comms"][-1]),
                     comm_text(pt["comms"][-1])))
        print("%-14s losses %s (max |diff| %.2e over %d steps)%s" % (
            config, "equal" if ok else "DIFFERENT", diff, len(mg["losses"]),
            "" if bdiff is None else ", buffers %s (max |diff| %.2e)" % ("equal" if buffers_ok else "DIFFERENT", bdiff)))
        print("    meshguard per step: %s\n    pytorch   per step: %s" % (rows[-1][4], rows[-1][5]))
    return rows, failed


def timing(args, work):
    import models
    rows = []
    for config in args.configs:
        model = config.split(":")[0]
        data = os.path.join(work, "%s-bench.pt" % model)
        if not os.path.exists(data):
            models.write_data(data, model, "bench", args.steps)
        per_side = {"meshguard": [], "pytorch": []}
        for _ in range(args.rounds):
            sides = run_sides(args, config, data, work, timing=True)
            for side, result in sides.items():
                if "error" in result:
                    raise SystemExit("%s %s failed: %s" % (config, side, result["error"]))
                per_side[side].append(statistics.median(result["ms"][WARMUP:]))
        mg, pt = statistics.median(per_side["meshguard"]), statistics.median(per_side["pytorch"])
        rows.append((config, mg, pt, mg / pt))
        print("%-14s meshguard %8.2f ms/step  pytorch %8.2f ms/step  ratio %.3f" % (config, mg, pt, mg / pt))
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--training", required=True, help="the meshguard_training binary")
    ap.add_argument("--launcher", default=os.path.join(conformance.ROOT, "scripts", "meshguard-launch"))
    ap.add_argument("--configs", default=",".join(CONFIGS), help="model:parallelism,... (default: all of CONFIGS)")
    ap.add_argument("--steps", type=int, default=None, help="steps per run (default 20; 30 with --time)")
    ap.add_argument("--time", action="store_true", help="time the bench sizes instead of comparing")
    ap.add_argument("--rounds", type=int, default=3, help="alternating runs per side with --time")
    ap.add_argument("--timeout", type=int, default=300)
    ap.add_argument("--work", help="keep the data and results here (default: a temporary folder)")
    ap.add_argument("--report", help="write the results as markdown to this file")
    args = ap.parse_args()
    args.configs = args.configs.split(",")
    args.steps = args.steps or (30 if args.time else 20)
    version, why = conformance.probe_torch()
    if version is None:
        print("SKIPPED: " + why)
        return 0
    work = args.work or tempfile.mkdtemp(prefix="meshguard-training-")
    os.makedirs(work, exist_ok=True)
    if args.time:
        rows = timing(args, work)
        if args.report:
            write_time_report(args.report, version, args, rows)
        return 0
    rows, failed = compare(args, work)
    if args.report:
        write_compare_report(args.report, version, args, rows)
    print("training side by side: %d of %d configs train alike (losses within %g for %d steps)"
          % (sum(r[2] == "equal" and (r[3] is None or r[3] <= TOLERANCE) for r in rows), len(rows), TOLERANCE,
             args.steps))
    return 1 if failed else 0


PAGE_HEAD = """# Training side by side: meshguard's DTensor against PyTorch's

Generated by `test/conformance/training/run.py --report` (`make conformance`
runs it); do not edit by hand.

The same four models, trained {steps} steps with SGD from the same parameters
and batches (`test/conformance/training/models.py` writes them into one
file that both sides read), once with PyTorch {version}'s
`torch.distributed.tensor` (`pytorch_side.py`) and once with meshguard's
(`meshguard_side.cpp`), on Gloo ranks of this machine:

- **mlp**: `Linear(16, 32)`, ReLU, `Linear(32, 8)`, `mse_loss`; batch 8.
- **block**: a pre-norm transformer block: `Embedding(32, 16)`, `LayerNorm`,
  attention with 4 heads (`wq`, `wk`, `wv`, `wo`, matmuls, softmax), a
  residual, `LayerNorm`, an MLP `Linear(16, 32)` / `Linear(32, 16)`, a
  residual, an output head `Linear(16, 32)`, `cross_entropy`; batch 8 x 6
  tokens.
- **llama**: a Llama-style decoder block with torchtitan's llama3 module
  names: `Embedding(32, 16)` (`tok_embeddings`), `RMSNorm`
  (`attention_norm`), attention with 4 heads (`attention.wq`/`wk`/`wv`/`wo`)
  and rotary embeddings (rotate-half form) through causal
  `scaled_dot_product_attention` (libtorch's own
  `at::scaled_dot_product_attention` on meshguard's side), a residual,
  `RMSNorm` (`ffn_norm`), a SwiGLU MLP (`feed_forward`: `w2(silu(w1 x) *
  w3 x)`, hidden 32), a residual, a final `RMSNorm` (`norm`), an output head
  `Linear(16, 32)` (`output`), `cross_entropy`; batch 8 x 6 tokens. Under
  tp, sp and fsdp_tp the head's logits stay sharded on the vocab
  (`Shard(-1)`, `use_local_output = False`) and the loss is vocab-parallel:
  PyTorch's `loss_parallel()` context on its side, on meshguard's
  `cross_entropy` on the sharded DTensor (its rules for `_log_softmax` and
  `nll_loss` over a sharded class dim).
- **convnet**: `Conv2d(3, 8, 3, padding=1)`, `BatchNorm2d(8)` (training
  mode), ReLU, `max_pool2d(2)`, flatten, `Linear(128, 4)`, `cross_entropy`;
  batch 8 images 3 x 8 x 8. Trained with fsdp only.

Parallelisms: **tp** (`parallelize_module`: Colwise `fc1`/`wq`/`wk`/`wv`/`w1`
(and the llama's `w3`), Rowwise `fc2`/`wo`/`w2`, Rowwise embedding with a
Replicate input, Colwise head with a Replicate output (the llama's:
`Shard(-1)`, a DTensor); for the llama that is torchtitan's plan without its
sequence parallelism; 2 ranks), **sp** (sequence parallelism, torchtitan's
plan: the embedding and the row-wise layers output `Shard(1)`, the norms
`SequenceParallel`, the column-wise layers read `Shard(1)` (the llama, as
torchtitan's `apply_tp` writes it: `PrepareModuleInput` from `Shard(1)` to
`Replicate` on `attention` and `feed_forward`, whose column-wise layers
read it, and the head reads `Shard(1)`); 2 ranks), **fsdp** (`fully_shard` of the
whole model, each rank its half of the batch; 2 ranks), **fsdp_tp** (the
TP plan on dim 1 of a 2x2 mesh, `fully_shard` on dim 0; 4 ranks; the styles
hand back local tensors, PyTorch's default, but for meshguard's last layer,
whose output stays a DTensor so that its loss is the whole batch's). The loss
compared is the whole batch's (PyTorch's FSDP ranks hold their chunk's mean:
the mean of those). Collectives are those of the last step, counted on
PyTorch's side by a dispatch mode over every `c10d` / `_c10d_functional`
collective and on meshguard's by `CountingGroup`; bytes are an all-gather's
input chunk and an all-reduce's or reduce-scatter's whole input. Buffers
(the convnet's BatchNorm running mean, variance and batch count; "-": the
model has none) are compared on rank 0 after the last step.

"""

PAGE_NOTES = """
## Why the collectives differ

- **tp** and **sp** (mlp, block): they do not: the same all-reduces (tp) or
  reduce-scatters (sp) of the row-wise layers' Partial outputs and the
  embedding's, the same all-gathers of the sequence-sharded activations and
  of the head's output, bytes included.
- **fsdp**: they do not, but for one: as PyTorch's FSDP2, which flattens
  a module's parameters into one buffer, meshguard packs the parameters'
  shards into one all-gather in forward and their gradients into one
  reduce-scatter in backward, bytes included (it gathered and
  reduce-scattered each parameter on its own before: as many bytes, 14+14
  collectives for the block). The block's loss adds one all-reduce of 4
  bytes: the total weight of the batch's targets, which makes meshguard's
  mean exact for any split of the batch and any ignored target (PyTorch's
  nll_loss strategy is a mean of the shards' means, `Partial(avg)`, and
  refuses uneven shards).
- **fsdp_tp**: the same counts for the block (11), one fewer for the llama
  (13 against 14), one more for the mlp (4 against 3). As PyTorch's, the
  styles hand back local tensors (`use_local_output`, the default): between
  the layers each rank computes on its own rows (Shard(0) on dp, a plain
  tensor), the attention on its heads, the norms with their gathered
  parameters as plain tensors, so no activation crosses dp. The last layer
  (the mlp's `fc2`, the block's head) returns a DTensor, at no cost, so that
  the loss is the whole batch's. On dp: one packed all-gather and one packed
  reduce-scatter, as PyTorch's FSDP2 (the embedding's gradient, which its
  rule computes whole on each tp rank, is chunked locally into the packed
  buffer). Where they differ:
  - a plain tensor that several column-parallel layers read (the normed
    input of `wq`, `wk`, `wv`; the llama's of `w1`, `w3`) is wrapped once:
    one all-reduce of its gradient on tp, where PyTorch's styles all-reduce
    once per layer (block: 2 fewer; llama: 3 fewer);
  - a column-parallel bias, which TP shards on its only dim, stays
    `Replicate` on dp (PyTorch shards it `_StridedShard`; meshguard has no
    strided shard yet, docs/runtime/parallel.md): its gradient is
    all-reduced on dp (mlp's `fc1.bias`, block's `w1.bias`: 1 more each);
  - `cross_entropy`'s 4-byte all-reduce of the targets' total weight, as
    under fsdp (block, llama: 1 more each);
  - the llama's `log_softmax` backward all-reduce, as under tp (1 more).

  Before this plan (every style `use_local_output = false`, the activations
  DTensors on both mesh dims) the block issued 41 collectives per step
  (all_gather 13, all_reduce 11, reduce_scatter 17), the llama 27 and the
  mlp 4: the block's 4-d attention `matmul` merges the batch (dp) and head
  (tp) dims, which keeps both shards only as a strided shard, so meshguard
  gathered the heads there.
- **llama:tp** and **llama:sp**: the same collectives, bytes included, but
  one: an all-reduce of `[48, 1]` (192 B) in backward. The vocab-parallel
  loss costs both sides three all-reduces of `[48, 1]` in forward (the
  rows' max and sum of exponentials for `log_softmax`, the targets' picks
  for `nll_loss`). In backward PyTorch's `loss_parallel()` fuses
  `nll_loss`'s backward with `log_softmax`'s (its context promises that the
  one follows the other) and communicates nothing; meshguard runs each op by
  its own rule, and `log_softmax`'s backward needs the row sums of its
  gradient over the whole vocab: one all-reduce. Without those rules
  meshguard moved the logits to a row shard instead (llama:tp: 3
  all-gathers of 5632 B in all, a reduce-scatter of the head's weight
  gradient, 2048 B, and the 4-byte target-weight all-reduce: as many
  collectives, 14% more bytes).
- **llama:fsdp**: as the block's: one packed all-gather and reduce-scatter,
  bytes included, and the 4-byte all-reduce of `cross_entropy`'s target
  weight.
- **llama:fsdp_tp**: see fsdp_tp above.
- **convnet:fsdp**: the same packed all-gather and reduce-scatter, bytes
  included, and the 4-byte all-reduce of `cross_entropy`'s target weight as
  the block's. BatchNorm adds none on either side: PyTorch's `fully_shard`
  runs each module on the rank's local tensors, so `BatchNorm2d` normalizes
  by the rank's own 4 images (not the batch of 8: the losses would differ
  from the second decimal; `SyncBatchNorm` refuses CPU tensors), and each
  rank's running statistics follow its own rows. meshguard's
  `fully_sharded_forward` computes on DTensors as one process on the whole
  batch, and a plain `BatchNorm2d` there is refused: its running statistics
  are plain buffers (`fully_shard` leaves buffers alone, as FSDP2) beside a
  DTensor input. The meshguard side therefore runs the norm on the local
  blocks, as FSDP2 does (`to_local` of the input, of the gathered weight
  and bias with `Partial` gradients, `from_local` of the output,
  `meshguard_side.cpp`'s `per_rank_norm`); losses and rank 0's running
  statistics then equal PyTorch's.
"""


def write_compare_report(path, version, args, rows):
    with open(path, "w") as f:
        f.write(PAGE_HEAD.format(steps=args.steps, version=version))
        f.write("| model : parallelism | losses, %d steps | max abs diff | buffers, max abs diff | "
                "collectives per step, meshguard | collectives per step, PyTorch |\n|---|---|---:|---:|---|---|\n"
                % args.steps)
        for config, diff, verdict, bdiff, mg, pt in rows:
            f.write("| %s | %s | %s | %s | %s | %s |\n" % (config, verdict, "-" if diff is None else "%.1e" % diff,
                                                          "-" if bdiff is None else "%.1e" % bdiff, mg, pt))
        f.write(PAGE_NOTES)


def write_time_report(path, version, args, rows):
    with open(path, "w") as f:
        f.write("| model : parallelism | meshguard ms/step | PyTorch %s ms/step | meshguard / PyTorch |\n"
                "|---|---:|---:|---:|\n" % version)
        for config, mg, pt, ratio in rows:
            f.write("| %s | %.2f | %.2f | %.3f |\n" % (config, mg, pt, ratio))


if __name__ == "__main__":
    sys.exit(main())
