#pragma once

// The one place that knows what moved between libtorch 1.13 and 2.x:
// in 1.13 ProcessGroupGloo/NCCL are ProcessGroups; in 2.x they are
// c10d::Backends wrapped by a ProcessGroup. Everything else in the runtime
// talks to c10d::ProcessGroup through these functions only.

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include <ATen/Tensor.h>
#include <c10/util/intrusive_ptr.h>
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>
#include <torch/csrc/distributed/c10d/Store.hpp>

#include <meshguard/runtime/Placement.h>

namespace meshguard {
namespace compat {

using Group = c10::intrusive_ptr<c10d::ProcessGroup>;

bool have_nccl();

c10::intrusive_ptr<c10d::Store> make_tcp_store(
    const std::string& host,
    uint16_t port,
    bool is_server,
    int64_t world_size,
    std::chrono::milliseconds timeout);

c10::intrusive_ptr<c10d::Store> make_prefix_store(
    const std::string& prefix,
    const c10::intrusive_ptr<c10d::Store>& store);

void set_store_timeout(
    const c10::intrusive_ptr<c10d::Store>& store,
    std::chrono::milliseconds timeout);

Group make_gloo_group(
    const c10::intrusive_ptr<c10d::Store>& store,
    int64_t rank,
    int64_t size,
    std::chrono::milliseconds timeout,
    const std::string& hostname);

// Throws a clear error when libtorch was built without NCCL. `timeout`
// bounds every collective (NCCL's watchdog enforces it).
Group make_nccl_group(
    const c10::intrusive_ptr<c10d::Store>& store,
    int64_t rank,
    int64_t size,
    std::chrono::milliseconds timeout);

// GPUs this process can see (0 without CUDA in libtorch).
int64_t cuda_device_count();

// Throws MeshInitError, naming `what`, unless a CUDA mesh is possible here:
// libtorch has NCCL and at least one GPU is visible.
void require_cuda(const std::string& what);

// Makes `local_rank`'s GPU the current device (NCCL groups and new CUDA
// tensors use it) and returns its index. Throws MeshInitError when that GPU
// does not exist.
int64_t bind_local_device(int64_t local_rank);

// The current CUDA device's index; call require_cuda first.
int64_t current_cuda_device();

// Collectives on plain local tensors, bounded by `timeout`. On CPU, with
// MESHGUARD_CHECK_SIZES=1, they first check that every rank passes tensors
// of the same sizes (SizeCheck.h): a CollectiveMismatchError instead of a
// Gloo abort. On CPU
// they block until done; on CUDA the current stream waits for NCCL's, as in
// PyTorch, so later work on it sees the result.
void broadcast(
    const Group& pg,
    std::vector<at::Tensor>& tensors,
    int64_t root,
    std::chrono::milliseconds timeout);
// AVG is done as SUM then a division, since Gloo has no AVG.
void all_reduce(
    const Group& pg,
    std::vector<at::Tensor>& tensors,
    ReduceOp op,
    std::chrono::milliseconds timeout);
void barrier(const Group& pg, std::chrono::milliseconds timeout);
// outputs[i] receives rank i's `input`; all must have the same shape.
void all_gather(
    const Group& pg,
    std::vector<at::Tensor>& outputs,
    const at::Tensor& input,
    std::chrono::milliseconds timeout);
// all_gather without the size check (the check's own exchange).
void all_gather_unchecked(
    const Group& pg,
    std::vector<at::Tensor>& outputs,
    const at::Tensor& input,
    std::chrono::milliseconds timeout);

// Reduces `input` (dim 0: one equal block per rank, in rank order) over the
// group into this rank's block, `output`. False when libtorch's backends
// have none (libtorch 1.13's Gloo): nothing was sent, the caller all-reduces.
bool reduce_scatter(
    const Group& pg,
    at::Tensor& output,
    at::Tensor& input,
    ReduceOp op,
    std::chrono::milliseconds timeout);

} // namespace compat
} // namespace meshguard
