#include <meshguard/meshguard.h>
#include <meshguard/runtime/Parallelize.h>
#include <ostream>

using namespace meshguard;
std::ostream &operator<<(std::ostream &OS, const at::Tensor &T);

// Dense layers with FSDP on the data-parallel mesh, experts on a 2-D
// expert x data mesh: one clip over both.
double clip_all() {
  auto dp = init_device_mesh("cpu", {8});
  auto ep = init_device_mesh("cpu", {2, 4});
  torch::nn::Linear dense(64, 64), expert(64, 64);
  fully_shard(*dense, dp);
  fully_shard(*expert, ep, 1);
  return torch::nn::utils::clip_grad_norm_({dense->weight, expert->weight}, 1.0); // EXPECT: dtensor-mixed-meshes
}
