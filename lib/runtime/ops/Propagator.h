#pragma once

// Sharding propagation: from a rule's strategies to one decision per call
// (the placements each DTensor operand is redistributed to, the outputs'
// placements and global shapes), chosen by communication cost and cached by
// (operator, operand specs, non-tensor arguments).

#include <memory>
#include <string>

#include <meshguard/runtime/DeviceMesh.h>

#include "ShardingRule.h"

namespace meshguard {
namespace ops {

struct Decision {
  std::vector<Placements> input_targets; // per operand
  std::vector<Placements> output_placements; // per output
  std::vector<Shape> output_shapes; // global, per output
  decltype(RuleResult::run_local) run_local;
};

// What the op cannot move, as PyTorch requires: an in-place op's self
// (operand `written`, which is also output 0) and an out= op's out tensors
// (output o must come out in `outputs[o]`'s placements; nullptr: free).
struct Fixed {
  int64_t written = -1;
  c10::ArrayRef<const Placements*> outputs;
};

// Throws c10::Error when no strategy is reachable.
std::shared_ptr<const Decision> decide(
    const std::string& op_name,
    const RuleEntry& entry,
    const CallInfo& call,
    const DeviceMesh& mesh,
    const Fixed& fixed);

// The estimated bytes moved to take an operand of `shape` from `from` to
// `to` on mesh dim `mesh_dim` (infinity: not allowed, e.g. Shard to
// Partial). Rank-independent, so every rank picks the same strategy.
double redistribute_cost(
    const Shape& shape,
    const Placements& from,
    const Placement& to,
    int64_t mesh_dim,
    const DeviceMesh& mesh);

// Decisions cached so far (for tests and the benchmark).
size_t decision_cache_size();

} // namespace ops
} // namespace meshguard
