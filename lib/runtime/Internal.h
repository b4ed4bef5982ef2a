#pragma once

// Helpers shared by the runtime's sources; not installed.

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include <ATen/Tensor.h>

#include <meshguard/runtime/DTensorImpl.h>
#include <meshguard/runtime/DeviceMesh.h>
#include <meshguard/runtime/Placement.h>

namespace meshguard {
namespace detail {

// An environment switch: set, not empty and not "0" (MESHGUARD_DEBUG_*,
// MESHGUARD_AUDIT).
bool env_flag(const char* name);

struct MeshState {
  std::string device_type;
  std::vector<int64_t> shape;
  std::vector<int64_t> mesh; // global ranks, row-major
  int64_t global_rank = 0;
  std::vector<int64_t> coordinate;
  std::vector<c10::intrusive_ptr<c10d::ProcessGroup>> groups;
  std::chrono::milliseconds timeout{0};
  int64_t device_index = -1; // the rank's GPU on a "cuda" mesh
};

// torch.chunk: chunks of ceil(n / k), trailing ones smaller or empty.
int64_t chunk_size(int64_t n, int64_t k);
int64_t chunk_offset(int64_t n, int64_t k, int64_t index);
int64_t chunk_length(int64_t n, int64_t k, int64_t index);
// `t`'s chunk `index` of `k` along `dim` (a view; possibly empty).
at::Tensor chunk_of(const at::Tensor& t, int64_t dim, int64_t k, int64_t index);

// The local shape of a tensor of `global_shape` on the rank at `coordinate`.
std::vector<int64_t> local_shape(
    const std::vector<int64_t>& global_shape,
    const Placements& placements,
    const DeviceMesh& mesh,
    const std::vector<int64_t>& coordinate);

// PyTorch's normalisation: Shard(d) with d < 0 becomes Shard(d + tensor_dim)
// (left alone when still negative, for validate_placements to report).
Placements normalize_placements(
    const Placements& placements,
    int64_t tensor_dim);

// Throws PlacementError for a placement count or shard dim that does not fit.
void validate_placements(
    const Placements& placements,
    const DeviceMesh& mesh,
    int64_t tensor_dim);

// Throws PlacementError when `local` is not on the mesh's device (the type,
// and on a CUDA mesh the rank's GPU).
void check_device(
    const at::Tensor& local,
    const DeviceMesh& mesh,
    const char* what);

// All-gathers `local` (this rank's chunk along `dim` of a tensor whose size
// there is `full_size`) over mesh dim `mesh_dim`, undoing torch.chunk.
at::Tensor gather_shards(
    const at::Tensor& local,
    const DeviceMesh& mesh,
    int64_t mesh_dim,
    int64_t dim,
    int64_t full_size);

// The local tensor of `spec`'s value under `target` (collective; any
// transition, including to Partial: the propagator's internal use).
at::Tensor redistribute_local(
    const at::Tensor& local,
    const DTensorSpec& spec,
    const Placements& target);

// Reduces `local` over mesh dim `mesh_dim` (a copy; the input is untouched).
at::Tensor reduce_over(
    const at::Tensor& local,
    const DeviceMesh& mesh,
    int64_t mesh_dim,
    ReduceOp op);

// This rank's torch.chunk block along tensor dim `dim` of `local` reduced
// over mesh dim `mesh_dim`: one reduce-scatter (all-reduce, then the block,
// where the backend has none).
at::Tensor scatter_reduced(
    const at::Tensor& local,
    const DeviceMesh& mesh,
    int64_t mesh_dim,
    int64_t dim,
    ReduceOp op);

// The share of a replicated value that a rank keeps in a Partial(op):
// the value on coordinate 0 and the identity elsewhere (SUM, PRODUCT), or
// the value everywhere (AVG, MIN, MAX).
at::Tensor
partition_value(const at::Tensor& value, ReduceOp op, int64_t coordinate);

// Placements as ints, to travel through an autograd context: Shard(d) -> d,
// Replicate -> -1, Partial(op) -> -10 - op.
std::vector<int64_t> encode_placements(const Placements& ps);
Placements decode_placements(const std::vector<int64_t>& codes);

// Every rank's `values` (same length everywhere), in the mesh's row-major
// rank order: an all-gather over the whole mesh, one mesh dim at a time.
std::vector<at::Tensor> all_gather_mesh(
    const at::Tensor& values,
    const DeviceMesh& mesh);

void record_provenance(
    const at::Tensor& plain,
    const char* what,
    const char* file,
    int line);

std::string describe_arg(const at::Tensor& t);

// The collectives once the mesh is known (dist:: infers it, the guard has it).
void broadcast_on(
    const DeviceMesh& mesh,
    const std::vector<at::Tensor>& tensors,
    int64_t src,
    int64_t mesh_dim);
void all_reduce_on(
    const DeviceMesh& mesh,
    const std::vector<at::Tensor>& tensors,
    ReduceOp op,
    int64_t mesh_dim);
std::vector<at::Tensor> all_gather_on(
    const DeviceMesh& mesh,
    const std::vector<at::Tensor>& tensors,
    int64_t mesh_dim);
std::vector<at::Tensor> reduce_scatter_on(
    const DeviceMesh& mesh,
    const std::vector<at::Tensor>& tensors,
    ReduceOp op,
    int64_t scatter_dim,
    int64_t mesh_dim);

} // namespace detail
} // namespace meshguard
