#include <meshguard/meshguard.h>
#include <ostream>

using namespace meshguard;
std::ostream &operator<<(std::ostream &OS, const at::Tensor &T);

// Gradient clipping over the dense and the expert gradients together.
double clip_all(const at::Tensor &g1, const at::Tensor &g2) {
  auto world = init_device_mesh("cpu", {4});
  auto experts = init_device_mesh("cpu", {2, 2});
  at::Tensor dense = distribute_tensor(g1, world, {Shard{0}});
  at::Tensor expert = distribute_tensor(g2, experts, {Replicate{}, Shard{0}});
  return torch::nn::utils::clip_grad_norm_({dense, expert}, 1.0); // EXPECT: dtensor-mixed-meshes
}
