#include <meshguard/meshguard.h>
#include <meshguard/runtime/Parallelize.h>
#include <ostream>

using namespace meshguard;
std::ostream &operator<<(std::ostream &OS, const at::Tensor &T);

// The encoder is replicated over the 4-rank data-parallel mesh; the batch
// was put on the 2 x 2 grid meant for the decoder.
at::Tensor encode(torch::nn::Linear &encoder, const at::Tensor &batch) {
  auto dp = init_device_mesh("cpu", {4});
  auto grid = init_device_mesh("cpu", {2, 2});
  distribute_module(*encoder, dp);
  at::Tensor x = distribute_tensor(batch, grid, {Shard{0}, Replicate{}});
  return encoder(x); // EXPECT: dtensor-mixed-meshes
}
