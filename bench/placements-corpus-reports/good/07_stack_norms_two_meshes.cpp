// Source: pytorch/pytorch#180346
// (https://github.com/pytorch/pytorch/issues/180346); the fix of
// pytorch/pytorch#180501: materialise the DTensor norms with full_tensor()
// before stacking them when they come from different meshes.
#include <meshguard/meshguard.h>

using namespace meshguard;

double total_norm(const at::Tensor &dense_full, const at::Tensor &expert_full) {
  DeviceMesh world = init_device_mesh("cpu", {4});
  DeviceMesh experts = init_device_mesh("cpu", {2, 2});
  at::Tensor dense = distribute_tensor(dense_full, world, {Shard{0}});
  at::Tensor expert =
      distribute_tensor(expert_full, experts, {Replicate{}, Shard{0}});
  at::Tensor dense_norm = full_tensor(dense.pow(2).sum().sqrt());
  at::Tensor expert_norm = full_tensor(expert.pow(2).sum().sqrt());
  at::Tensor norms = at::stack({dense_norm, expert_norm});
  return norms.pow(2).sum().sqrt().item<double>();
}
