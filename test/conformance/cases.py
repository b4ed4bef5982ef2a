"""The conformance cases: one aten overload called on DTensors of given
placements, the same call in PyTorch's DTensor and in meshguard's.

A case is a dict that both sides read (torch.save / torch::pickle_load):
  id         "aten::mm.default mesh=2 S(0),R"
  op         "aten::mm", overload "default"
  mesh       [2], [4] or [2, 2]
  inputs     [{"full": tensor, "placements": ["S(0)"], "partial_scale": ...}]
  args       one per schema argument, in order:
             {"name", "kwarg_only", "kind": "input"|"inputs"|"value", ...}
  backward   whether both sides run backward through the output
  values     whether output values are compared (False for empty_like & co.)

Arguments are synthesised from the schema (pointwise and reduction
overloads) or written per operator (TEMPLATES); every case is first run on
plain tensors here, and a case whose plain call fails is dropped, so a case
only ever asks "does the distributed call agree with the plain one".
"""

import itertools

import torch

import results

SHAPE = [4, 6]  # dim 0 even on 2 and 4 ranks, dim 1 uneven on 4
UNEVEN = [5, 3]  # uneven on 2 and 4 ranks
TINY = [1, 3]  # empty shards on dim 0 beyond rank 0

# Outputs whose values are not determined by the inputs (garbage, or
# random draws: each side's generator is its own).
NONDETERMINISTIC = ("empty_like", "new_empty", "new_empty_strided", "bernoulli", "uniform", "normal", "normal_functional",
                    "exponential", "geometric", "log_normal", "cauchy", "rand_like", "randn_like", "randint_like",
                    "native_dropout", "multinomial")


def nondeterministic(name):
    return name.split("::")[-1].rstrip("_") in NONDETERMINISTIC


def full(shape, dtype=torch.float32, seed=0):
    g = torch.Generator().manual_seed(1234 + seed)
    if dtype == torch.bool:
        return torch.randint(0, 2, shape, generator=g).bool()
    if dtype in (torch.int64, torch.int32):
        return torch.randint(1, 9, shape, generator=g).to(dtype)
    return torch.randn(shape, generator=g).to(dtype)


class Input:
    """A tensor operand: its full value; its placements come per case."""

    def __init__(self, tensor, shardable=True):
        self.tensor = tensor
        self.shardable = shardable  # False: always Replicate (indices, targets)


def T(shape=None, dtype=torch.float32, seed=0, shardable=True, tensor=None):
    return Input(full(SHAPE if shape is None else shape, dtype, seed) if tensor is None else tensor, shardable)


# ---------------------------------------------------------------------------
# Placements


def one_d_choices(t, partial=True):
    """Per-operand placements on a 1-D mesh: R, S(d) for each dim, P(sum)."""
    out = [["R"]]
    if t.shardable:
        out += [["S(%d)" % d] for d in range(t.tensor.dim())]
        if partial and t.tensor.is_floating_point():
            out.append(["P(sum)"])
    return out


def placement_combos(inputs, mesh, partial=True, limit=12):
    """The placement combinations tried for `inputs` on `mesh`: every
    combination of per-operand choices on 1-D meshes (capped), and on a 2-D
    mesh a few combinations of two 1-D choices that all operands share when
    they can (the aligned cases a rule should keep)."""
    if len(mesh) == 1:
        per = [one_d_choices(t, partial) for t in inputs]
        combos = list(itertools.product(*per))
        # Keep all-same first (the aligned cases), then the rest, capped.
        aligned = [c for c in combos if all(p == c[0] for p in c)]
        rest = [c for c in combos if c not in aligned]
        return [list(c) for c in (aligned + rest)[:limit]]
    combos = []
    for a, b in (("R", "S(0)"), ("S(0)", "R"), ("S(0)", "S(1)"), ("S(0)", "S(0)"), ("P(sum)", "R"), ("S(1)", "P(sum)")):
        row = []
        for t in inputs:
            pa = a if _fits(a, t) else "R"
            pb = b if _fits(b, t) else "R"
            row.append([pa, pb])
        if row not in combos:
            combos.append(row)
    return combos


def _fits(p, t):
    if p == "R":
        return True
    if not t.shardable:
        return False
    if p.startswith("S("):
        return int(p[2:-1]) < t.tensor.dim()
    return t.tensor.is_floating_point()


# ---------------------------------------------------------------------------
# Arguments from the schema


def schema_of(name, overload):
    return op_of(name, overload)._schema


def op_of(name, overload):
    return getattr(getattr(torch.ops.aten, name.split("::")[1]), overload)


def _type(arg):
    return str(arg.type)


SECOND_TENSOR_NAMES = {"other", "tensor1", "tensor2", "end", "weight", "exponent", "src", "self", "result", "output",
                       "grad_output", "input", "min", "max", "tensor", "x2", "vec"}


