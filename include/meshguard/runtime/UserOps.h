#pragma once

// Users' own ops on DTensors, PyTorch's two ways in, in C++:
//  - register_sharding: a rule for an op of one's own (a TORCH_LIBRARY
//    kernel): the placement combinations under which it runs on local
//    shards; the runtime picks the cheapest as for its built-in rules.
//  - local_map: run a function on the local shards, with declared input
//    placements (redistributed when asked) and declared output placements.
// docs/runtime/user-ops.md.

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <ATen/ATen.h>

#include <meshguard/runtime/DeviceMesh.h>
#include <meshguard/runtime/Placement.h>

namespace meshguard {

// One way to run the op on local shards, for ONE mesh dim (the runtime
// applies the same list to every mesh dim): the placement each DTensor
// input must have (in argument order; a Tensor[] counts each element) and
// the placement each tensor output then has. An output Shard(d) must have
// an input sharded in the same option: its global length on d is that
// input's along its sharded dim (an elementwise or batched op's).
struct ShardingOption {
  Placements inputs;
  Placements outputs;
};

// What a rule sees of a call: the global shapes of the DTensor inputs and
// the op's arguments (DTensors as they are).
struct ShardingCall {
  std::vector<std::vector<int64_t>> input_shapes;
  std::vector<c10::IValue> args;
};

using ShardingRuleFn =
    std::function<std::vector<ShardingOption>(const ShardingCall&)>;

// Registers `rule` for the operator `op` ("mylib::fused_gelu", or with an
// overload, "mylib::op.out"; an operator without one is its default
// overload), for the calls that start after it; it replaces a rule
// registered before for the op, and a built-in one. Every rule also has the
// all-Replicate option. Throws for an unknown operator.
void register_sharding(const std::string& op, ShardingRuleFn rule);

// The same with a fixed list of options.
void register_sharding(
    const std::string& op,
    std::vector<ShardingOption> options);

using LocalFn =
    std::function<std::vector<at::Tensor>(const std::vector<at::Tensor>&)>;

// Wraps `fn`, a computation on local tensors, for DTensors: each DTensor
// argument whose `in_placements` entry is given must have those placements
// (redistributed to them when `redistribute_inputs`, else an error naming
// both), and is passed to `fn` as its local tensor; plain arguments pass as
// they are; each result becomes a DTensor on `mesh` with `out_placements`
// (no check: `fn` vouches for them). Differentiable. Called with plain
// tensors only, the wrapper calls `fn` as it is.
LocalFn local_map(
    LocalFn fn,
    std::vector<Placements> out_placements,
    std::vector<std::optional<Placements>> in_placements,
    DeviceMesh mesh,
    bool redistribute_inputs = false);

} // namespace meshguard
