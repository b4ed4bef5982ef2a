"""Differences between meshguard and PyTorch that are understood.

Each reason has a key, a kind and a text:
  deliberate  meshguard's choice; values and gradients agree
  open        a meshguard limitation or bug, not fixed yet (a follow-up)
explain() maps one differing field of one case (compare.py's names:
placements, grad-placements, stride, comm-fwd, comm-bwd, grad-missing,
meshguard-refuses, meshguard-fails) to a key, by the first rule whose
test holds; run.py fails on a difference no rule explains, so a new
difference is seen and sorted here, never silently accepted.
"""

import re

REASONS = {
    "reduce-scatter": ("deliberate",
                       "libtorch 1.13 only: its Gloo has no reduce_scatter, so meshguard turns a Partial into a Shard "
                       "with an all_reduce and a local chunk there (same count, other kind, n times the bytes); on "
                       "libtorch 2.x it reduce-scatters as PyTorch does."),
    "partial-input": ("deliberate",
                      "a Partial operand of an op that is not linear in it is reduced first: meshguard reduce-scatters it "
                      "to a Shard (its cost model counts the bytes each rank moves and keeps the output sharded), "
                      "PyTorch all-reduces it to Replicate. Values and gradients agree; the output (and the gradient) "
                      "placements and the collectives differ."),
    "softmax-dim": ("deliberate",
                    "ops along a dim (softmax, log_softmax, cumsum, topk, logsumexp, flip, repeat; sort, cumprod, "
                    "cummax, cummin, logcumsumexp, kthvalue, median, nanmedian, mode with a dim) on an operand "
                    "sharded along that dim: meshguard moves the shard to another dim (one all_to_all-like gather, "
                    "output stays sharded), PyTorch replicates. log_softmax and its backward keep the shard instead "
                    "(all-reduces of the rows' max and sums, [..., 1]: the vocab-parallel softmax that PyTorch runs "
                    "only inside loss_parallel())."),
    "free-dim": ("deliberate",
                 "ops with free dims (meshguard's along-dim and batch families: the batch dims of linear algebra, "
                 "pooling, upsampling, grid sampling and attention, every dim a padding, a diagonal or an index_fill "
                 "does not work along): an operand sharded on a dim the op works along is moved to a free dim (one "
                 "all_to_all-like exchange) and the output stays sharded there; PyTorch 2.13 replicates such an "
                 "operand (or has no strategy for the dim), so the placements and collectives differ. Values and "
                 "gradients agree."),
    "strided-shard": ("deliberate",
                      "views that split or merge a sharded dim: PyTorch 2.13 describes the result with its private "
                      "_StridedShard placement and moves nothing; meshguard has no such placement and gathers (or picks "
                      "another dim), so it communicates where PyTorch does not."),
    "stride": ("open",
               "a sharded DTensor's strides are dense over its global shape in its local tensor's memory order "
               "(so a transpose or permute reports PyTorch's strides); a local view that is not dense (expand's "
               "stride 0) gets its local strides scaled per shard, where PyTorch reports the global op's own: "
               "is_contiguous() agrees, the strides differ, values are right."),
    "strategy": ("deliberate",
                 "both runtimes pick a valid strategy and agree on values and gradients, but not on the output "
                 "placements or collectives: meshguard's cost model (docs/runtime/operators.md) keeps outputs "
                 "sharded where it can and counts bytes; PyTorch's ranks strategies its own way."),
    "out-placement": ("deliberate",
                      "an out= form whose PyTorch strategy is not derived from the functional one (prod.int_out & "
                      "co.): PyTorch writes its own output placement into the out DTensor (re-labelling it, e.g. "
                      "Shard as Partial); meshguard keeps the out tensor's placements, as PyTorch's derived out= "
                      "forms do, and moves the operands to fit them (or refuses when no strategy fits)."),
    "foreach-grad-1.13": ("open",
                          "libtorch 1.13 only: its _foreach_ ops have no derivatives (2.x's have), so backward through "
                          "them fails on plain tensors too; meshguard runs them element by element on either version."),
    "refused": ("open", "PyTorch runs the op on these placements, meshguard refuses it (no strategy in its table)."),
}

