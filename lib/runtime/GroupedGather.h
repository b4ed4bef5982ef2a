#pragma once

// FSDP's gather of many parameters in one collective (GatheredParameters):
// the Shard(d) -> Replicate step on one mesh dim of several DTensors as one
// all-gather of their padded shards packed in one buffer, as FSDP2's flat
// buffer. Differentiable: the backward reduce-scatters the gradients that
// are Partial(sum) there in one buffer too. Per-parameter collectives cost
// one Gloo round trip each, which made a transformer block's FSDP step twice
// PyTorch's (docs/runtime/benchmarks.md).

#include <optional>
#include <vector>

#include <ATen/Tensor.h>

#include <meshguard/runtime/Placement.h>

namespace meshguard {
namespace detail {

// The mesh dim of a `from` -> `to` that only unshards one tensor dim on one
// mesh dim (Shard(d) -> Replicate, d not sharded on another mesh dim, every
// other mesh dim unchanged); nullopt for any other change.
std::optional<int64_t> single_unshard_dim(
    const Placements& from,
    const Placements& to);

// The DTensors `sharded` (one mesh, one floating dtype, each Shard on
// `mesh_dim` with single_unshard_dim to Replicate there), Replicate on
// `mesh_dim`: one all-gather for all of them. Records a backward when grad
// mode is on and one of them requires grad.
std::vector<at::Tensor> gather_together(
    const std::vector<at::Tensor>& sharded,
    int64_t mesh_dim);

} // namespace detail
} // namespace meshguard
