#pragma once

// What the view families share (ViewRules.cpp, SqueezeRules.cpp): a view
// described by where each input dim goes; and dims wrapped as torch does
// (also TensorOpRules.cpp).

#include <vector>

#include "ShardingRule.h"

namespace meshguard {
namespace ops {

// dim_map[d]: the output dim that input dim d's shard becomes, -1 when a
// shard on d cannot survive the view. Partial passes (a view only
// rearranges values). `out`: the output's global shape.
RuleResult
map_rule(const CallInfo& call, const std::vector<int64_t>& dim_map, Shape out);

// A dim argument in [-ndim, ndim) as a dim in [0, ndim) (a 0-d tensor's
// dims are -1 and 0, as in torch).
int64_t wrap_dim(int64_t d, int64_t ndim);

} // namespace ops
} // namespace meshguard