def synth_args(schema, dtype, broadcast_second=False, dims=None):
    """Arguments for a pointwise/reduction overload, or None when the schema
    has an argument we cannot fill. `dims` fills a required `dim`. (Python
    spells the schema's types its own way: Scalar is "number", int[1]? is
    "Optional[List[int]]".)"""
    args, inputs = [], []
    tensors = 0
    integral = dtype in (torch.int64, torch.bool)
    for a in schema.arguments:
        ty = _type(a)
        spec = {"name": a.name, "kwarg_only": a.kwarg_only}
        if ty == "List[Tensor]":  # a _foreach_ op's list: two elements
            spec.update(kind="inputs", indices=[len(inputs), len(inputs) + 1])
            inputs += [T(SHAPE, dtype, seed=tensors), T(SHAPE, dtype, seed=tensors + 1)]
            tensors += 1
        elif ty == "List[number]":  # one scalar per element
            spec.update(kind="value", value=[2, 3] if integral else [0.5, 2.0])
        elif ty == "Tensor" and a.name == "scalars":  # the same, as a tensor
            spec.update(kind="input", index=len(inputs))
            inputs.append(T(tensor=torch.tensor([0.5, 2.0]), shardable=False))
        elif ty == "Tensor":
            if a.name in ("mask", "condition"):
                t = T(dtype=torch.bool, seed=7)
            else:
                shape = [SHAPE[-1]] if broadcast_second and tensors > 0 else SHAPE
                t = T(shape, dtype, seed=tensors)
            spec.update(kind="input", index=len(inputs))
            inputs.append(t)
            tensors += 1
        elif a.name == "dim" and dims is not None and not a.has_default_value() and "int" in ty:
            spec.update(kind="value", value=dims if "List" in ty else dims[0])
        elif ty == "Optional[number]" and a.name in ("min", "max"):
            spec.update(kind="value", value=(-1 if a.name == "min" else 1) * (2 if integral else 0.5))
        elif a.has_default_value():
            spec.update(kind="value", value=a.default_value)
        elif ty.startswith("Optional["):
            spec.update(kind="value", value=None)
        elif ty == "number":
            spec.update(kind="value", value=2 if integral else 0.5)
        elif ty == "float":
            spec.update(kind="value", value=0.5)
        elif ty == "bool":
            spec.update(kind="value", value=False)
        elif ty == "int" and a.name == "decimals":
            spec.update(kind="value", value=1)
        elif ty == "List[int]" and a.name == "size":
            spec.update(kind="value", value=list(SHAPE))
        elif ty == "str" and a.name == "rounding_mode":
            spec.update(kind="value", value="floor")
        else:
            return None
        args.append(spec)
    return args, inputs


# ---------------------------------------------------------------------------
# Per-operator templates: name.overload -> list of (args, inputs). Helpers:


def V(name, value, kwarg_only=False):
    return {"name": name, "kwarg_only": kwarg_only, "kind": "value", "value": value}


# A dtype travels as its ScalarType code (libtorch's unpickler cannot read a
# torch.dtype; a C++ boxed call takes the int); results.call_arguments turns
# it back into the dtype for Python.
def DT(name, dtype, kwarg_only=False):
    return {"name": name, "kwarg_only": kwarg_only, "kind": "value", "value": results.DTYPE_CODES[dtype],
            "dtype": True}


def I(name, index):
    return {"name": name, "kwarg_only": False, "kind": "input", "index": index}


def IS(name, indices):
    return {"name": name, "kwarg_only": False, "kind": "inputs", "indices": indices}


def _view(size):
    return lambda: ([I("self", 0), V("size", size)], [T()])


