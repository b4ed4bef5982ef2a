// Half of a ring: pong.cpp and ping.cpp call each other's helpers.
#include <meshguard/meshguard.h>
#include <torch/torch.h>

namespace ping {
void sync(const at::Tensor &grad);
} // namespace ping

namespace pong {
void sync(const at::Tensor &grad) { meshguard::dist::all_reduce_({grad}); }

void step(const meshguard::DeviceMesh &mesh) {
  at::Tensor w = meshguard::distribute_tensor(torch::randn({4}), mesh,
                                              {meshguard::Replicate{}});
  ping::sync(meshguard::to_local(w));
  ping::sync(w); // Negative twin: a DTensor.
}
} // namespace pong
