#include <meshguard/meshguard.h>
#include <ostream>

using namespace meshguard;
std::ostream &operator<<(std::ostream &OS, const at::Tensor &T);

// Each mesh's gradients clipped on their own.
double clip_each(const at::Tensor &g1, const at::Tensor &g2) {
  auto world = init_device_mesh("cpu", {4});
  auto experts = init_device_mesh("cpu", {2, 2});
  at::Tensor dense = distribute_tensor(g1, world, {Shard{0}});
  at::Tensor expert = distribute_tensor(g2, experts, {Replicate{}, Shard{0}});
  return torch::nn::utils::clip_grad_norm_({dense}, 1.0) +
         torch::nn::utils::clip_grad_norm_({expert}, 1.0);
}