# The overloads whose remaining differences are strategy choices (full runs
# of 5 Dec 2026, 331 overloads, and 7 Dec 2026, 1191; the last line's ops were
# added after); an op that starts to
# differ is not in it, and fails.
STRATEGY_OPS = set("""
addcdiv.default addcmul.default addmm.default atan2.default baddbmm.default bmm.default cat.default elu.default
elu_backward.default embedding.default embedding_dense_backward.default floor_divide.default gather.default
index_add.default index_select.default leaky_relu.default leaky_relu_backward.default lerp.Tensor
linalg_vector_norm.default masked_fill.Scalar max.default max.dim mean.default mean.dim min.default min.dim mish.default
mm.default mse_loss.default native_layer_norm.default native_layer_norm_backward.default nll_loss_backward.default
nll_loss_forward.default norm.Scalar norm.ScalarOpt_dim rsub.Tensor scatter_add.default slice_backward.default
softplus.default softplus_backward.default stack.default where.self xlogy.Tensor
norm.ScalarOpt_dtype norm.ScalarOpt_dim_dtype prod.default masked_fill.Tensor var.correction std.correction var_mean.correction std_mean.correction
all.default all.dim all.dims any.default any.dim any.dims argmax.default argmin.default median.default nanmedian.default
linalg_pinv.atol_rtol_tensor celu.default hypot.default native_dropout_backward.default special_xlog1py.default
equal.default multinomial.default nll_loss2d_forward.default nll_loss2d_backward.default index.Tensor index_put.default
_index_put_impl.default
""".split())

VIEW_OPS = ("view", "_unsafe_view", "_reshape_alias", "reshape", "flatten", "unflatten", "expand", "permute", "t",
            "transpose", "squeeze", "unsqueeze", "select", "slice", "split", "split_with_sizes", "unbind",
            "view_copy", "expand_copy", "split_with_sizes_copy")


def _base(case):
    """The overload whose rule the case's op runs by: its own, or for a
    derived in-place, out= or _foreach_ form (run.py sets "base") the
    functional one's, whose differences it shares."""
    return case.get("base") or "%s.%s" % (case["op"], case["overload"])


def _name(case):
    return _base(case).split("::")[1].rsplit(".", 1)[0]


def _has_partial(case):
    return any(p.startswith("P(") for s in case["inputs"] for p in s["placements"])


def _as_all_reduce(counts):
    out = {}
    for k, n in dict(counts or {}).items():
        k = "all_reduce" if k == "reduce_scatter" else k
        out[k] = out.get(k, 0) + n
    return out


def _reduce_scatter(case, field, ours, theirs):
    if field not in ("comm-fwd", "comm-bwd"):
        return False
    key = field.replace("-", "_")
    return "reduce_scatter" in dict(theirs.get(key) or {}) and _as_all_reduce(theirs.get(key)) == dict(ours.get(key) or {})


def _strided(case, field, ours, theirs):
    text = str([o.get("placements") for o in theirs.get("outputs", [])])
    return "_StridedShard" in text or (_name(case) in VIEW_OPS and field in ("placements", "comm-fwd", "comm-bwd",
                                                                           "grad-placements"))


RULES = [
    ("foreach-grad-1.13", lambda c, f, o, t: f == "meshguard-fails"
     and "derivative for aten::_foreach_" in str(o.get("error", ""))),
    ("out-placement", lambda c, f, o, t: c.get("derived") == "out"
     and f in ("placements", "comm-fwd", "comm-bwd", "meshguard-refuses")),
    ("stride", lambda c, f, o, t: f == "stride"),
    ("refused", lambda c, f, o, t: f == "meshguard-refuses"),
    ("reduce-scatter", _reduce_scatter),
    ("softmax-dim", lambda c, f, o, t: re.match(
        r"(_?(log_|safe_)?softmax(_backward_data)?|cumsum|cumprod|cummax|cummin|logcumsumexp|sort|kthvalue|"
        r"median|nanmedian|mode|topk|logsumexp|flip|repeat)\b", _name(c)) is not None and
     (c["overload"] != "default" or _name(c) not in ("median", "nanmedian"))),
    ("free-dim", lambda c, f, o, t: c.get("family") in ("along-dim", "batch")
     and f in ("placements", "grad-placements", "comm-fwd", "comm-bwd")),
    ("strided-shard", _strided),
    ("partial-input", lambda c, f, o, t: _has_partial(c) and f in ("placements", "grad-placements", "comm-fwd",
                                                                   "comm-bwd")),
    ("strategy", lambda c, f, o, t: f in ("placements", "grad-placements", "comm-fwd", "comm-bwd")
     and _base(c).split("::")[1] in STRATEGY_OPS),
]


def explain(case, field, ours, theirs):
    for key, test in RULES:
        if test(case, field, ours, theirs):
            return key
    return None
