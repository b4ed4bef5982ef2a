// A rank whose local loss is NaN throws; the others wait in the all-reduce.
#include <cmath>
#include <stdexcept>
#include <meshguard/meshguard.h>

at::Tensor shard_loss(int64_t rank);

void step(const meshguard::DeviceMesh &mesh, at::Tensor grad) {
  at::Tensor loss = shard_loss(mesh.get_rank());
  if (std::isnan(loss.item<double>()))
    throw std::runtime_error("NaN loss");
  meshguard::dist::all_reduce_({grad}); // EXPECT-DIVERGENCE
}