TEMPLATES = {
    "aten::mm.default": [lambda: ([I("self", 0), I("mat2", 1)], [T([4, 6]), T([6, 4], seed=1)])],
    "aten::addmm.default": [lambda: ([I("self", 0), I("mat1", 1), I("mat2", 2), V("beta", 1, True), V("alpha", 1, True)],
                                     [T([4]), T([4, 6], seed=1), T([6, 4], seed=2)])],
    "aten::bmm.default": [lambda: ([I("self", 0), I("mat2", 1)], [T([2, 4, 6]), T([2, 6, 4], seed=1)])],
    "aten::baddbmm.default": [lambda: ([I("self", 0), I("batch1", 1), I("batch2", 2), V("beta", 1, True),
                                        V("alpha", 1, True)], [T([2, 4, 4]), T([2, 4, 6], seed=1), T([2, 6, 4], seed=2)])],
    "aten::view.default": [_view([24]), _view([2, 2, 6]), _view([4, 3, 2]), _view([-1, 6])],
    "aten::_unsafe_view.default": [_view([24]), _view([2, 2, 6])],
    "aten::_reshape_alias.default": [lambda: ([I("self", 0), V("size", [24]), V("stride", [1])], [T()])],
    "aten::expand.default": [lambda: ([I("self", 0), V("size", [3, 4, 6]), V("implicit", False, True)], [T()])],
    "aten::permute.default": [lambda: ([I("self", 0), V("dims", [1, 0])], [T()])],
    "aten::t.default": [lambda: ([I("self", 0)], [T()])],
    "aten::transpose.int": [lambda: ([I("self", 0), V("dim0", 0), V("dim1", 1)], [T()])],
    "aten::unsqueeze.default": [lambda: ([I("self", 0), V("dim", 0)], [T()]), lambda: ([I("self", 0), V("dim", 2)], [T()])],
    "aten::squeeze.dim": [lambda: ([I("self", 0), V("dim", 0)], [T([1, 6])])],
    "aten::squeeze.default": [lambda: ([I("self", 0)], [T([4, 1, 6])])],
    "aten::squeeze.dims": [lambda: ([I("self", 0), V("dim", [1])], [T([4, 1, 6])])],
    "aten::select.int": [lambda: ([I("self", 0), V("dim", 0), V("index", 1)], [T()]),
                         lambda: ([I("self", 0), V("dim", 1), V("index", 2)], [T()])],
    "aten::slice.Tensor": [lambda: ([I("self", 0), V("dim", 0), V("start", 1), V("end", 3), V("step", 1)], [T()]),
                           lambda: ([I("self", 0), V("dim", 1), V("start", 0), V("end", 4), V("step", 2)], [T()])],
    "aten::split.Tensor": [lambda: ([I("self", 0), V("split_size", 2), V("dim", 0)], [T()]),
                           lambda: ([I("self", 0), V("split_size", 3), V("dim", 1)], [T()])],
    "aten::split_with_sizes.default": [lambda: ([I("self", 0), V("split_sizes", [1, 3]), V("dim", 0)], [T()])],
    "aten::unbind.int": [lambda: ([I("self", 0), V("dim", 1)], [T([4, 2])])],
    "aten::cat.default": [lambda: ([IS("tensors", [0, 1]), V("dim", 0)], [T(), T(seed=1)]),
                          lambda: ([IS("tensors", [0, 1]), V("dim", 1)], [T(), T(seed=1)])],
    "aten::stack.default": [lambda: ([IS("tensors", [0, 1]), V("dim", 0)], [T(), T(seed=1)])],
    "aten::index_select.default": [
        lambda: ([I("self", 0), V("dim", 0), I("index", 1)], [T(), T(tensor=torch.tensor([3, 0, 1]), shardable=False)]),
        lambda: ([I("self", 0), V("dim", 1), I("index", 1)], [T(), T(tensor=torch.tensor([5, 0]), shardable=False)])],
    "aten::gather.default": [lambda: ([I("self", 0), V("dim", 1), I("index", 1), V("sparse_grad", False, True)],
                                      [T(), T(tensor=torch.randint(0, 6, (4, 2), generator=torch.Generator().manual_seed(3)))])],
    "aten::scatter_add.default": [lambda: ([I("self", 0), V("dim", 0), I("index", 1), I("src", 2)],
                                           [T(), T(tensor=torch.randint(0, 4, (4, 6), generator=torch.Generator().manual_seed(4))),
                                            T(seed=2)])],
    "aten::index_add.default": [lambda: ([I("self", 0), V("dim", 0), I("index", 1), I("source", 2), V("alpha", 1, True)],
                                         [T(), T(tensor=torch.tensor([1, 3]), shardable=False), T([2, 6], seed=2)])],
    "aten::embedding.default": [lambda: ([I("weight", 0), I("indices", 1), V("padding_idx", -1),
                                          V("scale_grad_by_freq", False), V("sparse", False)],
                                         [T([10, 6]), T(tensor=torch.tensor([[1, 9, 3], [0, 5, 5]]))])],
    "aten::native_layer_norm.default": [lambda: ([I("input", 0), V("normalized_shape", [6]), I("weight", 1), I("bias", 2),
                                                  V("eps", 1e-5)], [T(), T([6], seed=1), T([6], seed=2)])],
    "aten::mse_loss.default": [lambda r=r: ([I("self", 0), I("target", 1), V("reduction", r)], [T(), T(seed=1)])
                               for r in (0, 1, 2)],
    "aten::nll_loss_forward.default": [
        lambda r=r: ([I("self", 0), I("target", 1), V("weight", None), V("reduction", r), V("ignore_index", -100)],
                     [T([4, 6]), T(tensor=torch.tensor([1, 0, 5, 2]))]) for r in (0, 1, 2)],
    "aten::_softmax.default": [lambda d=d: ([I("self", 0), V("dim", d), V("half_to_float", False)], [T()]) for d in (0, 1)],
    "aten::_log_softmax.default": [lambda d=d: ([I("self", 0), V("dim", d), V("half_to_float", False)], [T()]) for d in (0, 1)],
    "aten::_local_scalar_dense.default": [lambda: ([I("self", 0)], [T([])])],
    "aten::bernoulli_.float": [lambda: ([I("self", 0), V("p", 0.5), V("generator", None, True)], [T()])],
    "aten::clamp.Tensor": [lambda: ([I("self", 0), I("min", 1), V("max", None)], [T(), T(seed=1)])],
    "aten::clamp_.Tensor": [lambda: ([I("self", 0), I("min", 1), V("max", None)], [T(), T(seed=1)])],
    "aten::fill.Tensor": [lambda: ([I("self", 0), I("value", 1)], [T(), T([], seed=1)])],
    "aten::fill_.Tensor": [lambda: ([I("self", 0), I("value", 1)], [T(), T([], seed=1)])],
    "aten::masked_fill.Tensor": [lambda: ([I("self", 0), I("mask", 1), I("value", 2)],
                                          [T(), T(dtype=torch.bool, seed=7), T([], seed=1)])],
    "aten::masked_fill_.Tensor": [lambda: ([I("self", 0), I("mask", 1), I("value", 2)],
                                           [T(), T(dtype=torch.bool, seed=7), T([], seed=1)])],
    "aten::index_add_.default": [lambda: ([I("self", 0), V("dim", 0), I("index", 1), I("source", 2), V("alpha", 1, True)],
                                          [T(), T(tensor=torch.tensor([1, 3]), shardable=False), T([2, 6], seed=2)])],
    "aten::scatter_add_.default": [lambda: ([I("self", 0), V("dim", 0), I("index", 1), I("src", 2)],
                                            [T(), T(tensor=torch.randint(0, 4, (4, 6), generator=torch.Generator().manual_seed(4))),
                                             T(seed=2)])],
    "aten::new_empty_strided.default": [lambda: ([I("self", 0), V("size", [4, 6]), V("stride", [6, 1])], [T()])],
    "aten::mse_loss_backward.default": [lambda: ([I("grad_output", 0), I("self", 1), I("target", 2), V("reduction", 0)],
                                                 [T(), T(seed=1), T(seed=2)])],
    "aten::nll_loss_backward.default": [
        lambda: ([I("grad_output", 0), I("self", 1), I("target", 2), V("weight", None), V("reduction", 0),
                  V("ignore_index", -100), I("total_weight", 3)],
                 [T([4]), T([4, 6], seed=1), T(tensor=torch.tensor([1, 0, 5, 2])), T(tensor=torch.tensor(4.0))])],
    "aten::embedding_dense_backward.default": [
        lambda: ([I("grad_output", 0), I("indices", 1), V("num_weights", 10), V("padding_idx", -1),
                  V("scale_grad_by_freq", False)], [T([2, 3, 6]), T(tensor=torch.tensor([[1, 9, 3], [0, 5, 5]]))])],
    "aten::native_layer_norm_backward.default": [
        lambda: ([I("grad_out", 0), I("input", 1), V("normalized_shape", [6]), I("mean", 2), I("rstd", 3), I("weight", 4),
                  I("bias", 5), V("output_mask", [True, True, True])],
                 [T(), T(seed=1), T([4, 1], seed=2), T(tensor=full([4, 1], seed=3).abs() + 0.5), T([6], seed=4),
                  T([6], seed=5)])],
    "aten::select_backward.default": [lambda: ([I("grad_output", 0), V("input_sizes", [4, 6]), V("dim", 0), V("index", 1)],
                                               [T([6])])],
    "aten::slice_backward.default": [lambda: ([I("grad_output", 0), V("input_sizes", [4, 6]), V("dim", 0), V("start", 1),
                                               V("end", 3), V("step", 1)], [T([2, 6])])],
    "aten::flip.default": [lambda: ([I("self", 0), V("dims", [0])], [T()]),
                           lambda: ([I("self", 0), V("dims", [0, 1])], [T()])],
    "aten::repeat.default": [lambda: ([I("self", 0), V("repeats", [1, 2])], [T()]),
                             lambda: ([I("self", 0), V("repeats", [2, 1, 1])], [T()])],
    "aten::topk.default": [lambda d=d: ([I("self", 0), V("k", 2), V("dim", d), V("largest", True), V("sorted", True)],
                                        [T()]) for d in (0, 1)],
    "aten::_softmax_backward_data.default": [
        lambda d=d: ([I("grad_output", 0), I("output", 1), V("dim", d), DT("input_dtype", torch.float32)],
                     [T(), T(tensor=torch.softmax(full(SHAPE, seed=1), d))]) for d in (0, 1)],
    "aten::_log_softmax_backward_data.default": [
        lambda d=d: ([I("grad_output", 0), I("output", 1), V("dim", d), DT("input_dtype", torch.float32)],
                     [T(), T(tensor=torch.log_softmax(full(SHAPE, seed=1), d))]) for d in (0, 1)],
    "aten::norm.ScalarOpt_dim_dtype": [lambda: ([I("self", 0), V("p", 2), V("dim", [1]), V("keepdim", False),
                                                 DT("dtype", torch.float64, True)], [T()])],
    "aten::norm.ScalarOpt_dtype": [lambda: ([I("self", 0), V("p", 2), DT("dtype", torch.float64, True)], [T()])],
    "aten::masked_scatter_backward.default": [lambda: ([I("grad_output", 0), I("mask", 1), V("sizes", [4, 6])],
                                                       [T(), T(dtype=torch.bool, seed=7)])],
    "aten::value_selecting_reduction_backward.default": [
        lambda: ([I("grad", 0), V("dim", 1), I("indices", 1), V("sizes", [4, 6]), V("keepdim", False)],
                 [T([4]), T(tensor=torch.tensor([0, 5, 2, 1]))])],
}

