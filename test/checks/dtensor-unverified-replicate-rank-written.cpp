// RUN: %check_meshguard %s dtensor-unverified-replicate %t -- -- -I%stubs

// A tensor whose content was written under a rank-dependent condition
// (in-place ops, an assignment, 'torch::load' into it) then called a replica
// by from_local without run_check: only the ranks that took the branch hold
// what it wrote (pytorch/pytorch#131991: a weight initialised on rank 0
// only; #105840: a checkpoint loaded on rank 0 only). A broadcast after the
// write makes it uniform again.

#include <meshguard/meshguard.h>
#include <string>

using meshguard::DeviceMesh;
using meshguard::Replicate;
using meshguard::Shard;

at::Tensor init_on_rank0(const DeviceMesh &mesh, int64_t n) {
  at::Tensor w = torch::zeros({n, n});
  if (mesh.get_rank() == 0)
    w.copy_(torch::randn({n, n}));
  return meshguard::from_local(w, mesh, {Replicate{}});
  // CHECK-NOTES: :[[@LINE-1]]:10: warning: 'from_local()' calls this rank's tensor a replica (every placement Replicate) without run_check, but the tensor differs per rank
  // CHECK-NOTES: :[[@LINE-2]]:32: note: this local tensor differs per rank
  // CHECK-NOTES: :[[@LINE-5]]:7: note: the rank-dependent value comes from 'mesh.get_rank()' here
  // CHECK-FIXES: return meshguard::from_local(w, mesh, {Replicate{}}, /*run_check=*/true);
}

at::Tensor fill_off_rank0(const DeviceMesh &mesh, const at::Tensor &x) {
  at::Tensor scale = torch::zeros({1});
  if (mesh.get_rank() != 0) {
    scale.fill_(2.0);
    scale.add_(x);
  }
  return meshguard::from_local(scale, mesh, {Replicate{}}, false);
  // CHECK-NOTES: :[[@LINE-1]]:10: warning: 'from_local()' calls this rank's tensor a replica
  // CHECK-NOTES: :[[@LINE-2]]:32: note: this local tensor differs per rank
  // CHECK-NOTES: :[[@LINE-7]]:7: note: the rank-dependent value comes from 'mesh.get_rank()' here
  // CHECK-FIXES: return meshguard::from_local(scale, mesh, {Replicate{}}, true);
}

at::Tensor load_on_rank0(const DeviceMesh &mesh, const std::string &path) {
  at::Tensor weight = torch::randn({4, 4});
  if (mesh.get_rank() == 0)
    torch::load(weight, path);
  return meshguard::from_local(weight, mesh, {Replicate{}});
  // CHECK-NOTES: :[[@LINE-1]]:10: warning: 'from_local()' calls this rank's tensor a replica
  // CHECK-NOTES: :[[@LINE-2]]:32: note: this local tensor differs per rank
  // CHECK-NOTES: :[[@LINE-5]]:7: note: the rank-dependent value comes from 'mesh.get_rank()' here
  // CHECK-FIXES: return meshguard::from_local(weight, mesh, {Replicate{}}, /*run_check=*/true);
}

at::Tensor assign_on_rank0(const DeviceMesh &mesh, const at::Tensor &ckpt) {
  at::Tensor weight = torch::zeros({4, 4});
  if (mesh.get_rank() == 0)
    weight = ckpt;
  return meshguard::from_local(weight, mesh, {Replicate{}});
  // CHECK-NOTES: :[[@LINE-1]]:10: warning: 'from_local()' calls this rank's tensor a replica
  // CHECK-NOTES: :[[@LINE-2]]:32: note: this local tensor differs per rank
  // CHECK-NOTES: :[[@LINE-5]]:7: note: the rank-dependent value comes from 'mesh.get_rank()' here
  // CHECK-FIXES: return meshguard::from_local(weight, mesh, {Replicate{}}, /*run_check=*/true);
}

// Negative twins: silent.

// The fix from #131991: a broadcast from rank 0 after the write.
at::Tensor init_then_broadcast(const DeviceMesh &mesh, int64_t n) {
  at::Tensor w = torch::zeros({n, n});
  if (mesh.get_rank() == 0)
    w.copy_(torch::randn({n, n}));
  meshguard::guarded::broadcast_({w}, mesh, 0);
  return meshguard::from_local(w, mesh, {Replicate{}});
}

// The same through the mesh-inferred collective.
at::Tensor load_then_broadcast(const DeviceMesh &mesh, const std::string &path) {
  at::Tensor weight = torch::randn({4, 4});
  if (mesh.get_rank() == 0)
    torch::load(weight, path);
  meshguard::dist::broadcast_({weight}, 0);
  return meshguard::from_local(weight, mesh, {Replicate{}});
}

// Written under a condition every rank agrees on.
at::Tensor init_on_first_step(const DeviceMesh &mesh, int64_t step) {
  at::Tensor w = torch::zeros({4, 4});
  if (step == 0)
    w.fill_(1.0);
  return meshguard::from_local(w, mesh, {Replicate{}});
}

// The claim verified at run time.
at::Tensor init_checked(const DeviceMesh &mesh) {
  at::Tensor w = torch::zeros({4, 4});
  if (mesh.get_rank() == 0)
    w.copy_(torch::randn({4, 4}));
  return meshguard::from_local(w, mesh, {Replicate{}}, /*run_check=*/true);
}

// Each rank's own rows called a shard: that is what a shard is.
at::Tensor rows_on_rank0(const DeviceMesh &mesh) {
  at::Tensor w = torch::zeros({4, 4});
  if (mesh.get_rank() == 0)
    w.copy_(torch::randn({4, 4}));
  return meshguard::from_local(w, mesh, {Shard{0}});
}

// Only a flag changes under the rank: the content does not.
at::Tensor grad_on_rank0(const DeviceMesh &mesh) {
  at::Tensor w = torch::zeros({4, 4});
  if (mesh.get_rank() == 0)
    w.requires_grad_(true);
  return meshguard::from_local(w, mesh, {Replicate{}});
}

// A process group's broadcast of a list that holds the tensor.
at::Tensor load_then_group_broadcast(const DeviceMesh &mesh,
                                     const std::string &path) {
  at::Tensor weight = torch::randn({4, 4});
  if (mesh.get_rank() == 0)
    torch::load(weight, path);
  std::vector<at::Tensor> tensors = {weight};
  mesh.get_group(0)->broadcast(tensors)->wait();
  return meshguard::from_local(weight, mesh, {Replicate{}});
}
