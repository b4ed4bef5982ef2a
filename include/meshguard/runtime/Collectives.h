#pragma once

// Mesh-inferred collectives, mirroring PyTorch's c10d ops on DTensors: the
// mesh comes from the arguments (as DTensor dispatch finds it). With no
// DTensor among them they throw MeshNotFoundError, whose message starts with
// PyTorch's "found no DeviceMesh from dtensor args for c10d.<op>.default".
//
// Every collective works on one mesh dimension (`mesh_dim`): the group of
// ranks that differ only in that coordinate. Per placement on that dimension:
//   broadcast_     Replicate: replicas become src's (src is the group rank).
//                  Shard/Partial: error (it would silently change the value).
//   all_reduce_    Partial(op') or Replicate: locals reduced with `op`, the
//                  DTensor becomes Replicate in place. Shard: error.
//   all_gather     Shard(d) -> Replicate (uneven shards allowed); Replicate
//                  unchanged; Partial: error.
//   reduce_scatter Partial(op) -> Shard(scatter_dim); others: error.
// Plain tensors mixed with DTensors are an error (promote them first, or use
// the guarded:: forms, which do).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <ATen/Tensor.h>

#include <meshguard/runtime/CallSite.h>
#include <meshguard/runtime/DeviceMesh.h>
#include <meshguard/runtime/Placement.h>

namespace meshguard {

// The mesh carried by `args` (nullopt when none is a DTensor); throws
// MeshMismatchError naming both meshes when two differ. `op_name` is used in
// messages, e.g. "c10d.broadcast_.default".
std::optional<DeviceMesh> find_mesh(
    const std::vector<at::Tensor>& args,
    std::string_view op_name);

// The MeshNotFoundError message for `args`.
std::string explain_missing_mesh(
    const std::vector<at::Tensor>& args,
    std::string_view op_name);

namespace dist {

// `where` (never written by callers) is the caller's line, for the
// collective-consistency mode (DebugCollectives.h).
void broadcast_(
    const std::vector<at::Tensor>& tensors,
    int64_t src,
    int64_t mesh_dim = 0,
    CallSite where = CallSite::here());

void all_reduce_(
    const std::vector<at::Tensor>& tensors,
    ReduceOp op = ReduceOp::SUM,
    int64_t mesh_dim = 0,
    CallSite where = CallSite::here());

std::vector<at::Tensor> all_gather(
    const std::vector<at::Tensor>& tensors,
    int64_t mesh_dim = 0,
    CallSite where = CallSite::here());

std::vector<at::Tensor> reduce_scatter(
    const std::vector<at::Tensor>& tensors,
    ReduceOp op = ReduceOp::SUM,
    int64_t scatter_dim = 0,
    int64_t mesh_dim = 0,
    CallSite where = CallSite::here());

} // namespace dist
} // namespace meshguard