# Free-dim families (ops/AlongDimRules.cpp, ops/BatchRules.cpp): images are
# [N, C, H, W] = [4, 2, 6, 6] (N even on 2 and 4 ranks), sequences [4, 2, 6].
IMAGE = [4, 2, 6, 6]


def _spd(n=3, batch=4, seed=0):
    """A batch of well-conditioned symmetric positive definite matrices."""
    a = full([batch, n, n], seed=seed)
    return a @ a.transpose(-1, -2) + n * torch.eye(n)


def _row_permutations(rows, cols, seed=0):
    g = torch.Generator().manual_seed(seed)
    return torch.stack([torch.randperm(cols, generator=g) for _ in range(rows)])


TEMPLATES.update({
    "aten::convolution.default": [
        lambda b=b: ([I("input", 0), I("weight", 1), I("bias", 2) if b else V("bias", None), V("stride", [1, 1]),
                      V("padding", [1, 1]), V("dilation", [1, 1]), V("transposed", False),
                      V("output_padding", [0, 0]), V("groups", 1)],
                     [T(IMAGE), T([4, 2, 3, 3], seed=1)] + ([T([4], seed=2)] if b else []))
        for b in (True, False)],
    "aten::avg_pool2d.default": [lambda: ([I("self", 0), V("kernel_size", [2, 2]), V("stride", [2, 2]),
                                           V("padding", [0, 0]), V("ceil_mode", False),
                                           V("count_include_pad", True), V("divisor_override", None)], [T(IMAGE)])],
    "aten::max_pool2d_with_indices.default": [lambda: ([I("self", 0), V("kernel_size", [2, 2]), V("stride", [2, 2]),
                                                        V("padding", [0, 0]), V("dilation", [1, 1]),
                                                        V("ceil_mode", False)], [T(IMAGE)])],
    "aten::_adaptive_avg_pool2d.default": [lambda: ([I("self", 0), V("output_size", [3, 3])], [T(IMAGE)])],
    "aten::adaptive_max_pool2d.default": [lambda: ([I("self", 0), V("output_size", [3, 3])], [T(IMAGE)])],
    "aten::upsample_nearest2d.default": [lambda: ([I("self", 0), V("output_size", [12, 12]), V("scales_h", None),
                                                   V("scales_w", None)], [T(IMAGE)])],
    "aten::upsample_bilinear2d.default": [lambda: ([I("self", 0), V("output_size", [12, 12]),
                                                    V("align_corners", False), V("scales_h", None),
                                                    V("scales_w", None)], [T(IMAGE)])],
    "aten::upsample_linear1d.default": [lambda: ([I("self", 0), V("output_size", [12]), V("align_corners", False),
                                                  V("scales", None)], [T([4, 2, 6])])],
    "aten::grid_sampler_2d.default": [lambda: ([I("input", 0), I("grid", 1), V("interpolation_mode", 0),
                                                V("padding_mode", 0), V("align_corners", False)],
                                               [T(IMAGE), T(tensor=torch.rand([4, 5, 5, 2],
                                                 generator=torch.Generator().manual_seed(3)) * 2 - 1)])],
    "aten::native_group_norm.default": [lambda: ([I("input", 0), I("weight", 1), I("bias", 2), V("N", 4), V("C", 4),
                                                  V("HxW", 9), V("group", 2), V("eps", 1e-5)],
                                                 [T([4, 4, 3, 3]), T([4], seed=1), T([4], seed=2)])],
    "aten::_scaled_dot_product_flash_attention_for_cpu.default": [
        lambda c=c: ([I("query", 0), I("key", 1), I("value", 2), V("dropout_p", 0.0), V("is_causal", c),
                      V("attn_mask", None, True), V("scale", None, True)],
                     [T([4, 2, 6, 8]), T([4, 2, 6, 8], seed=1), T([4, 2, 6, 8], seed=2)]) for c in (False, True)],
    "aten::linalg_inv_ex.default": [lambda: ([I("A", 0), V("check_errors", False, True)], [T(tensor=_spd())])],
    "aten::_linalg_det.default": [lambda: ([I("A", 0)], [T(tensor=_spd())])],
    "aten::cholesky.default": [lambda: ([I("self", 0), V("upper", False)], [T(tensor=_spd())])],
    "aten::linalg_qr.default": [lambda: ([I("A", 0), V("mode", "reduced")], [T(tensor=_spd())])],
    "aten::_linalg_solve_ex.default": [lambda: ([I("A", 0), I("B", 1), V("left", True, True),
                                                 V("check_errors", False, True)],
                                                [T(tensor=_spd()), T([4, 3, 2], seed=1)])],
    "aten::linalg_solve_triangular.default": [lambda: ([I("self", 0), I("B", 1), V("upper", True, True),
                                                        V("left", True, True), V("unitriangular", False, True)],
                                                       [T(tensor=torch.triu(_spd())), T([4, 3, 2], seed=1)])],
    "aten::dot.default": [lambda: ([I("self", 0), I("tensor", 1)], [T([6]), T([6], seed=1)])],
    "aten::constant_pad_nd.default": [lambda p=p: ([I("self", 0), V("pad", p), V("value", 0.5)], [T()])
                                      for p in ([1, 1], [0, 0, 1, 2])],
    "aten::roll.default": [lambda a=a: ([I("self", 0), V("shifts", a[0]), V("dims", a[1])], [T()])
                           for a in (([1], [1]), ([2], []))],
    "aten::index_fill.int_Scalar": [lambda: ([I("self", 0), V("dim", 1), I("index", 1), V("value", 2.0)],
                                             [T(), T(tensor=torch.tensor([0, 2]), shardable=False)])],
    "aten::scatter.src": [lambda: ([I("self", 0), V("dim", 1), I("index", 1), I("src", 2)],
                                   [T(), T(tensor=_row_permutations(4, 6)), T(seed=2)])],
    "aten::diagonal.default": [lambda: ([I("self", 0), V("offset", 0), V("dim1", 1), V("dim2", 2)], [T([4, 3, 3])])],
    "aten::bucketize.Tensor": [lambda: ([I("self", 0), I("boundaries", 1), V("out_int32", False, True),
                                         V("right", False, True)],
                                        [T(), T(tensor=torch.tensor([-1.0, 0.0, 1.0]), shardable=False)])],
    "aten::linalg_cross.default": [lambda: ([I("self", 0), I("other", 1), V("dim", 1, True)],
                                            [T([4, 3]), T([4, 3], seed=1)])],
})


