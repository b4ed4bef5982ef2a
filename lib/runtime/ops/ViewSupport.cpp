#include "ViewSupport.h"

#include <algorithm>

#include <c10/util/Exception.h>

namespace meshguard {
namespace ops {

RuleResult
map_rule(const CallInfo& call, const std::vector<int64_t>& dim_map, Shape out) {
  RuleResult r;
  for (size_t d = 0; d < dim_map.size(); ++d) {
    if (dim_map[d] >= 0) {
      r.strategies.push_back(
          {{Shard{static_cast<int64_t>(d)}}, {Shard{dim_map[d]}}});
    }
  }
  r.strategies.push_back({{Replicate{}}, {Replicate{}}});
  for (const auto& p : call.operands[0].placements) {
    if (is_partial(p)) {
      r.strategies.push_back({{p}, {p}});
    }
  }
  r.output_shapes = {std::move(out)};
  return r;
}

int64_t wrap_dim(int64_t d, int64_t ndim) {
  const int64_t n = std::max<int64_t>(ndim, 1);
  TORCH_CHECK(
      d >= -n && d < n,
      "sharding rule: dim ",
      d,
      " out of range for ",
      ndim,
      "-d tensor");
  return d < 0 ? d + n : d;
}

} // namespace ops
} // namespace meshguard
