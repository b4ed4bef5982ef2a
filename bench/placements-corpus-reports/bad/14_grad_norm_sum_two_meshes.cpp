// Source: NVIDIA/Megatron-LM#6489, "fix(optimizer): support MFSDP v2
// gradient clipping across dense and expert meshes"
// (https://github.com/NVIDIA/Megatron-LM/pull/6489): the gradients are
// DTensors, dense ones on all ranks and expert ones on the expert stripe, and
// the shared gradient-statistics path (get_grad_norm_fp32: the norm of each
// gradient raised to the norm type, accumulated into one total) assumed a
// single mesh; the PR overrides it to compute "its own statistics from each
// gradient's placements".
// Translation: the accumulation of the squared norms of a dense and an
// expert gradient (1-D and 2-D mesh), as the shared helper does.
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
  at::Tensor total = grads[0].pow(2).sum();
  for (size_t i = 1; i < grads.size(); ++i)
    total = total + grads[i].pow(2).sum(); // EXPECT: dtensor-mixed-meshes
  return std::sqrt(full_tensor(total).item<double>());
}

double dense_and_expert_norm(const at::Tensor &dense, const at::Tensor &expert) {
  return grad_norm_fp32({dense.grad(), expert.grad()});
}