# Batch norm: [N, C, H, W] input, per-channel weight, bias and running
# statistics (a positive variance), training and evaluation.
BN_INPUT = [4, 4, 3, 3]


def _bn_inputs():
    var = full([4], seed=4).abs() + 0.5
    return [T(BN_INPUT), T([4], seed=1), T([4], seed=2), T([4], seed=3), T(tensor=var)]


def _bn_saved(train):
    x = full(BN_INPUT)
    if not train:
        return [V("save_mean", None), V("save_invstd", None)], []
    mean = x.mean(dim=(0, 2, 3))
    invstd = 1 / torch.sqrt(x.var(dim=(0, 2, 3), unbiased=False) + 1e-5)
    return [I("save_mean", 5), I("save_invstd", 6)], [T(tensor=mean), T(tensor=invstd)]


def _bn_backward(train):
    saved, saved_inputs = _bn_saved(train)
    return ([I("grad_out", 0), I("input", 1), I("weight", 2), I("running_mean", 3), I("running_var", 4)] + saved +
            [V("train", train), V("eps", 1e-5), V("output_mask", [True, True, True])],
            [T(BN_INPUT, seed=7), T(BN_INPUT), T([4], seed=1), T([4], seed=3),
             T(tensor=full([4], seed=4).abs() + 0.5)] + saved_inputs)


