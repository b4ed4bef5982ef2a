// Source: pytorch/pytorch#180346, "[DTensor] clip_grad_norm_ fails when
// per-parameter norms come from different DeviceMesh objects"
// (https://github.com/pytorch/pytorch/issues/180346): the total norm is
// computed per tensor and the per-tensor norms, still DTensors with their
// meshes, are stacked; with two meshes torch.stack fails.
// Translation: the total-norm computation of the report, for one tensor on
// the world mesh and one on a 2-D expert mesh (norm() as the square root of
// the sum of squares: the stubs have no norm()).
#include <meshguard/meshguard.h>

using namespace meshguard;

double total_norm(const at::Tensor &dense_full, const at::Tensor &expert_full) {
  DeviceMesh world = init_device_mesh("cpu", {4});
  DeviceMesh experts = init_device_mesh("cpu", {2, 2});
  at::Tensor dense = distribute_tensor(dense_full, world, {Shard{0}});
  at::Tensor expert =
      distribute_tensor(expert_full, experts, {Replicate{}, Shard{0}});
  at::Tensor dense_norm = dense.pow(2).sum().sqrt();
  at::Tensor expert_norm = expert.pow(2).sum().sqrt();
  at::Tensor norms = at::stack({dense_norm, expert_norm}); // EXPECT: dtensor-mixed-meshes
  return norms.pow(2).sum().sqrt().item<double>();
}
