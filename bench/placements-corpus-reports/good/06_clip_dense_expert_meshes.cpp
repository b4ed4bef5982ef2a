// Sources: NVIDIA/Megatron-LM#6489
// (https://github.com/NVIDIA/Megatron-LM/pull/6489) and pytorch/pytorch#180346
// (https://github.com/pytorch/pytorch/issues/180346). The fix of both (and of
// pytorch/pytorch#180501): each gradient's statistic is reduced over its own
// mesh (full_tensor) before the norms are combined, and the clip coefficient
// is a plain number applied to each gradient.
#include <cmath>
#include <meshguard/meshguard.h>
#include <utility>

using namespace meshguard;

std::pair<at::Tensor, at::Tensor> place_weights(const at::Tensor &dense_w,
                                                const at::Tensor &expert_w) {
  DeviceMesh world = init_device_mesh("cpu", {4});
  DeviceMesh experts = init_device_mesh("cpu", {2, 2});
  return {distribute_tensor(dense_w, world, {Shard{0}}),
          distribute_tensor(expert_w, experts, {Replicate{}, Shard{0}})};
}

double clip_all(const at::Tensor &dense, const at::Tensor &expert,
                double max_norm) {
  double squares = full_tensor(dense.grad()).pow(2).sum().item<double>() +
                   full_tensor(expert.grad()).pow(2).sum().item<double>();
  double total = std::sqrt(squares);
  double coef = max_norm / (total + 1e-6);
  if (coef < 1.0) {
    at::Tensor dense_grad = dense.grad();
    at::Tensor expert_grad = expert.grad();
    dense_grad.mul_(coef);
    expert_grad.mul_(coef);
  }
  return total;
}
