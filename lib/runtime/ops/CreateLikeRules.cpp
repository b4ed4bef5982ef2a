// ones_like / empty_like / full_like: the result's values do not depend on
// self's, only its shape does, so a Partial self gives a Replicate result
// without reducing self first (PyTorch's create_like_strategy). This matters
// on every training step: loss.backward() seeds the gradient with
// ones_like(loss), and a loss averaged over a sharded batch is Partial; as a
// plain pointwise op it cost one all-reduce of the loss per step.
// Registered after the pointwise family, whose entries for these ops it
// replaces.

#include "RuleTable.h"

namespace meshguard {
namespace ops {

namespace {

RuleResult create_like_rule(const CallInfo& call) {
  RuleResult r;
  const Shape& self = call.operands[0].shape;
  for (int64_t d = 0; d < static_cast<int64_t>(self.size()); ++d) {
    r.strategies.push_back({{Shard{d}}, {Shard{d}}});
  }
  r.strategies.push_back({{Replicate{}}, {Replicate{}}});
  for (const auto& p : call.operands[0].placements) {
    if (is_partial(p)) {
      // Every rank holds the whole shape: the local result is the full one.
      r.strategies.push_back({{p}, {Replicate{}}});
    }
  }
  r.output_shapes = {self};
  return r;
}

} // namespace

void add_create_like_rules(RuleTable& table) {
  for (const char* op :
       {"aten::ones_like.default",
        "aten::empty_like.default",
        "aten::full_like.default"}) {
    table[op] = {
        "pointwise",
        "S(d) → S(d); R → R; P(op) → R (the values do not depend on self's)",
        create_like_rule};
  }
}

} // namespace ops
} // namespace meshguard
