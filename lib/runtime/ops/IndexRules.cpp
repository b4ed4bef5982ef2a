// Advanced indexing: index.Tensor (x[idx]), index_put and _index_put_impl
// (x[idx] = v). The indexed dims of self must be whole (an index names any
// row); self's other dims keep their shards, which land where torch puts
// those dims in the result. An index tensor sharded along the broadcast
// index shape shards the result there (self whole). Indexing picks values,
// so a Partial self passes to the result. Boolean masks select a
// data-dependent count: every operand whole. Their out= and in-place forms
// are derived (Variants.cpp).

#include <algorithm>

#include <ATen/ATen.h>
#include <ATen/ExpandUtils.h>

#include "RuleTable.h"

namespace meshguard {
namespace ops {

namespace {

// Where x[indices] puts each dim: self's dims not indexed, and the indices'
// broadcast shape, in front when the indexed dims are not adjacent.
struct IndexLayout {
  std::vector<bool> indexed; // per dim of self
  Shape broadcast; // the index tensors' broadcast shape
  int64_t broadcast_at = 0; // where it starts in the result
  std::vector<int64_t> self_dim_at; // result dim of each self dim; -1 indexed
  Shape result;
  bool masks = false; // a bool/byte index: the count depends on the values
};

IndexLayout index_layout(const Shape& self, const c10::IValue& indices) {
  IndexLayout l;
  const auto ndim = static_cast<int64_t>(self.size());
  l.indexed.assign(self.size(), false);
  std::vector<int64_t> positions;
  const auto list = indices.toListRef();
  TORCH_CHECK(
      static_cast<int64_t>(list.size()) <= ndim,
      "index: too many indices for a tensor of dimension ",
      ndim);
  for (size_t p = 0; p < list.size(); ++p) {
    if (!list[p].isTensor() || !list[p].toTensor().defined()) {
      continue;
    }
    const at::Tensor& t = list[p].toTensor();
    const auto kind = t.scalar_type();
    l.masks = l.masks || kind == at::kBool || kind == at::kByte;
    l.broadcast = at::infer_size(l.broadcast, t.sizes());
    l.indexed[p] = true;
    positions.push_back(static_cast<int64_t>(p));
  }
  const bool adjacent = !positions.empty() &&
      positions.back() - positions.front() + 1 ==
          static_cast<int64_t>(positions.size());
  l.broadcast_at = adjacent ? positions.front() : 0;
  l.self_dim_at.assign(self.size(), -1);
  if (!adjacent) {
    l.result = l.broadcast;
  }
  for (int64_t d = 0; d < ndim; ++d) {
    if (adjacent && d == l.broadcast_at) {
      l.result.insert(l.result.end(), l.broadcast.begin(), l.broadcast.end());
    }
    if (!l.indexed[d]) {
      l.self_dim_at[d] = static_cast<int64_t>(l.result.size());
      l.result.push_back(self[d]);
    }
  }
  return l;
}

enum class Role { kSelf, kIndex, kValues };

Role role_of(const Operand& o) {
  return o.arg_index == 0 ? Role::kSelf
                          : (o.arg_index == 1 ? Role::kIndex : Role::kValues);
}

std::vector<Partial> self_partials(const CallInfo& call) {
  std::vector<Partial> out;
  for (const Placement& p : call.operands[0].placements) {
    if (const auto* q = std::get_if<Partial>(&p)) {
      if (std::find(out.begin(), out.end(), *q) == out.end()) {
        out.push_back(*q);
      }
    }
  }
  return out;
}

// index.Tensor(self, indices).
RuleResult index_rule(const CallInfo& call) {
  const Shape& self = call.operands[0].shape;
  const IndexLayout l = index_layout(self, call.arg(1));
  RuleResult r;
  const size_t n = call.operands.size();
  const std::vector<Placement> whole(n, Replicate{});
  if (l.masks) {
    r.shapes_from_locals = true;
    r.output_shapes = {Shape{}};
    r.strategies.push_back({whole, {Replicate{}}});
    return r;
  }
  for (size_t d = 0; d < self.size(); ++d) {
    if (l.self_dim_at[d] >= 0) {
      Strategy s{whole, {Shard{l.self_dim_at[d]}}};
      s.inputs[0] = Shard{static_cast<int64_t>(d)};
      r.strategies.push_back(std::move(s));
    }
  }
  for (int64_t j = 0; j < static_cast<int64_t>(l.broadcast.size()); ++j) {
    Strategy s{whole, {Shard{l.broadcast_at + j}}};
    bool sharded = false;
    for (size_t k = 1; k < n; ++k) {
      s.inputs[k] = aligned_shard(call.operands[k].shape, l.broadcast, j);
      sharded = sharded || is_shard(s.inputs[k]);
    }
    if (sharded) {
      r.strategies.push_back(std::move(s));
    }
  }
  r.strategies.push_back({whole, {Replicate{}}});
  for (const Partial& p : self_partials(call)) {
    Strategy s{whole, {p}};
    s.inputs[0] = p;
    r.strategies.push_back(std::move(s));
  }
  r.output_shapes = {l.result};
  return r;
}

// index_put(self, indices, values, accumulate) and _index_put_impl (one
// more flag): the result is self's shape; values broadcast to x[indices]'s.
RuleResult index_put_rule(const CallInfo& call) {
  const Shape& self = call.operands[0].shape;
  const IndexLayout l = index_layout(self, call.arg(1));
  RuleResult r;
  r.output_shapes = {self};
  const size_t n = call.operands.size();
  const std::vector<Placement> whole(n, Replicate{});
  if (!l.masks) {
    for (size_t d = 0; d < self.size(); ++d) {
      if (l.self_dim_at[d] < 0) {
        continue;
      }
      Strategy s{whole, {Shard{static_cast<int64_t>(d)}}};
      s.inputs[0] = Shard{static_cast<int64_t>(d)};
      for (size_t k = 1; k < n; ++k) {
        if (role_of(call.operands[k]) == Role::kValues) {
          s.inputs[k] =
              aligned_shard(call.operands[k].shape, l.result, l.self_dim_at[d]);
        }
      }
      r.strategies.push_back(std::move(s));
    }
  }
  r.strategies.push_back({whole, {Replicate{}}});
  // Each rank puts its share of the values into its share of self: the
  // sum is self with the values put (or added). max/min only when putting.
  const bool accumulate =
      call.num_args > 3 && call.arg(3).isBool() && call.arg(3).toBool();
  const bool values_operand = std::any_of(
      call.operands.begin(), call.operands.end(), [](const Operand& o) {
        return role_of(o) == Role::kValues;
      });
  for (const Partial& p : self_partials(call)) {
    const bool linear =
        p.reduce_op == ReduceOp::SUM || p.reduce_op == ReduceOp::AVG;
    if (!values_operand || (!linear && accumulate)) {
      continue;
    }
    Strategy s{whole, {p}};
    for (size_t k = 0; k < n; ++k) {
      if (role_of(call.operands[k]) != Role::kIndex) {
        s.inputs[k] = p;
      }
    }
    r.strategies.push_back(std::move(s));
  }
  return r;
}

} // namespace

void add_index_rules(RuleTable& table) {
  // The rules read where the indices hold None and which are masks.
  auto add = [&](const char* name, const std::string& strategies, RuleFn rule) {
    RuleEntry entry{"indexing", strategies, std::move(rule)};
    entry.keys_tensor_kinds = true;
    table[name] = std::move(entry);
  };
  add("aten::index.Tensor",
      "self S(d) for a dim not indexed, indices R → S(d') (d's place in the result); self R, an "
      "index S(j) of the broadcast index shape → S(j'); P(op) self → P(op); boolean masks: R → R",
      index_rule);
  const std::string put =
      "self S(d) for a dim not indexed, indices R, values aligned → S(d); self and values "
      "P(sum) → P(sum) (P(max/min) when not accumulating); R → R";
  add("aten::index_put.default", put, index_put_rule);
  if (operators_by_name().count("aten::_index_put_impl") != 0) {
    add("aten::_index_put_impl.default", put, index_put_rule);
  }
}

} // namespace ops
} // namespace meshguard
