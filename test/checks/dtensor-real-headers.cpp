// REQUIRES: runtime
// RUN: %check_meshguard %s dtensor-collective-without-mesh,dtensor-process-group-misuse,dtensor-mixed-tensor-op %t -- \
// RUN:   -- -I%runtime_include %torch_cflags

// The same patterns against the real meshguard runtime and libtorch headers
// (slow: ~10 s to parse). Stub-based tests cover the details.

#include <torch/torch.h>
#include <meshguard/meshguard.h>

void plain() {
  at::Tensor t = torch::randn({4});
  meshguard::dist::broadcast_({t}, /*src=*/0);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: collective 'c10d.broadcast_.default' has no DeviceMesh
}

void toLocal(const meshguard::DeviceMesh &mesh, const at::Tensor &w) {
  at::Tensor dt = meshguard::distribute_tensor(w, mesh, {meshguard::Replicate{}});
  at::Tensor grad = meshguard::to_local(dt);
  meshguard::dist::all_reduce_({grad});
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: collective 'c10d.allreduce_.default' has no DeviceMesh
  // CHECK-FIXES: meshguard::guarded::all_reduce_({grad}, mesh);
}

void distributed(const meshguard::DeviceMesh &mesh) {
  at::Tensor dt = meshguard::distribute_tensor(torch::zeros({4}), mesh, {meshguard::Replicate{}});
  auto y = dt * 2 + dt;
  meshguard::dist::broadcast_({y}, 0);
}

void mixed(const meshguard::DeviceMesh &mesh) {
  at::Tensor dt = meshguard::distribute_tensor(torch::zeros({4}), mesh, {meshguard::Replicate{}});
  at::Tensor b = torch::ones({4});
  auto y = dt + b;
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: tensor op mixes the DTensor 'dt' with the plain tensor 'b'
  // CHECK-FIXES: auto y = dt + meshguard::from_local(b, *meshguard::mesh_of(dt), {meshguard::Replicate{}});
}

// One-element plain tensors are scalars; `*_like` of a DTensor is one.
void scalarsAndLikes(const meshguard::DeviceMesh &mesh) {
  at::Tensor dt = meshguard::distribute_tensor(torch::zeros({4}), mesh, {meshguard::Replicate{}});
  auto a = dt * at::scalar_tensor(2.0);
  auto b = dt + torch::tensor(3.0);
  auto c = dt - torch::ones({1});
  auto d = at::where(dt > 0, dt, at::zeros_like(dt));
  auto e = dt + torch::tensor({1.0, 2.0, 3.0, 4.0});
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: tensor op mixes the DTensor 'dt' with the plain tensor 'torch::tensor({1.0, 2.0, 3.0, 4.0})'
  // CHECK-FIXES: auto e = dt + meshguard::from_local(torch::tensor({1.0, 2.0, 3.0, 4.0}), *meshguard::mesh_of(dt), {meshguard::Replicate{}});
}

void rawGroup(c10d::ProcessGroup &pg, const meshguard::DeviceMesh &mesh) {
  at::Tensor dt = meshguard::distribute_tensor(torch::zeros({4}), mesh, {meshguard::Replicate{}});
  std::vector<at::Tensor> ts = {dt};
  pg.broadcast(ts);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: raw process-group collective 'c10d.broadcast_.default' is given a DTensor ('ts')
  // CHECK-FIXES: std::vector<at::Tensor> ts = {meshguard::to_local(dt)};
}
