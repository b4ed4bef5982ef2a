// Half of a ring: ping.cpp and pong.cpp call each other's helpers.
#include <meshguard/meshguard.h>
#include <torch/torch.h>

namespace pong {
void sync(const at::Tensor &grad);
} // namespace pong

namespace ping {
void sync(const at::Tensor &grad) { meshguard::dist::all_reduce_({grad}); }

void step(const meshguard::DeviceMesh &mesh) {
  at::Tensor w = meshguard::distribute_tensor(torch::randn({4}), mesh,
                                              {meshguard::Replicate{}});
  pong::sync(meshguard::to_local(w));
  pong::sync(w); // Negative twin: a DTensor.
}
} // namespace ping
