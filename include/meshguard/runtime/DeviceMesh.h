#pragma once

// DeviceMesh: an n-d array of global ranks with one c10d process group per
// mesh dimension (the group of ranks that differ only in that coordinate).

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <c10/core/Device.h>
#include <c10/util/intrusive_ptr.h>
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>
#include <torch/csrc/distributed/c10d/Store.hpp>

namespace meshguard {

namespace detail {
struct MeshState;
} // namespace detail

struct MeshOptions {
  // Bounds every store operation and every collective on the mesh's groups;
  // a dead peer turns into an error after at most this long, never a hang.
  // 0 means: MESHGUARD_TIMEOUT_S from the environment, else 300 s.
  std::chrono::milliseconds timeout{0};
  // Rendezvous through this store instead of the torchrun environment.
  // rank and world_size must then be given too.
  c10::intrusive_ptr<c10d::Store> store;
  int64_t rank = -1;
  int64_t world_size = -1;
  // Address Gloo binds to; empty: MASTER_ADDR when it is a loopback
  // address, else the host's default interface.
  std::string gloo_hostname;
};

class DeviceMesh {
 public:
  // A mesh over process groups the caller already has: dim_groups[d] must be
  // the group of this rank along mesh dimension d. `mesh` holds the global
  // ranks in row-major order. A "cuda" mesh uses the current CUDA device.
  DeviceMesh(
      std::string device_type,
      std::vector<int64_t> shape,
      std::vector<int64_t> mesh,
      std::vector<c10::intrusive_ptr<c10d::ProcessGroup>> dim_groups,
      int64_t global_rank);

  int64_t ndim() const;
  const std::vector<int64_t>& shape() const;
  int64_t size(int64_t dim) const;
  // Number of ranks in the mesh.
  int64_t size() const;
  // This process's global rank.
  int64_t get_rank() const;
  // This rank's index along every mesh dimension.
  const std::vector<int64_t>& coordinate() const;
  // This rank's index along one mesh dimension (its rank in get_group(dim)).
  int64_t get_local_rank(int64_t dim) const;
  const std::string& device_type() const;
  // Where this rank's tensors on the mesh live: cpu, or the GPU the rank was
  // bound to (cuda:LOCAL_RANK for init_device_mesh("cuda")).
  c10::Device device() const;
  // Global ranks, row-major.
  const std::vector<int64_t>& mesh() const;
  // Global ranks of this rank's group along `dim`, in group-rank order.
  std::vector<int64_t> group_ranks(int64_t dim) const;
  const c10::intrusive_ptr<c10d::ProcessGroup>& get_group(int64_t dim) const;
  std::chrono::milliseconds timeout() const;

  // Same device type, shape and rank layout, as in PyTorch.
  bool operator==(const DeviceMesh& other) const;
  bool operator!=(const DeviceMesh& other) const {
    return !(*this == other);
  }
  // "DeviceMesh('cpu', [[0, 1], [2, 3]])"
  std::string to_string() const;

  // Internal: meshes built by init_device_mesh.
  explicit DeviceMesh(std::shared_ptr<const detail::MeshState> state);

 private:
  std::shared_ptr<const detail::MeshState> state_;
};

std::ostream& operator<<(std::ostream& os, const DeviceMesh& mesh);

// Builds a mesh of `shape` over all ranks: "cpu" makes Gloo groups, "cuda"
// NCCL groups (when libtorch has NCCL and a GPU is visible; otherwise a
// MeshInitError says which is missing). Without options.store the rendezvous
// uses the torchrun variables RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT
// (and LOCAL_RANK for "cuda", whose GPU becomes the current device); a
// missing one is an error that names it. With options.store, "cuda" binds
// LOCAL_RANK's GPU when that variable is set, else uses the current device.
// Every rank must call it, in the same order as its other meshes.
DeviceMesh init_device_mesh(
    const std::string& device_type,
    std::vector<int64_t> shape,
    const MeshOptions& options = {});

} // namespace meshguard
