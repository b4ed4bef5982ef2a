#include <meshguard/meshguard.h>
#include <ostream>

using namespace meshguard;
std::ostream &operator<<(std::ostream &OS, const at::Tensor &T);

// A mixture of experts: the dense residual on the world mesh, the expert
// output on a 2x2 expert mesh, added.
at::Tensor moe_block(const at::Tensor &x, const at::Tensor &e) {
  auto world = init_device_mesh("cpu", {4});
  auto experts = init_device_mesh("cpu", {2, 2});
  at::Tensor dense = distribute_tensor(x, world, {Shard{0}});
  at::Tensor expert = distribute_tensor(e, experts, {Shard{0}, Replicate{}});
  return dense + expert; // EXPECT: dtensor-mixed-meshes
}
