// Source: NVIDIA/Megatron-LM#6489
// (https://github.com/NVIDIA/Megatron-LM/pull/6489). The fix of the PR:
// statistics computed from each gradient's own placements (each squared norm
// reduced over the gradient's mesh), combined as plain numbers.
#include <cmath>
#include <meshguard/meshguard.h>
#include <utility>
#include <vector>

using namespace meshguard;

std::pair<at::Tensor, at::Tensor> place_weights(const at::Tensor &dense_w,
                                                const at::Tensor &expert_w) {
  DeviceMesh world = init_device_mesh("cpu", {4});
  DeviceMesh experts = init_device_mesh("cpu", {2, 2});
  return {distribute_tensor(dense_w, world, {Shard{0}}),
          distribute_tensor(expert_w, experts, {Replicate{}, Shard{0}})};
}

double grad_norm_fp32(const std::vector<at::Tensor> &grads) {
  double total = 0;
  for (const at::Tensor &g : grads)
    total += full_tensor(g.pow(2).sum()).item<double>();
  return std::sqrt(total);
}

double dense_and_expert_norm(const at::Tensor &dense, const at::Tensor &expert) {
  return grad_norm_fp32({dense.grad(), expert.grad()});
}
