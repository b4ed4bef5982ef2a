#include <meshguard/meshguard.h>
#include <meshguard/runtime/Parallelize.h>
#include <ostream>

using namespace meshguard;
std::ostream &operator<<(std::ostream &OS, const at::Tensor &T);

// Clipped per mesh: each group's norm on its own mesh.
double clip_all() {
  auto dp = init_device_mesh("cpu", {8});
  auto ep = init_device_mesh("cpu", {2, 4});
  torch::nn::Linear dense(64, 64), expert(64, 64);
  fully_shard(*dense, dp);
  fully_shard(*expert, ep, 1);
  double a = torch::nn::utils::clip_grad_norm_({dense->weight, dense->bias}, 1.0);
  return a + torch::nn::utils::clip_grad_norm_({expert->weight, expert->bias}, 1.0);
}