BN_STATS = [I("input", 0), I("weight", 1), I("bias", 2), I("running_mean", 3), I("running_var", 4)]
TEMPLATES.update({
    "aten::native_batch_norm.default": [
        lambda t=t: (BN_STATS + [V("training", t), V("momentum", 0.1), V("eps", 1e-5)], _bn_inputs())
        for t in (True, False)],
    "aten::_native_batch_norm_legit.default": [
        lambda t=t: (BN_STATS + [V("training", t), V("momentum", 0.1), V("eps", 1e-5)], _bn_inputs())
        for t in (True, False)],
    "aten::_native_batch_norm_legit_functional.default": [
        lambda t=t: (BN_STATS + [V("training", t), V("momentum", 0.1), V("eps", 1e-5)], _bn_inputs())
        for t in (True, False)],
    "aten::_native_batch_norm_legit.no_stats": [
        lambda: (BN_STATS[:3] + [V("training", True), V("momentum", 0.1), V("eps", 1e-5)], _bn_inputs()[:3])],
    "aten::_native_batch_norm_legit_no_training.default": [
        lambda: (BN_STATS + [V("momentum", 0.1), V("eps", 1e-5)], _bn_inputs())],
    "aten::_batch_norm_with_update.default": [
        lambda: (BN_STATS + [V("momentum", 0.1), V("eps", 1e-5)], _bn_inputs())],
    "aten::_batch_norm_with_update_functional.default": [
        lambda: (BN_STATS + [V("momentum", 0.1), V("eps", 1e-5)], _bn_inputs())],
    # (Synthesized arguments would pass None statistics, which crashes
    # PyTorch's own kernel.)
    "aten::_batch_norm_no_update.default": [
        lambda: (BN_STATS + [V("momentum", 0.1), V("eps", 1e-5)], _bn_inputs())],
    "aten::native_batch_norm_backward.default": [lambda t=t: _bn_backward(t) for t in (True, False)],
})

# Writing a source into a part of self; the _copy forms of views; fused Adam
# (params, grads, exp_avgs, exp_avg_sqs, no max_exp_avg_sqs, steps).
def _adam(lr=0.01):
    lists = [IS("self", [0, 1]), IS("grads", [2, 3]), IS("exp_avgs", [4, 5]), IS("exp_avg_sqs", [6, 7]),
             IS("max_exp_avg_sqs", []), IS("state_steps", [8, 9])]
    kw = [V("lr", lr, True), V("beta1", 0.9, True), V("beta2", 0.999, True), V("weight_decay", 0.01, True),
          V("eps", 1e-8, True), V("amsgrad", False, True), V("maximize", False, True), V("grad_scale", None, True),
          V("found_inf", None, True)]
    inputs = [T(seed=s) for s in range(4)] + [T(seed=4), T(seed=5)] + [
        T(tensor=full(SHAPE, seed=s).abs()) for s in (6, 7)] + [
        T(tensor=torch.tensor(3.0), shardable=False), T(tensor=torch.tensor(3.0), shardable=False)]
    return lists + kw, inputs


TEMPLATES.update({
    "aten::select_scatter.default": [lambda d=d: ([I("self", 0), I("src", 1), V("dim", d), V("index", 1)],
                                                  [T(), T([6] if d == 0 else [4], seed=1)]) for d in (0, 1)],
    "aten::slice_scatter.default": [lambda d=d: ([I("self", 0), I("src", 1), V("dim", d), V("start", 0), V("end", 2),
                                                  V("step", 1)], [T(), T([2, 6] if d == 0 else [4, 2], seed=1)])
                                    for d in (0, 1)],
    "aten::diagonal_scatter.default": [lambda: ([I("self", 0), I("src", 1), V("offset", 0), V("dim1", 1), V("dim2", 2)],
                                                [T([4, 3, 3]), T([4, 3], seed=1)])],
    "aten::index_reduce.default": [lambda r=r: ([I("self", 0), V("dim", 1), I("index", 1), I("source", 2), V("reduce", r),
                                                 V("include_self", True, True)],
                                                [T(), T(tensor=torch.tensor([1, 3, 1]), shardable=False), T([4, 3], seed=2)])
                                   for r in ("prod", "amax", "mean")],
    "aten::view_copy.default": [_view([24]), _view([2, 2, 6])],
    "aten::expand_copy.default": [lambda: ([I("self", 0), V("size", [3, 4, 6]), V("implicit", False, True)], [T()])],
    "aten::split_with_sizes_copy.default": [lambda: ([I("self", 0), V("split_sizes", [1, 3]), V("dim", 0)], [T()])],
    "aten::linalg__powsum.default": [lambda o=o, d=d: ([I("self", 0), V("ord", o), V("dim", d), V("keepdim", False),
                                                        V("dtype", None, True)], [T()])
                                     for o in (2.0, 3.0) for d in (None, [1])],
    "aten::_fused_adam_.default": [_adam],
    "aten::_fused_adamw_.default": [_adam],
    "aten::_fused_adam.default": [_adam],
    "aten::_fused_adamw.default": [_adam],
})

