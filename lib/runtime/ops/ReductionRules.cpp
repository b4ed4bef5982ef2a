// Reductions: a reduced sharded dim leaves partial results (Partial of the
// reduction's own op), the other shard dims are renumbered. Partial inputs
// pass where the reduction is linear.

#include <algorithm>
#include <limits>

#include <ATen/ATen.h>

#include "Internal.h"
#include "RuleTable.h"

namespace meshguard {
namespace ops {

namespace {

// The reduced dims (normalised), from an `int[1]? dim` argument; all dims
// when it is None or empty.
std::vector<bool>
reduced_dims(const CallInfo& call, int64_t ndim, int64_t dim_arg) {
  std::vector<bool> reduced(ndim, true);
  if (dim_arg < 0) {
    return reduced;
  }
  const c10::IValue& v = call.arg(dim_arg);
  if (v.isNone()) {
    return reduced;
  }
  const auto dims =
      v.isInt() ? std::vector<int64_t>{v.toInt()} : v.toIntVector();
  if (dims.empty()) {
    return reduced;
  }
  std::fill(reduced.begin(), reduced.end(), false);
  for (auto d : dims) {
    const int64_t nd = d < 0 ? d + ndim : d;
    TORCH_CHECK(
        nd >= 0 && nd < std::max<int64_t>(ndim, 1),
        "reduction rule: dim ",
        d,
        " out of range");
    if (ndim > 0) {
      reduced[nd] = true;
    }
  }
  return reduced;
}

// sum/mean over `dim_arg` (-1: every dim) with `keepdim_arg` (-1: false).
RuleResult reduction_rule(
    const CallInfo& call,
    int64_t dim_arg,
    int64_t keepdim_arg,
    ReduceOp op) {
  TORCH_CHECK(
      call.operands.size() == 1,
      "reduction rule: expected one DTensor operand");
  const Shape& in = call.operands[0].shape;
  const int64_t ndim = static_cast<int64_t>(in.size());
  const auto reduced = reduced_dims(call, ndim, dim_arg);
  const bool keepdim = keepdim_arg >= 0 && call.arg(keepdim_arg).toBool();
  Shape out;
  std::vector<int64_t> renumber(ndim, -1);
  for (int64_t d = 0; d < ndim; ++d) {
    if (!reduced[d]) {
      renumber[d] = static_cast<int64_t>(out.size());
      out.push_back(in[d]);
    } else if (keepdim) {
      renumber[d] = static_cast<int64_t>(out.size());
      out.push_back(1);
    }
  }
  RuleResult r;
  for (int64_t d = 0; d < ndim; ++d) {
    if (!reduced[d]) {
      r.strategies.push_back({{Shard{d}}, {Shard{renumber[d]}}});
    } else if (
        op == ReduceOp::SUM || op == ReduceOp::PRODUCT ||
        (divisible(in[d], call.mesh_size) &&
         (op == ReduceOp::AVG || in[d] > 0))) {
      // A mean of equal shards is the average of the shards' means; with
      // uneven shards it is not, and an empty shard has no max: the input is
      // gathered (or moved) instead. An empty shard's sum (0) and product
      // (1) are the reduction's identity: exact.
      r.strategies.push_back({{Shard{d}}, {Partial{op}}});
    }
  }
  r.strategies.push_back({{Replicate{}}, {Replicate{}}});
  if (op == ReduceOp::SUM || op == ReduceOp::AVG) {
    // Sums and means are linear: a partial sum's sum is a partial sum.
    r.strategies.push_back(
        {{Partial{ReduceOp::SUM}}, {Partial{ReduceOp::SUM}}});
    r.strategies.push_back(
        {{Partial{ReduceOp::AVG}}, {Partial{ReduceOp::AVG}}});
  } else {
    // The max of partial maxima is the max.
    r.strategies.push_back({{Partial{op}}, {Partial{op}}});
  }
  r.output_shapes = {out};
  return r;
}

// Reductions whose partial results no Partial placement combines (norms:
// the p-th root of a sum; max/min with indices: the indices of each
// shard's maxima are local): a reduced dim must be whole; the other dims'
// shards are renumbered, in every output.
RuleResult whole_reduction_rule(
    const CallInfo& call,
    int64_t dim_arg,
    int64_t keepdim_arg,
    size_t outputs) {
  const Shape& in = call.operands[0].shape;
  const int64_t ndim = static_cast<int64_t>(in.size());
  const auto reduced = reduced_dims(call, ndim, dim_arg);
  const bool keepdim = keepdim_arg >= 0 && call.arg(keepdim_arg).toBool();
  Shape out;
  RuleResult r;
  for (int64_t d = 0; d < ndim; ++d) {
    if (!reduced[d]) {
      r.strategies.push_back(
          {{Shard{d}},
           std::vector<Placement>(
               outputs, Shard{static_cast<int64_t>(out.size())})});
      out.push_back(in[d]);
    } else if (keepdim) {
      out.push_back(1);
    }
  }
  r.strategies.push_back(
      {{Replicate{}}, std::vector<Placement>(outputs, Replicate{})});
  r.output_shapes.assign(outputs, out);
  return r;
}

// value_selecting_reduction_backward(grad, dim, indices, sizes, keepdim),
// max.dim's and min.dim's backward: the gradient scattered to the input's
// shape. Its decomposition makes a plain zeros tensor (grad.options()
// carries no DTensor), so the kernel runs it by this rule instead: grad and
// indices sharded alike on a kept dim give that dim's shard.
RuleResult value_selecting_backward_rule(const CallInfo& call) {
  const Shape sizes = call.arg(3).toIntVector();
  const int64_t ndim = static_cast<int64_t>(sizes.size());
  const int64_t dim = call.arg(1).toInt() < 0
      ? call.arg(1).toInt() + std::max<int64_t>(ndim, 1)
      : call.arg(1).toInt();
  const bool keepdim = call.arg(4).toBool();
  const int64_t grad_ndim = static_cast<int64_t>(call.operands[0].shape.size());
  RuleResult r;
  const size_t n = call.operands.size();
  for (int64_t d = 0; d < grad_ndim; ++d) {
    const int64_t in = keepdim || d < dim ? d : d + 1;
    if (in != dim) {
      r.strategies.push_back(
          {std::vector<Placement>(n, Shard{d}), {Shard{in}}});
    }
  }
  r.strategies.push_back(
      {std::vector<Placement>(n, Replicate{}), {Replicate{}}});
  r.output_shapes = {sizes};
  r.run_local = [](const std::vector<at::Tensor>&, const LocalContext& ctx) {
    return std::vector<at::Tensor>{at::value_selecting_reduction_backward(
        ctx.args[0].toTensor(),
        ctx.args[1].toInt(),
        ctx.args[2].toTensor(),
        (*ctx.output_shapes)[0],
        ctx.args[4].toBool())};
  };
  return r;
}

// softmax-like ops along `dim`: any other dim may stay sharded; the
// softmax dim must be whole. All operands (forward: self; backward: grad,
// output) share the placement.
RuleResult along_dim_rule(const CallInfo& call, int64_t dim_arg) {
  const Shape& in = call.operands[0].shape;
  const int64_t ndim = static_cast<int64_t>(in.size());
  int64_t dim = call.arg(dim_arg).toInt();
  dim = dim < 0 ? dim + std::max<int64_t>(ndim, 1) : dim;
  RuleResult r;
  const size_t n = call.operands.size();
  for (int64_t d = 0; d < ndim; ++d) {
    if (d != dim) {
      r.strategies.push_back({std::vector<Placement>(n, Shard{d}), {Shard{d}}});
    }
  }
  r.strategies.push_back(
      {std::vector<Placement>(n, Replicate{}), {Replicate{}}});
  r.output_shapes = {in};
  return r;
}

// The mesh dims that shard tensor dim `dim` under `placements`.
std::vector<int64_t> mesh_dims_sharding(
    const Placements& placements,
    int64_t dim) {
  std::vector<int64_t> out;
  for (size_t d = 0; d < placements.size(); ++d) {
    if (is_shard(placements[d], dim)) {
      out.push_back(static_cast<int64_t>(d));
    }
  }
  return out;
}

at::Tensor reduced_over(
    at::Tensor t,
    const LocalContext& ctx,
    const std::vector<int64_t>& mesh_dims,
    ReduceOp op) {
  for (const int64_t d : mesh_dims) {
    t = detail::reduce_over(t, *ctx.mesh, d, op);
  }
  return t;
}

// log_softmax(self, dim, half_to_float): along_dim_rule, and the softmax dim
// itself sharded (Megatron's vocab-parallel softmax, PyTorch's
// loss_parallel): each rank's block of the row with the row's maximum and
// sum of exponentials all-reduced over the mesh dims that shard it, two
// all-reduces of [..., 1] instead of moving the logits. Last in the list:
// a Replicate input stays Replicate.
RuleResult log_softmax_rule(const CallInfo& call) {
  RuleResult r = along_dim_rule(call, 1);
  const int64_t ndim = static_cast<int64_t>(call.operands[0].shape.size());
  if (ndim == 0) {
    return r;
  }
  int64_t dim = call.arg(1).toInt();
  dim = dim < 0 ? dim + ndim : dim;
  r.strategies.push_back({{Shard{dim}}, {Shard{dim}}});
  r.run_local = [dim](
                    const std::vector<at::Tensor>& locals,
                    const LocalContext& ctx) {
    const bool half_to_float = ctx.args[2].toBool();
    const auto mesh_dims = mesh_dims_sharding((*ctx.input_placements)[0], dim);
    if (mesh_dims.empty()) {
      return std::vector<at::Tensor>{
          at::_log_softmax(locals[0], dim, half_to_float)};
    }
    const at::Tensor x = half_to_float ? locals[0].to(at::kFloat) : locals[0];
    at::Tensor row_max;
    if (x.size(dim) == 0) { // an empty block: -inf, the max's identity
      auto shape = x.sizes().vec();
      shape[dim] = 1;
      row_max = at::full(
          shape, -std::numeric_limits<double>::infinity(), x.options());
    } else {
      row_max = x.amax(dim, /*keepdim=*/true);
    }
    row_max = reduced_over(row_max, ctx, mesh_dims, ReduceOp::MAX);
    const at::Tensor shifted = x - row_max;
    const at::Tensor sum_exp = reduced_over(
        shifted.exp().sum(dim, /*keepdim=*/true),
        ctx,
        mesh_dims,
        ReduceOp::SUM);
    return std::vector<at::Tensor>{shifted - sum_exp.log()};
  };
  return r;
}

// _log_softmax_backward_data(grad, output, dim, input_dtype): grad -
// exp(output) * sum(grad, dim); with the dim sharded, the row sums are
// all-reduced (one all-reduce of [..., 1]).
RuleResult log_softmax_backward_rule(const CallInfo& call) {
  RuleResult r = along_dim_rule(call, 2);
  const int64_t ndim = static_cast<int64_t>(call.operands[0].shape.size());
  if (ndim == 0 || call.operands.size() != 2) {
    return r;
  }
  int64_t dim = call.arg(2).toInt();
  dim = dim < 0 ? dim + ndim : dim;
  r.strategies.push_back({{Shard{dim}, Shard{dim}}, {Shard{dim}}});
  r.run_local =
      [dim](const std::vector<at::Tensor>& locals, const LocalContext& ctx) {
        const auto mesh_dims =
            mesh_dims_sharding((*ctx.input_placements)[0], dim);
        const at::Tensor& grad = locals[0];
        const at::Tensor& output = locals[1];
        const auto dtype = ctx.args[3].toScalarType();
        if (mesh_dims.empty()) {
          return std::vector<at::Tensor>{
              at::_log_softmax_backward_data(grad, output, dim, dtype)};
        }
        const at::Tensor sums = reduced_over(
            grad.sum(dim, /*keepdim=*/true), ctx, mesh_dims, ReduceOp::SUM);
        return std::vector<at::Tensor>{(grad - output.exp() * sums).to(dtype)};
      };
  return r;
}

// cumsum along `dim`: along_dim_rule, and linear: a Partial sum's (or
// average's) running sums are partial running sums.
RuleResult running_sum_rule(const CallInfo& call) {
  RuleResult r = along_dim_rule(call, 1);
  r.strategies.push_back({{Partial{ReduceOp::SUM}}, {Partial{ReduceOp::SUM}}});
  r.strategies.push_back({{Partial{ReduceOp::AVG}}, {Partial{ReduceOp::AVG}}});
  return r;
}

// topk(self, k, dim, largest, sorted) -> (values, indices): the `dim` must
// be whole (the k largest of a shard are not the k largest), other shards
// stay in both outputs, whose `dim` has length k.
RuleResult top_k_rule(const CallInfo& call) {
  RuleResult r = along_dim_rule(call, 2);
  Shape out = call.operands[0].shape;
  if (!out.empty()) {
    const int64_t dim = call.arg(2).toInt();
    out[dim < 0 ? dim + static_cast<int64_t>(out.size()) : dim] =
        call.arg(1).toInt();
  }
  for (auto& s : r.strategies) {
    s.outputs.push_back(s.outputs[0]);
  }
  r.output_shapes = {out, out};
  return r;
}

} // namespace

void add_reduction_rules(RuleTable& table) {
  const std::string ext =
      "S(d) → P(max) (P(min) for amin) for a reduced d whose size divides by the mesh size (else gathered), S(d) → S(d') otherwise; R → R; "
      "P(max) → P(max) (P(min) → P(min))";
  table["aten::amax.default"] = {"reduction", ext, [](const CallInfo& c) {
                                   return reduction_rule(
                                       c, 1, 2, ReduceOp::MAX);
                                 }};
  table["aten::amin.default"] = {"reduction", ext, [](const CallInfo& c) {
                                   return reduction_rule(
                                       c, 1, 2, ReduceOp::MIN);
                                 }};
  const std::string along =
      "S(d) → S(d) for d other than the softmax dim (all operands alike); R → R";
  table["aten::_softmax.default"] = {"reduction", along, [](const CallInfo& c) {
                                       return along_dim_rule(c, 1);
                                     }};
  table["aten::_log_softmax.default"] = {
      "reduction",
      along +
          "; S(dim) → S(dim): the row's max and sum of exponentials all-reduced (vocab-parallel, PyTorch's "
          "loss_parallel)",
      log_softmax_rule};
  table["aten::_softmax_backward_data.default"] = {
      "reduction", along, [](const CallInfo& c) {
        return along_dim_rule(c, 2);
      }};
  table["aten::_log_softmax_backward_data.default"] = {
      "reduction",
      along + "; S(dim) → S(dim): the row sums of grad all-reduced",
      log_softmax_backward_rule};
  const std::string sum =
      "S(d) → P(sum) for a reduced d, S(d) → S(d') (renumbered) otherwise; R → R; P(sum) → "
      "P(sum); P(avg) → P(avg)";
  const std::string mean =
      "S(d) → P(avg) for a reduced d whose size divides by the mesh size (else gathered), "
      "S(d) → S(d') otherwise; R → R; P(sum) → P(sum); P(avg) → P(avg)";
  table["aten::sum.default"] = {"reduction", sum, [](const CallInfo& c) {
                                  return reduction_rule(
                                      c, -1, -1, ReduceOp::SUM);
                                }};
  table["aten::sum.dim_IntList"] = {"reduction", sum, [](const CallInfo& c) {
                                      return reduction_rule(
                                          c, 1, 2, ReduceOp::SUM);
                                    }};
  table["aten::mean.default"] = {"reduction", mean, [](const CallInfo& c) {
                                   return reduction_rule(
                                       c, -1, -1, ReduceOp::AVG);
                                 }};
  const std::string whole_max =
      "a reduced sharded dim is gathered (the indices of a shard's maxima are local); "
      "S(d) → S(d') in both outputs otherwise; R → R";
  table["aten::max.default"] = {"reduction", ext, [](const CallInfo& c) {
                                  return reduction_rule(
                                      c, -1, -1, ReduceOp::MAX);
                                }};
  table["aten::min.default"] = {"reduction", ext, [](const CallInfo& c) {
                                  return reduction_rule(
                                      c, -1, -1, ReduceOp::MIN);
                                }};
  table["aten::max.dim"] = {"reduction", whole_max, [](const CallInfo& c) {
                              return whole_reduction_rule(c, 1, 2, 2);
                            }};
  table["aten::min.dim"] = {"reduction", whole_max, [](const CallInfo& c) {
                              return whole_reduction_rule(c, 1, 2, 2);
                            }};
  const std::string prod =
      "S(d) → P(product) for a reduced d (an empty shard's product is 1: exact), S(d) → "
      "S(d') otherwise; R → R; P(product) → P(product)";
  table["aten::prod.default"] = {"reduction", prod, [](const CallInfo& c) {
                                   return reduction_rule(
                                       c, -1, -1, ReduceOp::PRODUCT);
                                 }};
  table["aten::prod.dim_int"] = {"reduction", prod, [](const CallInfo& c) {
                                   return reduction_rule(
                                       c, 1, 2, ReduceOp::PRODUCT);
                                 }};
  table["aten::value_selecting_reduction_backward.default"] = {
      "reduction",
      "grad×indices: S(d)×S(d) → S(d') (d' the input dim of d) for d other than `dim`; R×R → R",
      value_selecting_backward_rule};
  const std::string norm =
      "a reduced sharded dim is gathered (stricter than PyTorch's _NormPartial), S(d) → S(d') "
      "otherwise; R → R; a Partial is reduced first";
  table["aten::linalg_vector_norm.default"] = {
      "reduction", norm, [](const CallInfo& c) {
        return whole_reduction_rule(c, 2, 3, 1);
      }};
  // The legacy norm overloads (Tensor.norm) have their own kernels in 1.13.
  table["aten::norm.ScalarOpt_dim"] = {
      "reduction", norm, [](const CallInfo& c) {
        return whole_reduction_rule(c, 2, 3, 1);
      }};
  table["aten::norm.ScalarOpt_dim_dtype"] = {
      "reduction", norm, [](const CallInfo& c) {
        return whole_reduction_rule(c, 2, 3, 1);
      }};
  table["aten::norm.Scalar"] = {"reduction", norm, [](const CallInfo& c) {
                                  return whole_reduction_rule(c, -1, -1, 1);
                                }};
  table["aten::norm.ScalarOpt_dtype"] = {
      "reduction", norm, [](const CallInfo& c) {
        return whole_reduction_rule(c, -1, -1, 1);
      }};
  table["aten::mean.dim"] = {"reduction", mean, [](const CallInfo& c) {
                               return reduction_rule(c, 1, 2, ReduceOp::AVG);
                             }};
  table["aten::cumsum.default"] = {
      "reduction",
      "S(d) → S(d) for d other than the summed dim; R → R; P(sum) → P(sum); P(avg) → "
      "P(avg)",
      running_sum_rule};
  table["aten::topk.default"] = {
      "reduction",
      "S(d) → S(d) in both outputs for d other than `dim` (the k largest of a shard are "
      "not the k largest); R → R",
      top_k_rule};
  // log of a sum of exps, variance and standard deviation: no Partial
  // combines the shards' results (PyTorch's own strategies gather too).
  const std::string whole =
      "a reduced sharded dim is gathered, S(d) → S(d') otherwise; R → R; a Partial is "
      "reduced first";
  table["aten::logsumexp.default"] = {
      "reduction", whole, [](const CallInfo& c) {
        return whole_reduction_rule(c, 1, 2, 1);
      }};
  for (const char* op : {"aten::var.correction", "aten::std.correction"}) {
    table[op] = {"reduction", whole, [](const CallInfo& c) {
                   return whole_reduction_rule(c, 1, 3, 1);
                 }};
  }
  for (const char* op :
       {"aten::var_mean.correction", "aten::std_mean.correction"}) {
    table[op] = {"reduction", whole, [](const CallInfo& c) {
                   return whole_reduction_rule(c, 1, 3, 2);
                 }};
  }
}

} // namespace ops
} // namespace meshguard
