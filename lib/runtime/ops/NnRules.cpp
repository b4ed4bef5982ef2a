// nn ops that tensor-parallel models need: embedding (row- and column-
// sharded weights), layer_norm, dropout's bernoulli_, mse_loss and
// nll_loss (cross_entropy decomposes into log_softmax + nll_loss; with the
// classes sharded, a vocab-parallel loss), each with its backward.
// Strategies as PyTorch's op strategies; where a local kernel would compute
// with local sizes (a mean over a shard, a lookup in a block of rows, random
// numbers for a block) the rule runs its own local computation so that the
// result equals the op on the full tensors.

#include <map>
#include <utility>
#include <vector>

#include <ATen/ATen.h>
#include <ATen/core/Reduction.h>

#include "Internal.h"
#include "RuleTable.h"

namespace meshguard {
namespace ops {

namespace {

using namespace shorthand;

// The placements of the call's DTensor operands: `by_arg` for the
// arguments it names, `other` for the rest.
std::vector<Placement> per_operand(
    const CallInfo& call,
    const std::map<size_t, Placement>& by_arg,
    const Placement& other = R) {
  std::vector<Placement> out;
  for (const auto& o : call.operands) {
    auto it = by_arg.find(o.arg_index);
    out.push_back(it == by_arg.end() ? other : it->second);
  }
  return out;
}

const Operand* operand_at(const CallInfo& call, size_t arg_index) {
  for (const auto& o : call.operands) {
    if (o.arg_index == arg_index) {
      return &o;
    }
  }
  return nullptr;
}

Shape arg_shape(const CallInfo& call, size_t arg_index) {
  if (const Operand* o = operand_at(call, arg_index)) {
    return o->shape;
  }
  const c10::IValue& v = call.arg(arg_index);
  TORCH_CHECK(
      v.isTensor(), "nn rule: argument ", arg_index, " is not a tensor");
  return v.toTensor().sizes().vec();
}

bool sharded_on(const Placements& ps, int64_t dim) {
  for (const auto& p : ps) {
    if (is_shard(p, dim)) {
      return true;
    }
  }
  return false;
}

bool any_shard(const Placements& ps) {
  for (const auto& p : ps) {
    if (is_shard(p)) {
      return true;
    }
  }
  return false;
}

int64_t numel(const Shape& s) {
  int64_t n = 1;
  for (auto v : s) {
    n *= v;
  }
  return n;
}

// A tensor argument of the call as the local runner sees it (the local
// tensor of a DTensor operand, a plain scalar-like tensor as it came).
at::Tensor arg_tensor(const LocalContext& ctx, size_t i) {
  return ctx.args[i].toTensor();
}

// ---- embedding(weight, indices, padding_idx, scale_grad_by_freq, sparse)

RuleResult embedding_rule(const CallInfo& call) {
  const Shape w = arg_shape(call, 0);
  const Shape idx = arg_shape(call, 1);
  TORCH_CHECK(w.size() == 2, "embedding rule: the weight must be 2-D");
  Shape out = idx;
  out.push_back(w[1]);
  const int64_t last = static_cast<int64_t>(idx.size());
  const bool sparse = call.arg(4).toBool();
  RuleResult r;
  if (!sparse) {
    // Column-wise: every rank looks up its columns of every row.
    r.strategies.push_back({per_operand(call, {{0, S(1)}, {1, R}}), {S(last)}});
    // Row-wise: each rank looks up the rows it holds, zeros elsewhere; the
    // sum over ranks is the lookup (PyTorch's MaskPartial).
    r.strategies.push_back({per_operand(call, {{0, S(0)}, {1, R}}), {P}});
    // Linear in the weight.
    r.strategies.push_back({per_operand(call, {{0, P}, {1, R}}), {P}});
  }
  for (int64_t d = 0; d < last; ++d) {
    r.strategies.push_back({per_operand(call, {{0, R}, {1, S(d)}}), {S(d)}});
  }
  r.strategies.push_back({per_operand(call, {}), {R}});
  r.output_shapes = {out};
  const int64_t rows = w[0];
  r.run_local = [rows](
                    const std::vector<at::Tensor>&, const LocalContext& ctx) {
    const at::Tensor weight = arg_tensor(ctx, 0);
    const at::Tensor indices = arg_tensor(ctx, 1);
    const int64_t padding_idx = ctx.args[2].toInt();
    const bool scale = ctx.args[3].toBool();
    const bool sparse = ctx.args[4].toBool();
    const Placements& wp = (*ctx.input_placements)[0];
    if (!sharded_on(wp, 0)) {
      return std::vector<at::Tensor>{
          at::embedding(weight, indices, padding_idx, scale, sparse)};
    }
    const int64_t offset = shard_offset(rows, 0, wp, *ctx.mesh);
    const int64_t local_rows = weight.size(0);
    const at::Tensor outside =
        indices.lt(offset).logical_or(indices.ge(offset + local_rows));
    at::Tensor out;
    if (local_rows == 0) {
      out = at::zeros((*ctx.output_shapes)[0], weight.options());
    } else {
      out = at::embedding(weight, indices.sub(offset).masked_fill(outside, 0));
      out = out.masked_fill(outside.unsqueeze(-1), 0);
    }
    return std::vector<at::Tensor>{out};
  };
  return r;
}

// embedding_dense_backward(grad_output, indices, num_weights, padding_idx,
// scale_grad_by_freq): a Replicate gradient of a row-wise lookup runs as
// any all-Replicate op (a Replicate weight gradient; see parallel.md).
RuleResult embedding_backward_rule(const CallInfo& call) {
  const Shape grad = arg_shape(call, 0);
  const Shape idx = arg_shape(call, 1);
  const int64_t num_weights = call.arg(2).toInt();
  const int64_t last = static_cast<int64_t>(grad.size()) - 1;
  RuleResult r;
  r.strategies.push_back({per_operand(call, {{0, S(last)}, {1, R}}), {S(1)}});
  for (int64_t d = 0; d < static_cast<int64_t>(idx.size()); ++d) {
    // Batch-sharded lookups: each rank's rows add up.
    r.strategies.push_back({per_operand(call, {{0, S(d)}, {1, S(d)}}), {P}});
  }
  r.strategies.push_back({per_operand(call, {{0, P}, {1, R}}), {P}});
  r.strategies.push_back({per_operand(call, {}), {R}});
  r.output_shapes = {{num_weights, grad.back()}};
  return r;
}

// ---- native_layer_norm(input, normalized_shape, weight?, bias?, eps)

RuleResult layer_norm_rule(const CallInfo& call) {
  const Shape in = arg_shape(call, 0);
  const auto normalized = call.arg(1).toIntVector();
  const int64_t batch_dims =
      static_cast<int64_t>(in.size() - normalized.size());
  Shape stats(in.begin(), in.begin() + batch_dims);
  stats.resize(in.size(), 1);
  RuleResult r;
  for (int64_t d = 0; d < batch_dims; ++d) {
    r.strategies.push_back(
        {per_operand(call, {{0, S(d)}}), {S(d), S(d), S(d)}});
  }
  r.strategies.push_back({per_operand(call, {}), {R, R, R}});
  r.output_shapes = {in, stats, stats};
  return r;
}

// native_layer_norm_backward(grad_out, input, normalized_shape, mean, rstd,
// weight?, bias?, output_mask): the affine parameters' gradients sum over
// the batch dims, so a batch shard leaves partial sums.
RuleResult layer_norm_backward_rule(const CallInfo& call) {
  const Shape in = arg_shape(call, 1);
  const auto normalized = call.arg(2).toIntVector();
  const int64_t batch_dims =
      static_cast<int64_t>(in.size() - normalized.size());
  RuleResult r;
  for (int64_t d = 0; d < batch_dims; ++d) {
    r.strategies.push_back(
        {per_operand(call, {{0, S(d)}, {1, S(d)}, {3, S(d)}, {4, S(d)}}),
         {S(d), P, P}});
  }
  r.strategies.push_back({per_operand(call, {}), {R, R, R}});
  const Shape params(normalized.begin(), normalized.end());
  r.output_shapes = {in, params, params};
  return r;
}

// ---- bernoulli_(self, p, generator): dropout's noise on CPU

// Each rank draws the full tensor's numbers with its (seeded alike)
// generator and keeps its block, so the noise equals one process's draw on
// the full tensor (as PyTorch's offset-based RNG tracker guarantees).
RuleResult bernoulli_rule(const CallInfo& call) {
  const Shape in = arg_shape(call, 0);
  RuleResult r;
  for (int64_t d = 0; d < static_cast<int64_t>(in.size()); ++d) {
    r.strategies.push_back({{S(d)}, {S(d)}});
  }
  r.strategies.push_back({{R}, {R}});
  r.output_shapes = {in};
  r.run_local =
      [in](const std::vector<at::Tensor>& locals, const LocalContext& ctx) {
        at::Tensor self = locals[0];
        const double p = ctx.args[1].toDouble();
        c10::optional<at::Generator> gen;
        if (!ctx.args[2].isNone()) {
          gen = ctx.args[2].toGenerator();
        }
        const Placements& ps = (*ctx.input_placements)[0];
        if (!any_shard(ps)) {
          self.bernoulli_(p, gen);
          return std::vector<at::Tensor>{self};
        }
        at::Tensor full = at::empty(in, self.options()).bernoulli_(p, gen);
        for (size_t i = 0; i < ps.size(); ++i) {
          if (auto* s = std::get_if<Shard>(&ps[i])) {
            full = detail::chunk_of(
                full,
                s->dim,
                ctx.mesh->size(static_cast<int64_t>(i)),
                ctx.mesh->coordinate()[i]);
          }
        }
        self.copy_(full);
        return std::vector<at::Tensor>{self};
      };
  return r;
}

// ---- mse_loss(self, target, reduction) and its backward

// A mean over shards is each shard's sum over the GLOBAL count, a partial
// sum (exact for uneven and empty shards, unlike the shards' means).
RuleResult mse_loss_rule(const CallInfo& call) {
  const Shape a = arg_shape(call, 0);
  const Shape out_full = at::infer_size(a, arg_shape(call, 1));
  const int64_t reduction = call.arg(2).toInt();
  RuleResult r;
  for (int64_t d = 0; d < static_cast<int64_t>(out_full.size()); ++d) {
    std::vector<Placement> ins;
    ins.reserve(call.operands.size());
    for (const auto& o : call.operands) {
      ins.push_back(aligned_shard(o.shape, out_full, d));
    }
    r.strategies.push_back(
        {ins, {reduction == at::Reduction::None ? S(d) : P}});
  }
  r.strategies.push_back({per_operand(call, {}), {R}});
  r.output_shapes = {reduction == at::Reduction::None ? out_full : Shape{}};
  const int64_t count = numel(out_full);
  r.run_local = [reduction, count](
                    const std::vector<at::Tensor>&, const LocalContext& ctx) {
    const at::Tensor self = arg_tensor(ctx, 0);
    const at::Tensor target = arg_tensor(ctx, 1);
    bool sharded = false;
    for (const auto& ps : *ctx.input_placements) {
      sharded = sharded || any_shard(ps);
    }
    if (reduction == at::Reduction::Mean && sharded) {
      return std::vector<at::Tensor>{
          at::mse_loss(self, target, at::Reduction::Sum).div(count)};
    }
    return std::vector<at::Tensor>{at::mse_loss(self, target, reduction)};
  };
  return r;
}

// mse_loss_backward(grad_output, self, target, reduction).
RuleResult mse_loss_backward_rule(const CallInfo& call) {
  const Shape a = arg_shape(call, 1);
  const Shape out_full = at::infer_size(a, arg_shape(call, 2));
  const int64_t reduction = call.arg(3).toInt();
  RuleResult r;
  for (int64_t d = 0; d < static_cast<int64_t>(out_full.size()); ++d) {
    std::vector<Placement> ins;
    ins.reserve(call.operands.size());
    for (const auto& o : call.operands) {
      ins.push_back(
          o.arg_index == 0 && reduction != at::Reduction::None
              ? R
              : aligned_shard(o.shape, out_full, d));
    }
    r.strategies.push_back({ins, {aligned_shard(a, out_full, d)}});
  }
  r.strategies.push_back({per_operand(call, {}), {R}});
  r.output_shapes = {a};
  const int64_t count = numel(out_full);
  r.run_local = [reduction, count](
                    const std::vector<at::Tensor>&, const LocalContext& ctx) {
    const at::Tensor grad = arg_tensor(ctx, 0);
    const at::Tensor self = arg_tensor(ctx, 1);
    const at::Tensor target = arg_tensor(ctx, 2);
    bool sharded = false;
    for (const auto& ps : *ctx.input_placements) {
      sharded = sharded || any_shard(ps);
    }
    if (reduction == at::Reduction::Mean && sharded) {
      return std::vector<at::Tensor>{
          at::mse_loss_backward(grad, self, target, at::Reduction::Sum)
              .div(count)};
    }
    return std::vector<at::Tensor>{
        at::mse_loss_backward(grad, self, target, reduction)};
  };
  return r;
}

// ---- nll_loss_forward(self, target, weight?, reduction, ignore_index)

// The mean on local rows: their weighted sum over the total weight of every
// rank's rows (an all-reduce on each mesh dim that shards the batch).
std::vector<at::Tensor> nll_loss_mean_local(
    const std::vector<at::Tensor>&,
    const LocalContext& ctx) {
  const at::Tensor self = arg_tensor(ctx, 0);
  const at::Tensor target = arg_tensor(ctx, 1);
  const c10::IValue& weight_arg = ctx.args[2];
  const at::Tensor weight =
      weight_arg.isTensor() ? weight_arg.toTensor() : at::Tensor();
  const int64_t ignore_index = ctx.args[4].toInt();
  const Placements& self_placements = (*ctx.input_placements).at(0);
  // nll_loss2d_forward for [N, C, H, W] inputs.
  auto forward =
      self.dim() == 4 ? &at::nll_loss2d_forward : &at::nll_loss_forward;
  if (!any_shard(self_placements)) {
    auto out = forward(self, target, weight, at::Reduction::Mean, ignore_index);
    return {std::get<0>(out), std::get<1>(out)};
  }
  const at::Tensor kept = target.ne(ignore_index);
  at::Tensor total = weight.defined()
      ? (weight.index_select(0, target.masked_fill(kept.logical_not(), 0)) *
         kept)
            .sum()
      : kept.sum().to(self.scalar_type());
  for (size_t d = 0; d < self_placements.size(); ++d) {
    if (is_shard(self_placements[d])) {
      total = detail::reduce_over(
          total, *ctx.mesh, static_cast<int64_t>(d), ReduceOp::SUM);
    }
  }
  const at::Tensor sum = std::get<0>(
      forward(self, target, weight, at::Reduction::Sum, ignore_index));
  return {sum / total, total};
}

// ---- the class dim sharded (a vocab-parallel loss, PyTorch's loss_parallel)

// The mesh dims that shard the class dim (1) of a [N, C] input.
std::vector<int64_t> class_mesh_dims(const Placements& ps, size_t ndim) {
  std::vector<int64_t> out;
  if (ndim != 2) {
    return out;
  }
  for (size_t d = 0; d < ps.size(); ++d) {
    if (is_shard(ps[d], 1)) {
      out.push_back(static_cast<int64_t>(d));
    }
  }
  return out;
}

// Where each row's target lies in this rank's block of classes: the
// target's column in the block (0 where outside) and whether it is inside.
std::pair<at::Tensor, at::Tensor> target_in_block(
    const at::Tensor& safe_target,
    int64_t classes,
    int64_t block,
    const Placements& ps,
    const DeviceMesh& mesh) {
  const int64_t offset = shard_offset(classes, 1, ps, mesh);
  const at::Tensor inside =
      safe_target.ge(offset).logical_and(safe_target.lt(offset + block));
  return {safe_target.sub(offset).masked_fill(inside.logical_not(), 0), inside};
}

// nll_loss_forward with the class dim sharded: each rank picks the targets
// that fall in its block of classes (zeros elsewhere) and the rows' picks
// are all-reduced over the class-sharding mesh dims (one all-reduce of
// [N]); then weights, ignored targets and the reduction as the kernel's,
// with a mean's total weight all-reduced over the batch-sharding mesh dims
// (as nll_loss_mean_local).
std::vector<at::Tensor> nll_loss_class_sharded(
    const LocalContext& ctx,
    const std::vector<int64_t>& class_dims) {
  const at::Tensor self = arg_tensor(ctx, 0);
  const at::Tensor target = arg_tensor(ctx, 1);
  const c10::IValue& weight_arg = ctx.args[2];
  const int64_t reduction = ctx.args[3].toInt();
  const int64_t ignore_index = ctx.args[4].toInt();
  const Placements& ps = (*ctx.input_placements).at(0);
  const at::Tensor kept = target.ne(ignore_index);
  const at::Tensor safe = target.masked_fill(kept.logical_not(), 0);
  auto [column, inside] = target_in_block(
      safe, (*ctx.input_shapes).at(0).at(1), self.size(1), ps, *ctx.mesh);
  at::Tensor picked = self.size(1) == 0
      ? at::zeros({self.size(0)}, self.options())
      : self.gather(1, column.unsqueeze(1))
            .squeeze(1)
            .masked_fill(inside.logical_not(), 0);
  for (const int64_t d : class_dims) {
    picked = detail::reduce_over(picked, *ctx.mesh, d, ReduceOp::SUM);
  }
  // libtorch 1.13 passes an absent weight as an undefined tensor, 2.x as None.
  const at::Tensor w = weight_arg.isTensor() && weight_arg.toTensor().defined()
      ? weight_arg.toTensor().index_select(0, safe) * kept
      : kept.to(self.scalar_type());
  const at::Tensor losses = (picked * w).neg();
  if (reduction == at::Reduction::None) {
    return {losses, at::zeros({}, self.options())};
  }
  at::Tensor total = w.sum();
  if (reduction == at::Reduction::Mean) {
    for (size_t d = 0; d < ps.size(); ++d) {
      if (is_shard(ps[d], 0)) {
        total = detail::reduce_over(
            total, *ctx.mesh, static_cast<int64_t>(d), ReduceOp::SUM);
      }
    }
    return {losses.sum() / total, total};
  }
  return {losses.sum(), total};
}

std::vector<at::Tensor> nll_loss_local(
    const std::vector<at::Tensor>& locals,
    const LocalContext& ctx) {
  const at::Tensor self = arg_tensor(ctx, 0);
  const auto class_dims =
      class_mesh_dims((*ctx.input_placements).at(0), self.dim());
  if (!class_dims.empty()) {
    return nll_loss_class_sharded(ctx, class_dims);
  }
  const int64_t reduction = ctx.args[3].toInt();
  if (reduction == at::Reduction::Mean) {
    return nll_loss_mean_local(locals, ctx);
  }
  const c10::IValue& weight_arg = ctx.args[2];
  auto forward =
      self.dim() == 4 ? &at::nll_loss2d_forward : &at::nll_loss_forward;
  auto out = forward(
      self,
      arg_tensor(ctx, 1),
      weight_arg.isTensor() ? weight_arg.toTensor() : at::Tensor(),
      reduction,
      ctx.args[4].toInt());
  return {std::get<0>(out), std::get<1>(out)};
}

// Batch-sharded: per-sample losses stay sharded, sums are partial sums. A
// mean divides each shard's sum by the total weight of the whole batch (the
// non-ignored targets' weights), which the local run all-reduces: one scalar
// per sharded mesh dim, exact for uneven shards, ignored targets and class
// weights (PyTorch's Partial(avg) is a mean of the shards' means, and refuses
// uneven shards). The backward reads that Replicate total weight as an operand.
RuleResult nll_loss_rule(const CallInfo& call) {
  const Shape self = arg_shape(call, 0);
  const int64_t reduction = call.arg(3).toInt();
  RuleResult r;
  const bool rows = self.size() == 2 || self.size() == 4; // nll_loss(2d)
  if (rows) {
    r.strategies.push_back(
        {per_operand(call, {{0, S(0)}, {1, S(0)}}),
         {reduction == at::Reduction::None ? S(0) : P,
          reduction == at::Reduction::Sum ? P : R}});
  }
  r.strategies.push_back({per_operand(call, {}), {R, R}});
  if (self.size() == 2 && operand_at(call, 0) != nullptr) {
    // The class dim sharded: the rows' picks all-reduced, the output whole.
    r.strategies.push_back({per_operand(call, {{0, S(1)}}), {R, R}});
  }
  Shape unreduced = {self[0]};
  if (self.size() == 4) {
    unreduced = {self[0], self[2], self[3]};
  }
  const bool batched = rows && reduction == at::Reduction::None;
  r.output_shapes = {batched ? unreduced : Shape{}, Shape{}};
  r.run_local = nll_loss_local;
  return r;
}

// nll_loss_backward(grad_output, self, target, weight?, reduction,
// ignore_index, total_weight): each sample's gradient needs only its own
// row, the Replicate total weight and the Replicate (or, unreduced, its
// own) output gradient.
RuleResult nll_loss_backward_rule(const CallInfo& call) {
  const Shape self = arg_shape(call, 1);
  const int64_t reduction = call.arg(4).toInt();
  RuleResult r;
  if (self.size() == 2 || self.size() == 4) { // nll_loss(2d)_backward
    r.strategies.push_back(
        {per_operand(
             call,
             {{0, reduction == at::Reduction::None ? S(0) : R},
              {1, S(0)},
              {2, S(0)}}),
         {S(0)}});
  }
  r.strategies.push_back({per_operand(call, {}), {R}});
  r.output_shapes = {self};
  const Operand* self_operand = operand_at(call, 1);
  if (self.size() != 2 || self_operand == nullptr) {
    return r;
  }
  // The class dim sharded: -grad * weight at each row's target column in the
  // rank's block, zeros elsewhere; no communication.
  r.strategies.push_back({per_operand(call, {{1, S(1)}}), {S(1)}});
  const size_t self_index =
      static_cast<size_t>(self_operand - call.operands.data());
  const int64_t classes = self[1];
  r.run_local = [self_index, classes](
                    const std::vector<at::Tensor>&, const LocalContext& ctx) {
    const at::Tensor grad = arg_tensor(ctx, 0);
    const at::Tensor input = arg_tensor(ctx, 1);
    const at::Tensor target = arg_tensor(ctx, 2);
    const c10::IValue& weight_arg = ctx.args[3];
    const at::Tensor weight =
        weight_arg.isTensor() ? weight_arg.toTensor() : at::Tensor();
    const int64_t reduction = ctx.args[4].toInt();
    const int64_t ignore_index = ctx.args[5].toInt();
    const at::Tensor total = arg_tensor(ctx, 6);
    const Placements& ps = (*ctx.input_placements).at(self_index);
    if (class_mesh_dims(ps, input.dim()).empty()) {
      return std::vector<at::Tensor>{at::nll_loss_backward(
          grad, input, target, weight, reduction, ignore_index, total)};
    }
    const at::Tensor kept = target.ne(ignore_index);
    const at::Tensor safe = target.masked_fill(kept.logical_not(), 0);
    auto [column, inside] =
        target_in_block(safe, classes, input.size(1), ps, *ctx.mesh);
    const at::Tensor w = weight.defined() ? weight.index_select(0, safe) * kept
                                          : kept.to(input.scalar_type());
    at::Tensor g = reduction == at::Reduction::Mean ? grad / total : grad;
    const at::Tensor value = (g * w).neg().masked_fill(inside.logical_not(), 0);
    at::Tensor out = at::zeros_like(input);
    if (input.size(1) > 0) {
      out.scatter_(
          1, column.unsqueeze(1), value.unsqueeze(1).to(input.scalar_type()));
    }
    return std::vector<at::Tensor>{out};
  };
  return r;
}

} // namespace

void add_nn_rules(RuleTable& table) {
  table["aten::embedding.default"] = {
      "nn",
      "weight×indices: S(1)×R → S(last) (column-wise); S(0)×R → P(sum) (row-wise: each rank looks up its rows, "
      "zeros elsewhere); P(sum)×R → P(sum); R×S(d) → S(d); R×R → R (sparse: the last two only)",
      embedding_rule};
  table["aten::embedding_dense_backward.default"] = {
      "nn",
      "grad×indices: S(last)×R → S(1); S(d)×S(d) → P(sum); P(sum)×R → P(sum); R×R → R (the row-wise weight's "
      "gradient is Replicate)",
      embedding_backward_rule};
  table["aten::native_layer_norm.default"] = {
      "nn",
      "input S(d) for a batch (not normalized) dim d, weight and bias R → S(d), mean S(d), rstd S(d); R → R",
      layer_norm_rule};
  table["aten::native_layer_norm_backward.default"] = {
      "nn",
      "grad, input, mean, rstd S(d) for a batch dim d, weight and bias R → grad_input S(d), grad_weight P(sum), "
      "grad_bias P(sum); R → R",
      layer_norm_backward_rule};
  table["aten::bernoulli_.float"] = {
      "nn",
      "S(d) → S(d) (every rank draws the full tensor's numbers and keeps its block: one process's noise); R → R",
      bernoulli_rule};
  table["aten::mse_loss.default"] = {
      "nn",
      "S(d)×S(d) (aligned) → S(d) unreduced, P(sum) for sum and mean (each shard's sum over the global count); "
      "R×R → R",
      mse_loss_rule};
  table["aten::mse_loss_backward.default"] = {
      "nn",
      "grad (R when reduced, else aligned)×S(d)×S(d) → S(d) (a mean divides by the global count); R → R",
      mse_loss_backward_rule};
  table["aten::nll_loss_forward.default"] = {
      "nn",
      "self S(0) [N, C], target S(0), weight R → output S(0) / total_weight R (none), P(sum) / P(sum) (sum), "
      "P(sum) / R (mean: each shard's sum over the whole batch's total weight, one scalar all-reduce); R → R; "
      "self S(1) [N, C] (the classes sharded: vocab-parallel, PyTorch's loss_parallel), target, weight R → R / R "
      "(the rows' picks all-reduced)",
      nll_loss_rule};
  table["aten::nll_loss_backward.default"] = {
      "nn",
      "grad R (S(0) unreduced), self S(0), target S(0), weight R, total_weight R → S(0); R → R; "
      "self S(1) [N, C], the rest R → S(1) (no communication)",
      nll_loss_backward_rule};
  // The [N, C, H, W] forms (cross_entropy on images): the same, per pixel.
  table["aten::nll_loss2d_forward.default"] =
      table.at("aten::nll_loss_forward.default");
  table["aten::nll_loss2d_backward.default"] =
      table.at("aten::nll_loss_backward.default");
}

} // namespace ops
} // namespace meshguard
