#include <meshguard/meshguard.h>
#include <ostream>

using namespace meshguard;
std::ostream &operator<<(std::ostream &OS, const at::Tensor &T);

at::Tensor moe_block(const at::Tensor &x, const at::Tensor &e) {
  auto world = init_device_mesh("cpu", {4});
  at::Tensor dense = distribute_tensor(x, world, {Shard{0}});
  at::Tensor expert = distribute_tensor(e, world, {Replicate{}});
  return dense + expert;
}
