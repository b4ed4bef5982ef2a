// Reductions: a reduced sharded dim leaves partial results (Partial of the
// reduction's own op), the other shard dims are renumbered. Partial inputs
// pass where the reduction is linear.

#include <algorithm>

#include "RuleTable.h"

namespace meshguard {
namespace ops {

namespace {

// The reduced dims (normalised), from an `int[1]? dim` argument; all dims
// when it is None or empty.
std::vector<bool> reduced_dims(const CallInfo& call, int64_t ndim, int64_t dim_arg) {
  std::vector<bool> reduced(ndim, true);
  if (dim_arg < 0) {
    return reduced;
  }
  const c10::IValue& v = call.arg(dim_arg);
  if (v.isNone()) {
    return reduced;
  }
  const auto dims = v.toIntVector();
  if (dims.empty()) {
    return reduced;
  }
  std::fill(reduced.begin(), reduced.end(), false);
  for (auto d : dims) {
    const int64_t nd = d < 0 ? d + ndim : d;
    TORCH_CHECK(nd >= 0 && nd < std::max<int64_t>(ndim, 1), "reduction rule: dim ", d, " out of range");
    if (ndim > 0) {
      reduced[nd] = true;
    }
  }
  return reduced;
}

// sum/mean over `dim_arg` (-1: every dim) with `keepdim_arg` (-1: false).
RuleResult reduction_rule(const CallInfo& call, int64_t dim_arg, int64_t keepdim_arg, ReduceOp op) {
  TORCH_CHECK(call.operands.size() == 1, "reduction rule: expected one DTensor operand");
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
    } else if (op == ReduceOp::SUM || (divisible(in[d], call.mesh_size) && (op == ReduceOp::AVG || in[d] > 0))) {
      // A mean of equal shards is the average of the shards' means; with
      // uneven shards it is not, and an empty shard has no max: the input is
      // gathered (or moved) instead.
      r.strategies.push_back({{Shard{d}}, {Partial{op}}});
    }
  }
  r.strategies.push_back({{Replicate{}}, {Replicate{}}});
  if (op == ReduceOp::SUM || op == ReduceOp::AVG) {
    // Sums and means are linear: a partial sum's sum is a partial sum.
    r.strategies.push_back({{Partial{ReduceOp::SUM}}, {Partial{ReduceOp::SUM}}});
    r.strategies.push_back({{Partial{ReduceOp::AVG}}, {Partial{ReduceOp::AVG}}});
  } else {
    // The max of partial maxima is the max.
    r.strategies.push_back({{Partial{op}}, {Partial{op}}});
  }
  r.output_shapes = {out};
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
  r.strategies.push_back({std::vector<Placement>(n, Replicate{}), {Replicate{}}});
  r.output_shapes = {in};
  return r;
}

} // namespace

void add_reduction_rules(RuleTable& table) {
  const std::string ext = "S(d) → P(max) (P(min) for amin) for a reduced d whose size divides by the mesh size (else gathered), S(d) → S(d') otherwise; R → R; "
                          "P(max) → P(max) (P(min) → P(min))";
  table["aten::amax.default"] = {"reduction", ext,
                                 [](const CallInfo& c) { return reduction_rule(c, 1, 2, ReduceOp::MAX); }};
  table["aten::amin.default"] = {"reduction", ext,
                                 [](const CallInfo& c) { return reduction_rule(c, 1, 2, ReduceOp::MIN); }};
  const std::string along = "S(d) → S(d) for d other than the softmax dim (all operands alike); R → R";
  table["aten::_softmax.default"] = {"reduction", along, [](const CallInfo& c) { return along_dim_rule(c, 1); }};
  table["aten::_log_softmax.default"] = {"reduction", along,
                                         [](const CallInfo& c) { return along_dim_rule(c, 1); }};
  table["aten::_softmax_backward_data.default"] = {"reduction", along,
                                                   [](const CallInfo& c) { return along_dim_rule(c, 2); }};
  table["aten::_log_softmax_backward_data.default"] = {"reduction", along,
                                                       [](const CallInfo& c) { return along_dim_rule(c, 2); }};
  const std::string sum = "S(d) → P(sum) for a reduced d, S(d) → S(d') (renumbered) otherwise; R → R; P(sum) → "
                          "P(sum); P(avg) → P(avg)";
  const std::string mean = "S(d) → P(avg) for a reduced d whose size divides by the mesh size (else gathered), "
                           "S(d) → S(d') otherwise; R → R; P(sum) → P(sum); P(avg) → P(avg)";
  table["aten::sum.default"] = {"reduction", sum,
                                [](const CallInfo& c) { return reduction_rule(c, -1, -1, ReduceOp::SUM); }};
  table["aten::sum.dim_IntList"] = {"reduction", sum,
                                    [](const CallInfo& c) { return reduction_rule(c, 1, 2, ReduceOp::SUM); }};
  table["aten::mean.default"] = {"reduction", mean,
                                 [](const CallInfo& c) { return reduction_rule(c, -1, -1, ReduceOp::AVG); }};
  table["aten::mean.dim"] = {"reduction", mean,
                             [](const CallInfo& c) { return reduction_rule(c, 1, 2, ReduceOp::AVG); }};
}

} // namespace ops
} // namespace meshguard
