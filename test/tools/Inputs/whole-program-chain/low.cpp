#include "chain.h"

namespace low {
void reduce(const at::Tensor &t) { meshguard::dist::all_reduce_({t}); }

void reduce_on(const at::Tensor &t, const meshguard::DeviceMesh &mesh) {
  meshguard::guarded::all_reduce_({t}, mesh);
}

at::Tensor noise(const at::Tensor &t) { return t + torch::randn({4}); }
} // namespace low
