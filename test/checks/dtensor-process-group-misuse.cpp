// RUN: %check_meshguard %s dtensor-process-group-misuse %t -- -- -I%stubs

// DTensors handed to raw c10d collectives (pytorch#117126, accelerate#3628):
// c10d works on local tensors. Fix: meshguard::to_local(x).

#include <meshguard/meshguard.h>
#include <torch/csrc/distributed/c10d/Ops.hpp>

using meshguard::DeviceMesh;
using meshguard::Replicate;

void namedVector(c10d::ProcessGroup &pg, const DeviceMesh &mesh) {
  at::Tensor param = meshguard::distribute_tensor(torch::randn({4}), mesh, {Replicate{}});
  std::vector<at::Tensor> ts = {param};
  pg.broadcast(ts);
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: raw process-group collective 'c10d.broadcast_.default' is given a DTensor ('ts'): c10d collectives work on local tensors; pass meshguard::to_local(...) of it [dtensor-process-group-misuse]
  // CHECK-NOTES: :[[@LINE-2]]:16: note: 'ts' holds a DTensor here
  // CHECK-NOTES: :[[@LINE-3]]:3: note: to keep the tensors distributed, call the mesh-aware collective 'meshguard::dist::broadcast_' instead
  // CHECK-FIXES: std::vector<at::Tensor> ts = {meshguard::to_local(param)};
}

void opsWithList(const c10::intrusive_ptr<c10d::ProcessGroup> &pg,
                 const DeviceMesh &mesh) {
  at::Tensor grad = meshguard::from_local(torch::zeros({4}), mesh, {Replicate{}});
  c10d::ops::allreduce(pg, {grad});
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: raw process-group collective 'c10d.allreduce_.default' is given a DTensor ('grad')
  // CHECK-NOTES: :[[@LINE-3]]:21: note: 'grad' is a DTensor: it comes from from_local() here
  // CHECK-NOTES: :[[@LINE-3]]:3: note: to keep the tensors distributed, call the mesh-aware collective 'meshguard::dist::all_reduce_' instead
  // CHECK-FIXES: c10d::ops::allreduce(pg, {meshguard::to_local(grad)});
}

void pushedBack(c10d::ProcessGroup &pg, const DeviceMesh &mesh) {
  std::vector<at::Tensor> ts;
  ts.push_back(meshguard::distribute_tensor(torch::randn({4}), mesh, {}));
  pg.allreduce(ts);
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: raw process-group collective 'c10d.allreduce_.default' is given a DTensor ('ts')
  // CHECK-NOTES: :[[@LINE-2]]:16: note: 'ts' holds a DTensor here
  // CHECK-NOTES: :[[@LINE-3]]:3: note: to keep the tensors distributed, call the mesh-aware collective 'meshguard::dist::all_reduce_' instead
}

void mayBeDTensor(c10d::ProcessGroup &pg, const DeviceMesh &mesh, bool c) {
  at::Tensor t = torch::randn({4});
  if (c)
    t = meshguard::distribute_tensor(t, mesh, {Replicate{}});
  std::vector<at::Tensor> ts = {t};
  pg.broadcast(ts);
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: raw process-group collective 'c10d.broadcast_.default' may be given a DTensor ('ts') on some path: c10d collectives work on local tensors
  // CHECK-NOTES: :[[@LINE-2]]:16: note: 'ts' may hold a DTensor here
  // CHECK-NOTES: :[[@LINE-4]]:33: note: 't' may be a DTensor on some path: no fix-it for it; call meshguard::to_local(...) on it where it is one
  // CHECK-NOTES: :[[@LINE-4]]:3: note: to keep the tensors distributed, call the mesh-aware collective 'meshguard::dist::broadcast_' instead
}

// Negative twins: local tensors, plain tensors, unknown tensors.

void localsAreFine(c10d::ProcessGroup &pg, const DeviceMesh &mesh) {
  at::Tensor param = meshguard::distribute_tensor(torch::randn({4}), mesh, {Replicate{}});
  std::vector<at::Tensor> ts = {meshguard::to_local(param)};
  pg.broadcast(ts);
}

void plainIsFine(const c10::intrusive_ptr<c10d::ProcessGroup> &pg) {
  at::Tensor t = torch::ones({4});
  c10d::ops::allreduce(pg, {t});
}

void unknownIsFine(c10d::ProcessGroup &pg, std::vector<at::Tensor> &ts) {
  pg.broadcast(ts);
}

// `is_dtensor(w) ? to_local(w) : w` is local on every path that can happen.
void localIfDistributed(c10d::ProcessGroup &pg, const DeviceMesh &mesh) {
  at::Tensor w = meshguard::distribute_tensor(torch::zeros({4}), mesh, {Replicate{}});
  at::Tensor lw = meshguard::is_dtensor(w) ? meshguard::to_local(w) : w;
  std::vector<at::Tensor> ts{lw};
  pg.allreduce(ts);
}
