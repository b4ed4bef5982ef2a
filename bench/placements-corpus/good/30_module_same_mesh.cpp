#include <meshguard/meshguard.h>
#include <meshguard/runtime/Parallelize.h>
#include <ostream>

using namespace meshguard;
std::ostream &operator<<(std::ostream &OS, const at::Tensor &T);

// The batch on the encoder's own mesh.
at::Tensor encode(torch::nn::Linear &encoder, const at::Tensor &batch) {
  auto dp = init_device_mesh("cpu", {4});
  distribute_module(*encoder, dp);
  at::Tensor x = distribute_tensor(batch, dp, {Shard{0}});
  return encoder(x);
}