_PIXEL_TARGET = torch.tensor([[[1, 0, 3], [2, 2, 0], [3, 1, 1]]] * 4)
TEMPLATES.update({
    "aten::nll_loss2d_forward.default": [
        lambda r=r: ([I("self", 0), I("target", 1), V("weight", None), V("reduction", r), V("ignore_index", -100)],
                     [T([4, 4, 3, 3]), T(tensor=_PIXEL_TARGET)]) for r in (0, 1, 2)],
    "aten::nll_loss2d_backward.default": [
        lambda: ([I("grad_output", 0), I("self", 1), I("target", 2), V("weight", None), V("reduction", 0),
                  V("ignore_index", -100), I("total_weight", 3)],
                 [T([4, 3, 3]), T([4, 4, 3, 3], seed=1), T(tensor=_PIXEL_TARGET), T(tensor=torch.tensor(36.0))])],
    "aten::equal.default": [lambda: ([I("self", 0), I("other", 1)], [T(), T()]),
                            lambda: ([I("self", 0), I("other", 1)], [T(), T(seed=1)])],
    "aten::is_same_size.default": [lambda: ([I("self", 0), I("other", 1)], [T(), T([4, 1])])],
    "aten::multinomial.default": [lambda: ([I("self", 0), V("num_samples", 2), V("replacement", False),
                                            V("generator", None, True)], [T(tensor=full(SHAPE).abs() + 0.1)])],
    "aten::bernoulli.default": [lambda: ([I("self", 0), V("generator", None, True)],
                                         [T(tensor=torch.rand(SHAPE, generator=torch.Generator().manual_seed(5)))])],
})

# Advanced indexing: x[rows], x[:, cols], x[rows, cols], x[mask]; index_put
# with distinct rows (a repeated one is written in no fixed order). The
# indices may be sharded (the harness gives them placements too); -1 in
# IS is None.
_ROWS = torch.tensor([3, 0, 2])
_COLS = torch.tensor([5, 1, 1, 4])
_SIXTEENS = torch.randint(-8, 8, SHAPE, generator=torch.Generator().manual_seed(16)).float() * 16
TEMPLATES.update({
    "aten::index.Tensor": [
        lambda: ([I("self", 0), IS("indices", [1])], [T(), T(tensor=_ROWS)]),
        lambda: ([I("self", 0), IS("indices", [-1, 1])], [T(), T(tensor=_COLS)]),
        lambda: ([I("self", 0), IS("indices", [1, 2])], [T(), T(tensor=_ROWS), T(tensor=_COLS[:3])]),
        lambda: ([I("self", 0), IS("indices", [-1, 1])], [T([4, 6, 2]), T(tensor=torch.tensor([[5, 1], [0, 2]]))]),
        lambda: ([I("self", 0), IS("indices", [1])], [T(), T([4, 6], dtype=torch.bool, seed=3)])],
    "aten::index_put.default": [
        lambda a=a: ([I("self", 0), IS("indices", [1]), I("values", 2), V("accumulate", a)],
                     [T(), T(tensor=_ROWS), T([3, 6], seed=1)]) for a in (False, True)] + [
        lambda: ([I("self", 0), IS("indices", [-1, 1]), I("values", 2), V("accumulate", False)],
                 [T(), T(tensor=torch.tensor([5, 1, 3])), T([4, 3], seed=1)]),
        lambda: ([I("self", 0), IS("indices", [1]), I("values", 2), V("accumulate", False)],
                 [T(), T([4, 6], dtype=torch.bool, seed=3), T(tensor=torch.tensor(2.0))])],
    "aten::_index_put_impl.default": [
        lambda: ([I("self", 0), IS("indices", [1]), I("values", 2), V("accumulate", True), V("unsafe", False)],
                 [T(), T(tensor=_ROWS), T([3, 6], seed=1)])],
    # Multiples of 16: a Partial input's shares (k/16 of the value) add up
    # exactly, so reading the bits as another dtype compares bit for bit.
    "aten::view.dtype": [lambda: ([I("self", 0), DT("dtype", torch.int32)], [T(tensor=_SIXTEENS)]),
                         lambda: ([I("self", 0), DT("dtype", torch.float16)], [T(tensor=_SIXTEENS)])],
})

# (Templates written in a loop bind the loop variable through a default
# argument: a closure would see its last value.)

# Overloads whose required `dim` is filled with each of these.
DIM_VARIANTS = [[0], [1]]


def _plain_call(name, overload, args, inputs):
    """Runs the case on plain tensors (clones of the inputs); returns the
    output or raises."""
    pos, kw = results.call_arguments({"args": args}, [t.tensor.clone() for t in inputs])
    return op_of(name, overload)(*pos, **kw)


