// RUN: %check_meshguard %s dtensor-collective-without-mesh %t -- -- -I%stubs

// Plain tensors from factories and to_local() reaching a mesh-inferred
// collective, each with a negative twin that must stay silent.

#include <meshguard/meshguard.h>

using meshguard::DeviceMesh;
using meshguard::Replicate;

void factoryInline() {
  meshguard::dist::broadcast_({torch::randn({4})}, /*src=*/0);
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: collective 'c10d.broadcast_.default' has no DeviceMesh: every tensor argument is a plain at::Tensor, so the runtime will throw 'found no DeviceMesh from dtensor args for c10d.broadcast_.default' [dtensor-collective-without-mesh]
  // CHECK-NOTES: :[[@LINE-2]]:32: note: 'torch::randn({4})' is a plain tensor: it comes from torch::randn() here
  // CHECK-NOTES: :[[@LINE-3]]:3: note: no meshguard::DeviceMesh is in scope: pass one explicitly with 'meshguard::guarded::broadcast_(tensors, mesh, ...)', or make one tensor argument a DTensor (meshguard::distribute_tensor, meshguard::from_local)
}

void factoryVariable() {
  at::Tensor t = at::zeros({4});
  meshguard::dist::broadcast_({t}, 0);
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: collective 'c10d.broadcast_.default' has no DeviceMesh
  // CHECK-NOTES: :[[@LINE-3]]:18: note: 't' is a plain tensor: it comes from at::zeros() here
  // CHECK-NOTES: :[[@LINE-3]]:3: note: no meshguard::DeviceMesh is in scope
}

void toLocal(const at::Tensor &w, const DeviceMesh &mesh) {
  at::Tensor dt = meshguard::distribute_tensor(w, mesh, {Replicate{}});
  at::Tensor grad = meshguard::to_local(dt);
  meshguard::dist::all_reduce_({grad}, meshguard::ReduceOp::SUM);
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: collective 'c10d.allreduce_.default' has no DeviceMesh: every tensor argument is a plain at::Tensor, so the runtime will throw 'found no DeviceMesh from dtensor args for c10d.allreduce_.default'
  // CHECK-NOTES: :[[@LINE-3]]:21: note: 'grad' is a plain tensor: it comes from to_local() here
  // CHECK-FIXES: meshguard::guarded::all_reduce_({grad}, mesh, meshguard::ReduceOp::SUM);
}

void fullTensorThenGather(const at::Tensor &w, const DeviceMesh &mesh) {
  at::Tensor dt = meshguard::distribute_tensor(w, mesh, {meshguard::Shard{0}});
  auto full = meshguard::full_tensor(dt);
  auto parts = meshguard::dist::all_gather({full});
  // CHECK-NOTES: :[[@LINE-1]]:16: warning: collective 'c10d.allgather_.default' has no DeviceMesh
  // CHECK-NOTES: :[[@LINE-3]]:15: note: 'full' is a plain tensor: it comes from full_tensor() here
  // CHECK-FIXES: auto parts = meshguard::guarded::all_gather({full}, mesh);
}

void twoPlain() {
  at::Tensor a = torch::ones({2});
  at::Tensor b = torch::tensor({1.0, 2.0});
  meshguard::dist::reduce_scatter({a, b});
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: collective 'c10d.reduce_scatter_.default' has no DeviceMesh
  // CHECK-NOTES: :[[@LINE-4]]:18: note: 'a' is a plain tensor: it comes from torch::ones() here
  // CHECK-NOTES: :[[@LINE-4]]:18: note: 'b' is a plain tensor: it comes from torch::tensor() here
  // CHECK-NOTES: :[[@LINE-4]]:3: note: no meshguard::DeviceMesh is in scope
}

// Negative twins: one argument is a DTensor, or nothing is known.

void okDistributed(const DeviceMesh &mesh) {
  at::Tensor dt = meshguard::distribute_tensor(torch::randn({4}), mesh, {Replicate{}});
  meshguard::dist::broadcast_({dt}, 0);
}

void okFromLocal(const DeviceMesh &mesh) {
  at::Tensor local = torch::randn({4});
  at::Tensor dt = meshguard::from_local(local, mesh, {Replicate{}});
  meshguard::dist::all_reduce_({dt}, meshguard::ReduceOp::SUM);
}

void okRedistributed(const DeviceMesh &mesh, const at::Tensor &w) {
  at::Tensor dt = meshguard::distribute_tensor(w, mesh, {meshguard::Shard{0}});
  at::Tensor r = meshguard::redistribute(dt, {Replicate{}});
  meshguard::dist::broadcast_({r}, 0);
}

void okMixedList(const DeviceMesh &mesh) {
  at::Tensor plain = torch::randn({4});
  at::Tensor dt = meshguard::distribute_tensor(plain, mesh, {Replicate{}});
  meshguard::dist::all_gather({plain, dt});
}

void okParameter(at::Tensor t) { meshguard::dist::broadcast_({t}, 0); }

at::Tensor makeSomething();
void okUnmodelledCall() {
  at::Tensor t = makeSomething();
  meshguard::dist::broadcast_({t}, 0);
}

void okReassignedToDTensor(const DeviceMesh &mesh) {
  at::Tensor t = torch::randn({4});
  t = meshguard::distribute_tensor(t, mesh, {Replicate{}});
  meshguard::dist::broadcast_({t}, 0);
}
