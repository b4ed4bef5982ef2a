#pragma once

// CollectiveGuard: the seed's fix (b). It pins a collective to a known mesh:
// arguments on another mesh are an error, plain tensors are promoted to
// Replicate DTensors on the guard's mesh (policy promote) or rejected with a
// clear error (policy strict). The guarded:: free functions are what
// meshguard's fix-its rewrite a collective into; the mesh is always their
// second parameter.

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include <ATen/Tensor.h>

#include <meshguard/runtime/CallSite.h>
#include <meshguard/runtime/DeviceMesh.h>
#include <meshguard/runtime/Placement.h>

namespace meshguard {

enum class GuardPolicy { promote, strict };

class CollectiveGuard {
 public:
  explicit CollectiveGuard(
      DeviceMesh mesh,
      GuardPolicy policy = GuardPolicy::promote);

  const DeviceMesh& mesh() const {
    return mesh_;
  }
  GuardPolicy policy() const {
    return policy_;
  }

  // The mesh the arguments carry (nullopt: none is a DTensor). Throws
  // MeshMismatchError when one is on a mesh other than the guard's.
  std::optional<DeviceMesh> require_mesh(
      const std::vector<at::Tensor>& args) const;

  // The arguments with every plain tensor promoted to a Replicate DTensor
  // on the guard's mesh (sharing storage, so in-place collectives reach the
  // caller's tensor). Strict policy: NotDistributedError instead. With the
  // replica check on, promotion verifies the replicas agree (collective).
  std::vector<at::Tensor> sanitize_args(
      const std::vector<at::Tensor>& args) const;

  // Runs any collective `fn(sanitized_args, mesh)` on the sanitized
  // arguments (the seed's call_collective), e.g. one of the dist:: ops.
  template <typename Fn>
  decltype(auto) call_collective(const std::vector<at::Tensor>& args, Fn&& fn)
      const {
    return std::forward<Fn>(fn)(sanitize_args(args), mesh_);
  }

  // `where`: the caller's line, for the collective-consistency mode.
  void broadcast_(
      const std::vector<at::Tensor>& tensors,
      int64_t src,
      int64_t mesh_dim = 0,
      CallSite where = CallSite::here()) const;
  void all_reduce_(
      const std::vector<at::Tensor>& tensors,
      ReduceOp op = ReduceOp::SUM,
      int64_t mesh_dim = 0,
      CallSite where = CallSite::here()) const;
  std::vector<at::Tensor> all_gather(
      const std::vector<at::Tensor>& tensors,
      int64_t mesh_dim = 0,
      CallSite where = CallSite::here()) const;
  std::vector<at::Tensor> reduce_scatter(
      const std::vector<at::Tensor>& tensors,
      ReduceOp op = ReduceOp::SUM,
      int64_t scatter_dim = 0,
      int64_t mesh_dim = 0,
      CallSite where = CallSite::here()) const;

 private:
  void check_args(const std::vector<at::Tensor>& args, const char* op_name)
      const;

  DeviceMesh mesh_;
  GuardPolicy policy_;
};

namespace guarded {

// CollectiveGuard(mesh, GuardPolicy::promote).<op>(...)
void broadcast_(
    const std::vector<at::Tensor>& tensors,
    const DeviceMesh& mesh,
    int64_t src,
    int64_t mesh_dim = 0,
    CallSite where = CallSite::here());
void all_reduce_(
    const std::vector<at::Tensor>& tensors,
    const DeviceMesh& mesh,
    ReduceOp op = ReduceOp::SUM,
    int64_t mesh_dim = 0,
    CallSite where = CallSite::here());
std::vector<at::Tensor> all_gather(
    const std::vector<at::Tensor>& tensors,
    const DeviceMesh& mesh,
    int64_t mesh_dim = 0,
    CallSite where = CallSite::here());
std::vector<at::Tensor> reduce_scatter(
    const std::vector<at::Tensor>& tensors,
    const DeviceMesh& mesh,
    ReduceOp op = ReduceOp::SUM,
    int64_t scatter_dim = 0,
    int64_t mesh_dim = 0,
    CallSite where = CallSite::here());

} // namespace guarded
} // namespace meshguard
