// RUN: %check_meshguard %s dtensor-mixed-meshes %t -- -- -I%stubs

// DTensors on different meshes in one op or one list: the runtime throws
// 'DTensor operands live on different meshes' when the job gets there.

#include <meshguard/meshguard.h>
#include <meshguard/runtime/Parallelize.h>

using meshguard::Replicate;
using meshguard::Shard;

// A dense layer on the 1-D world mesh, an expert on a 2-D mesh.
at::Tensor denseAndExpert(const at::Tensor &a, const at::Tensor &b) {
  auto dense = meshguard::init_device_mesh("cpu", {4});
  auto expert = meshguard::init_device_mesh("cpu", {2, 2});
  at::Tensor w = meshguard::distribute_tensor(a, dense, {Shard{0}});
  at::Tensor e = meshguard::distribute_tensor(b, expert, {Replicate{}, Shard{0}});
  return w + e;
  // CHECK-NOTES: :[[@LINE-1]]:12: warning: tensor op 'aten::add' combines DTensors on different meshes: 'w' on mesh [4] and 'e' on mesh [2, 2]; the runtime throws 'DTensor operands live on different meshes' when the job gets here [dtensor-mixed-meshes]
  // CHECK-NOTES: :[[@LINE-4]]:18: note: 'w' is put on mesh [4] here
  // CHECK-NOTES: :[[@LINE-4]]:18: note: 'e' is put on mesh [2, 2] here
}

// Clipping the gradients of both together.
double clipBoth(const at::Tensor &a, const at::Tensor &b) {
  auto dense = meshguard::init_device_mesh("cpu", {4});
  auto expert = meshguard::init_device_mesh("cpu", {2, 2});
  at::Tensor w = meshguard::distribute_tensor(a, dense, {Shard{0}});
  at::Tensor e = meshguard::distribute_tensor(b, expert, {Shard{0}, Shard{1}});
  return torch::nn::utils::clip_grad_norm_({w, e}, 1.0);
  // CHECK-NOTES: :[[@LINE-1]]:10: warning: 'torch::nn::utils::clip_grad_norm_' is given a list that holds DTensors on different meshes: 'w' on mesh [4] and 'e' on mesh [2, 2]
  // CHECK-NOTES: :[[@LINE-4]]:18: note: 'w' is put on mesh [4] here
  // CHECK-NOTES: :[[@LINE-4]]:18: note: 'e' is put on mesh [2, 2] here
}

// Placements for different numbers of mesh dims: different meshes, whatever
// the meshes are.
at::Tensor byPlacementCount(const meshguard::DeviceMesh &m1,
                            const meshguard::DeviceMesh &m2,
                            const at::Tensor &a) {
  at::Tensor x = meshguard::from_local(a, m1, {Replicate{}});
  at::Tensor y = meshguard::from_local(a, m2, {Replicate{}, Replicate{}});
  return at::cat({x, y});
  // CHECK-NOTES: :[[@LINE-1]]:10: warning: 'at::cat' is given a list that holds DTensors on different meshes: 'x' on a 1-D mesh and 'y' on a 2-D mesh
  // CHECK-NOTES: :[[@LINE-4]]:18: note: 'x' is put on a 1-D mesh here
  // CHECK-NOTES: :[[@LINE-4]]:18: note: 'y' is put on a 2-D mesh here
}

// Twins: one mesh; two meshes of the same shape (equal, as in PyTorch); two
// parameters that may be the same mesh; a redistributed tensor stays on
// its mesh.
at::Tensor oneMesh(const at::Tensor &a) {
  auto mesh = meshguard::init_device_mesh("cpu", {4});
  at::Tensor w = meshguard::distribute_tensor(a, mesh, {Shard{0}});
  at::Tensor r = meshguard::redistribute(w, {Replicate{}});
  return w + r;
}

at::Tensor sameShape(const at::Tensor &a) {
  auto m1 = meshguard::init_device_mesh("cpu", {4});
  auto m2 = meshguard::init_device_mesh("cpu", {4});
  return meshguard::distribute_tensor(a, m1, {Shard{0}}) +
         meshguard::distribute_tensor(a, m2, {Replicate{}});
}

at::Tensor mayBeTheSame(const meshguard::DeviceMesh &m1,
                        const meshguard::DeviceMesh &m2, const at::Tensor &a) {
  return meshguard::from_local(a, m1, {Shard{0}}) *
         meshguard::from_local(a, m2, {Replicate{}});
}

// Modules sharded on two meshes (dense layers with FSDP on a 1-D mesh,
// experts on a 2-D one), their parameters clipped together.
double clipDenseAndExperts() {
  auto dp = meshguard::init_device_mesh("cpu", {4});
  auto grid = meshguard::init_device_mesh("cpu", {2, 2});
  torch::nn::Linear dense(4, 4), expert(4, 4);
  meshguard::fully_shard(*dense, dp);
  meshguard::fully_shard(*expert, grid, 0);
  double a = torch::nn::utils::clip_grad_norm_({dense->weight, dense->bias}, 1.0);
  return a + torch::nn::utils::clip_grad_norm_({dense->weight, expert->weight}, 1.0);
  // CHECK-NOTES: :[[@LINE-1]]:14: warning: 'torch::nn::utils::clip_grad_norm_' is given a list that holds DTensors on different meshes: 'dense->weight' on mesh [4] and 'expert->weight' on mesh [2, 2]
  // CHECK-NOTES: :[[@LINE-5]]:3: note: 'dense->weight' is put on mesh [4] here
  // CHECK-NOTES: :[[@LINE-5]]:3: note: 'expert->weight' is put on mesh [2, 2] here
}
