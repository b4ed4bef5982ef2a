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
  bool shapes_from_locals = false; // output_shapes are placeholders
  std::vector<GlobalDim> global_dims;
};

// What the op cannot move, as PyTorch requires: an in-place op's self
// (operand `written`, which is also output 0) and an out= op's out tensors
// (output o must come out in `outputs[o]`'s placements; nullptr: free).
struct Fixed {
  int64_t written = -1;
  c10::ArrayRef<const Placements*> outputs;
  // Other operands the op writes (batch norm's running statistics): their
  // local blocks are updated, so they cannot be redistributed either.
  c10::ArrayRef<int64_t> kept;
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

// The global shape of output `o` of a decision whose rule left it to the
// local results (Decision::shapes_from_locals): the local result's sizes,
// each sharded dim taking the global size of the operand dim it is sharded
// alike with. A sharded dim no GlobalDim names is a bug in the rule.
Shape global_shape_of(
    size_t o,
    const at::Tensor& local,
    const Placements& placements,
    const Decision& decision,
    const CallInfo& call);

// Decisions cached so far (for tests and the benchmark).
size_t decision_cache_size();

} // namespace ops
} // namespace meshguard