def _wants_backward(name, overload, args, inputs):
    if name.endswith("_") or "backward" in name or nondeterministic(name):
        return False
    if not any(t.tensor.is_floating_point() for t in inputs):
        return False
    try:
        leaves = [t.tensor.clone().requires_grad_(t.tensor.is_floating_point()) for t in inputs]
        pos, kw = results.call_arguments({"args": args}, leaves)
        out = results.tensor_outputs(op_of(name, overload)(*pos, **kw))
        if not out or not out[0].is_floating_point() or not out[0].requires_grad:
            return False
        out[0].sum().backward()
        return True
    except Exception:
        return False


def _out_args(schema):
    """The trailing kwarg-only written Tensor arguments of an out= form."""
    outs = []
    for a in reversed(schema.arguments):
        if not (a.kwarg_only and a.alias_info is not None and a.alias_info.is_write and _type(a) == "Tensor"):
            break
        outs.insert(0, a)
    return outs


def _functional_overload(name, schema, outs):
    """The overload of `name` whose arguments are the out= form's leading
    ones (the one meshguard derives the form's rule from)."""
    packet = getattr(torch.ops.aten, name.split("::")[1])
    lead = schema.arguments[:len(schema.arguments) - len(outs)]
    for ov in packet.overloads():
        s = getattr(packet, ov)._schema
        if not s.is_mutable and len(s.arguments) == len(lead) and all(
                a.name == b.name and _type(a) == _type(b) for a, b in zip(s.arguments, lead)):
            return ov
    return None


def _out_variants(name, overload):
    """An out= form's cases: its functional overload's, plus one out tensor
    per result, shaped as the result (so nothing is resized)."""
    try:
        schema = schema_of(name, overload)
    except (AttributeError, RuntimeError):
        return []
    outs = _out_args(schema)
    base = _functional_overload(name, schema, outs) if outs else None
    if base is None:
        return None
    found = []
    for args, inputs in variants(name, base):
        try:
            results_ = results.tensor_outputs(_plain_call(name, base, args, inputs))
        except Exception:
            continue
        if len(results_) != len(outs):
            continue
        args, inputs = list(args), list(inputs)
        for a, r in zip(outs, results_):
            args.append({"name": a.name, "kwarg_only": True, "kind": "input", "index": len(inputs)})
            inputs.append(T(tensor=torch.zeros_like(r.detach())))
        found.append((args, inputs))
    return found


def variants(name, overload):
    """(args, inputs) lists for one overload, each checked on plain tensors."""
    found = []
    if name + "." + overload not in TEMPLATES:
        derived = _out_variants(name, overload)
        if derived is not None:
            return [c for c in derived if _plain_ok(name, overload, *c)]
        if name.endswith("_") and name[:-1] + "." + overload in TEMPLATES:  # in-place form
            return [c for c in (f() for f in TEMPLATES[name[:-1] + "." + overload]) if _plain_ok(name, overload, *c)]
    if name + "." + overload in TEMPLATES:
        candidates = [f() for f in TEMPLATES[name + "." + overload]]
    else:
        try:
            schema = schema_of(name, overload)
        except (AttributeError, RuntimeError):
            return []
        candidates = []
        for dtype in (torch.float32, torch.int64, torch.bool):
            for dims in (DIM_VARIANTS if any(a.name == "dim" for a in schema.arguments) else [None]):
                for broadcast in (False, True):
                    r = synth_args(schema, dtype, broadcast, dims)
                    if r is not None:
                        candidates.append(r)
                        if sum(1 for a in r[0] if a["kind"] == "input") < 2:
                            break  # broadcasting needs a second operand
            if any(_plain_ok(name, overload, *c) for c in candidates):
                candidates = [c for c in candidates if _plain_ok(name, overload, *c)]
                break
            candidates = []
    for args, inputs in candidates:
        if _plain_ok(name, overload, args, inputs):
            found.append((args, inputs))
    return found


def _plain_ok(name, overload, args, inputs):
    try:
        _plain_call(name, overload, args, inputs)
        return True
    except Exception:
        return False


def describe(mesh, placements):
    return "mesh=%s %s" % ("x".join(map(str, mesh)), " ".join(",".join(p) for p in placements))


def make_cases(ops, meshes, quick=False):
    """Every case for `ops` ("aten::mm.default", ...) on `meshes`. quick:
    the first variant and the first few placement combinations only."""
    cases, uncovered = [], []
    for full_name in ops:
        name, overload = full_name.rsplit(".", 1)
        vs = variants(name, overload)
        if not vs:
            uncovered.append(full_name)
            continue
        if quick:
            vs = vs[:1]
        for vi, (args, inputs) in enumerate(vs):
            backward = _wants_backward(name, overload, args, inputs)
            for mesh in meshes:
                combos = placement_combos(inputs, mesh)
                if quick:  # the first three, and one with a Partial operand
                    partial = [c for c in combos[3:] if any(p.startswith("P(") for pl in c for p in pl)]
                    combos = combos[:3] + partial[:1]
                for pl in combos:
                    cases.append({
                        "id": "%s v%d %s" % (full_name, vi, describe(mesh, pl)),
                        "op": name,
                        "overload": overload,
                        "mesh": list(mesh),
                        "inputs": [{"full": t.tensor, "placements": p} for t, p in zip(inputs, pl)],
                        "args": args,
                        "backward": backward,
                        "values": not nondeterministic(name),
                    })
    return cases, uncovered
