#pragma once

// DTensor factories, as torch.distributed.tensor.ones/zeros/full/empty/
// rand/randn: each rank makes only its local shard of the global `size`.
// Shard(-1) means the last dim. Partial placements are refused (a factory's
// value is not a sum of parts). `options.requires_grad()` makes a leaf.

#include <vector>

#include <ATen/Tensor.h>
#include <c10/core/Scalar.h>
#include <c10/core/TensorOptions.h>

#include <meshguard/runtime/CallSite.h>
#include <meshguard/runtime/DeviceMesh.h>
#include <meshguard/runtime/Placement.h>

namespace meshguard {

at::Tensor ones(
    std::vector<int64_t> size,
    const DeviceMesh& mesh,
    const Placements& placements,
    at::TensorOptions options = {});
at::Tensor zeros(
    std::vector<int64_t> size,
    const DeviceMesh& mesh,
    const Placements& placements,
    at::TensorOptions options = {});
at::Tensor empty(
    std::vector<int64_t> size,
    const DeviceMesh& mesh,
    const Placements& placements,
    at::TensorOptions options = {});
at::Tensor full(
    std::vector<int64_t> size,
    const c10::Scalar& fill_value,
    const DeviceMesh& mesh,
    const Placements& placements,
    at::TensorOptions options = {});

// One global random tensor: a seed drawn on rank 0 is broadcast (collective),
// every rank draws the global tensor from it and keeps its shard, so
// Replicate ranks agree and shards are disjoint parts of one draw. (Memory:
// the global tensor is materialised once per rank; PyTorch's offset-based
// RNG tracker avoids that, see docs/runtime/dtensor.md.) `where` names the
// caller's line in the collective-consistency mode (DebugCollectives.h).
at::Tensor rand(
    std::vector<int64_t> size,
    const DeviceMesh& mesh,
    const Placements& placements,
    at::TensorOptions options = {},
    CallSite where = CallSite::here());
at::Tensor randn(
    std::vector<int64_t> size,
    const DeviceMesh& mesh,
    const Placements& placements,
    at::TensorOptions options = {},
    CallSite where = CallSite::here());

} // namespace meshguard
