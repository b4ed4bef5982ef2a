// Tensor ops that combine or pick along a dim: cat, stack, index_select,
// gather and the scatter/index adds their backwards run. A shard on the
// dim the op works along is gathered first (its pieces are not the op's
// pieces), as PyTorch's strategies do; shards on other dims stay when
// every operand is split alike there.

#include <algorithm>
#include <map>

#include <ATen/ATen.h>
#include <ATen/core/dispatch/Dispatcher.h>

#include "RuleTable.h"
#include "ViewSupport.h"

namespace meshguard {
namespace ops {

namespace {

using namespace shorthand;

// The Partials found among the operands (each gives an all-Partial strategy
// to the ops that are linear in all their operands together).
std::vector<Placement> partials(const CallInfo& call) {
  std::vector<Placement> out;
  for (const auto& o : call.operands) {
    for (const auto& p : o.placements) {
      if (is_partial(p) && std::find(out.begin(), out.end(), p) == out.end()) {
        out.push_back(p);
      }
    }
  }
  return out;
}

// Placements for the call's DTensor operands by argument index (operands
// not named: `other`). Index tensors may also be plain scalar-like tensors,
// which are no operands.
std::vector<Placement> by_arg(
    const CallInfo& call,
    const std::map<size_t, Placement>& named,
    const Placement& other = R) {
  std::vector<Placement> out;
  for (const auto& o : call.operands) {
    auto it = named.find(o.arg_index);
    out.push_back(it == named.end() ? other : it->second);
  }
  return out;
}

Shape shape_of(const CallInfo& call, size_t arg_index) {
  for (const auto& o : call.operands) {
    if (o.arg_index == arg_index) {
      return o.shape;
    }
  }
  const c10::IValue& v = call.arg(arg_index);
  TORCH_CHECK(
      v.isTensor(), "tensor op rule: argument ", arg_index, " is not a tensor");
  return v.toTensor().sizes().vec();
}

// torch.cat skips 1-D empty operands of another rank (legacy behaviour):
// they take no placement part in the output's.
bool skipped_by_cat(const Shape& s, size_t ndim) {
  return s.size() == 1 && s[0] == 0 && ndim != 1;
}

// ---- cat(tensors, dim)

RuleResult cat_rule(const CallInfo& call) {
  const Shape* first = nullptr;
  size_t ndim = 0;
  for (const auto& o : call.operands) {
    ndim = std::max(ndim, o.shape.size());
  }
  for (const auto& o : call.operands) {
    if (!skipped_by_cat(o.shape, ndim)) {
      first = &o.shape;
      break;
    }
  }
  RuleResult r;
  const int64_t dim = wrap_dim(call.arg(1).toInt(), static_cast<int64_t>(ndim));
  Shape out = first ? *first : Shape{0};
  if (first) {
    out[dim] = 0;
    for (const auto& o : call.operands) {
      if (!skipped_by_cat(o.shape, ndim)) {
        out[dim] += o.shape[dim];
      }
    }
    for (int64_t d = 0; d < static_cast<int64_t>(ndim); ++d) {
      if (d == dim) {
        continue;
      }
      Strategy s;
      for (const auto& o : call.operands) {
        s.inputs.push_back(skipped_by_cat(o.shape, ndim) ? R : S(d));
      }
      s.outputs = {S(d)};
      r.strategies.push_back(std::move(s));
    }
  }
  const size_t n = call.operands.size();
  r.strategies.push_back({std::vector<Placement>(n, R), {R}});
  for (const auto& p : partials(call)) {
    r.strategies.push_back({std::vector<Placement>(n, p), {p}});
  }
  r.output_shapes = {out};
  return r;
}

// ---- stack(tensors, dim): the new dim is never sharded.

RuleResult stack_rule(const CallInfo& call) {
  const Shape& in = call.operands[0].shape;
  const int64_t ndim = static_cast<int64_t>(in.size());
  const int64_t dim = wrap_dim(call.arg(1).toInt(), ndim + 1);
  const size_t n = call.operands.size();
  Shape out = in;
  out.insert(out.begin() + dim, static_cast<int64_t>(n));
  RuleResult r;
  for (int64_t d = 0; d < ndim; ++d) {
    r.strategies.push_back(
        {std::vector<Placement>(n, S(d)), {S(d < dim ? d : d + 1)}});
  }
  r.strategies.push_back({std::vector<Placement>(n, R), {R}});
  for (const auto& p : partials(call)) {
    r.strategies.push_back({std::vector<Placement>(n, p), {p}});
  }
  r.output_shapes = {out};
  return r;
}

// ---- index_select(self, dim, index)

RuleResult index_select_rule(const CallInfo& call) {
  const Shape self = shape_of(call, 0);
  const Shape index = shape_of(call, 2);
  const int64_t ndim = static_cast<int64_t>(self.size());
  const int64_t dim = wrap_dim(call.arg(1).toInt(), ndim);
  Shape out = self;
  int64_t picked = 1;
  for (auto v : index) {
    picked *= v;
  }
  if (ndim > 0) {
    out[dim] = picked;
  }
  RuleResult r;
  for (int64_t d = 0; d < ndim; ++d) {
    if (d != dim) {
      r.strategies.push_back({by_arg(call, {{0, S(d)}}), {S(d)}});
    }
  }
  if (ndim > 0 && index.size() == 1) {
    // Each rank picks its block of the indices from the whole self.
    r.strategies.push_back({by_arg(call, {{0, R}, {2, S(0)}}), {S(dim)}});
  }
  r.strategies.push_back({by_arg(call, {}), {R}});
  for (const auto& p : partials(call)) {
    // Picking entries is linear (and keeps maxima): a Partial self stays.
    r.strategies.push_back({by_arg(call, {{0, p}}), {p}});
  }
  r.output_shapes = {out};
  return r;
}

// ---- gather(self, dim, index, sparse_grad): the output has the index's
// shape and reads self along `dim` only.

RuleResult gather_rule(const CallInfo& call) {
  const Shape self = shape_of(call, 0);
  const Shape index = shape_of(call, 2);
  const int64_t ndim = static_cast<int64_t>(index.size());
  const int64_t dim =
      wrap_dim(call.arg(1).toInt(), static_cast<int64_t>(self.size()));
  RuleResult r;
  if (dim < ndim) {
    // A block of the index along `dim` reads the whole self there (on any
    // other dim a local row is not self's row of that number).
    r.strategies.push_back({by_arg(call, {{0, R}, {2, S(dim)}}), {S(dim)}});
  }
  for (int64_t d = 0; d < ndim; ++d) {
    if (d != dim && d < static_cast<int64_t>(self.size()) &&
        self[d] == index[d]) {
      // Both split alike on d: each rank's index reads its own block.
      r.strategies.push_back({by_arg(call, {{0, S(d)}, {2, S(d)}}), {S(d)}});
    }
  }
  r.strategies.push_back({by_arg(call, {}), {R}});
  for (const auto& p : partials(call)) {
    r.strategies.push_back({by_arg(call, {{0, p}}), {p}});
  }
  r.output_shapes = {index};
  return r;
}

// ---- scatter_add(self, dim, index, src) and index_add(self, dim, index,
// source, alpha), out of place and in place (the backwards of gather and
// index_select): dims other than `dim` stay sharded when every operand is
// split alike there. `index_arg_sharded`: the index follows the shard
// (scatter_add's index has src's shape), else it stays R (index_add's is
// 1-D along `dim`).

// Owner computes: self sharded on `dim` itself, index and src whole; each
// rank adds the entries whose index falls in its block (the others are
// sent to its first row as zeros: adding 0 changes nothing). Runs when
// `self` is Shard(dim) on some mesh dim, else the op itself.
at::Tensor add_into_local(
    const std::vector<at::Tensor>&,
    const LocalContext& ctx,
    bool scatter,
    bool in_place,
    int64_t self_size) {
  at::Tensor self = ctx.args[0].toTensor();
  const int64_t dim = ctx.args[1].toInt() < 0 ? ctx.args[1].toInt() + self.dim()
                                              : ctx.args[1].toInt();
  const at::Tensor index = ctx.args[2].toTensor();
  const at::Tensor src = ctx.args[3].toTensor();
  const Placements& ps = (*ctx.input_placements)[0];
  bool owner = false;
  for (const auto& p : ps) {
    owner = owner || is_shard(p, dim);
  }
  at::Tensor out = in_place ? self : self.clone();
  if (!owner) {
    return scatter ? out.scatter_add_(dim, index, src)
                   : out.index_add_(dim, index, src, ctx.args[4].toScalar());
  }
  const int64_t length = self.size(dim);
  if (length == 0) {
    return out;
  }
  const int64_t offset = shard_offset(self_size, dim, ps, *ctx.mesh);
  const at::Tensor mine =
      index.ge(offset).logical_and(index.lt(offset + length));
  const at::Tensor local_index =
      index.sub(offset).masked_fill(mine.logical_not(), 0);
  if (scatter) {
    at::Tensor used = src; // scatter_add reads only src's index-shaped corner
    for (int64_t d = 0; d < index.dim(); ++d) {
      used = used.narrow(d, 0, index.size(d));
    }
    return out.scatter_add_(
        dim, local_index, used.masked_fill(mine.logical_not(), 0));
  }
  std::vector<int64_t> along(src.dim(), 1);
  along[dim] = -1;
  const at::Tensor masked = src.masked_fill(mine.logical_not().view(along), 0);
  return out.index_add_(dim, local_index, masked, ctx.args[4].toScalar());
}

RuleResult add_into_rule(
    const CallInfo& call,
    size_t src_arg,
    bool index_follows,
    bool in_place) {
  const Shape self = shape_of(call, 0);
  const Shape index = shape_of(call, 2);
  const Shape src = shape_of(call, src_arg);
  const int64_t ndim = static_cast<int64_t>(self.size());
  const int64_t dim = wrap_dim(call.arg(1).toInt(), ndim);
  RuleResult r;
  for (int64_t d = 0; d < ndim; ++d) {
    const bool alike = d != dim && d < static_cast<int64_t>(src.size()) &&
        src[d] == self[d] &&
        (!index_follows ||
         (d < static_cast<int64_t>(index.size()) && index[d] == self[d]));
    if (alike) {
      r.strategies.push_back(
          {by_arg(
               call,
               {{0, S(d)}, {2, index_follows ? S(d) : R}, {src_arg, S(d)}}),
           {S(d)}});
    }
  }
  if (ndim > 0) {
    r.strategies.push_back({by_arg(call, {{0, S(dim)}}), {S(dim)}});
  }
  r.strategies.push_back({by_arg(call, {}), {R}});
  for (const auto& p : partials(call)) {
    if (std::get<Partial>(p).reduce_op == ReduceOp::SUM) {
      // Linear in self and src together.
      r.strategies.push_back(
          {by_arg(call, {{0, p}, {2, R}, {src_arg, p}}), {p}});
    }
  }
  r.output_shapes = {self};
  const bool scatter = index_follows;
  const int64_t self_size = ndim > 0 ? self[dim] : 0;
  r.run_local = [scatter, in_place, self_size](
                    const std::vector<at::Tensor>& locals,
                    const LocalContext& ctx) {
    return std::vector<at::Tensor>{
        add_into_local(locals, ctx, scatter, in_place, self_size)};
  };
  return r;
}

// _local_scalar_dense (what .item() runs): the one element of the global
// tensor, so a Shard is gathered and a Partial reduced first.
RuleResult item_rule(const CallInfo&) {
  RuleResult r;
  r.strategies.push_back({{R}, {R}});
  r.output_shapes = {Shape{}};
  return r;
}

} // namespace

void add_tensor_op_rules(RuleTable& table) {
  // Outputs whose length, or whose elements' source, depends on the values
  // (autograd's backward of prod, masked_fill and masked_select reaches
  // them): gathered, then run whole. masked_scatter_backward is 2.x only.
  for (const char* op :
       {"aten::nonzero",
        "aten::masked_select",
        "aten::masked_scatter",
        "aten::masked_scatter_",
        "aten::masked_scatter_backward"}) {
    if (!c10::Dispatcher::singleton().findOp({op, ""})) {
      continue;
    }
    RuleEntry entry{
        "tensor",
        "any → R, operands gathered (the output depends on the values' order); in place: self keeps its "
        "placements",
        nullptr};
    entry.replicates_operands = true;
    table[std::string(op) + ".default"] = std::move(entry);
  }
  table["aten::_local_scalar_dense.default"] = {
      "tensor",
      "R → a Scalar (.item(): a Shard is gathered, a Partial reduced first)",
      item_rule};
  table["aten::cat.default"] = {
      "tensor",
      "S(d)×…×S(d) → S(d) for d ≠ `dim` (skipped 1-D empty operands R); a sharded `dim` "
      "is gathered; R×…×R → R; P(op)×…×P(op) → P(op)",
      cat_rule};
  table["aten::stack.default"] = {
      "tensor",
      "S(d)×…×S(d) → S(d') (d' = d, or d+1 from `dim` on); R×…×R → R; P(op)×…×P(op) "
      "→ P(op)",
      stack_rule};
  table["aten::index_select.default"] = {
      "tensor",
      "self×index: S(d)×R → S(d) for d ≠ `dim`; R×S(0) → S(`dim`); R×R → R; P(op)×R → P(op); a sharded `dim` of "
      "self is gathered",
      index_select_rule};
  table["aten::gather.default"] = {
      "tensor",
      "self×index: R×S(`dim`) → S(`dim`); S(d)×S(d) → S(d) for d ≠ `dim` when both have "
      "d's size; R×R → R; P(op)×R → P(op); a sharded `dim` of self is gathered",
      gather_rule};
  const std::string scatter =
      "self×index×src: S(d)×S(d)×S(d) → S(d) for d ≠ `dim` when all have d's size; "
      "S(dim)×R×R → S(dim) (each rank adds the entries indexed into its block); R×R×R → R; "
      "P(sum)×R×P(sum) → P(sum)";
  table["aten::scatter_add.default"] = {
      "tensor", scatter, [](const CallInfo& c) {
        return add_into_rule(c, 3, true, false);
      }};
  table["aten::scatter_add_.default"] = {
      "tensor", scatter, [](const CallInfo& c) {
        return add_into_rule(c, 3, true, true);
      }};
  const std::string index_add =
      "self×index×source: S(d)×R×S(d) → S(d) for d ≠ `dim`; S(dim)×R×R → S(dim) (each "
      "rank adds the entries indexed into its block); R×R×R → R; P(sum)×R×P(sum) → P(sum)";
  table["aten::index_add.default"] = {
      "tensor", index_add, [](const CallInfo& c) {
        return add_into_rule(c, 3, false, false);
      }};
  table["aten::index_add_.default"] = {
      "tensor", index_add, [](const CallInfo& c) {
        return add_into_rule(c, 3, false, true);
      }};
}

} // namespace ops
} // namespace meshguard
