#include "chain.h"

namespace mid {
void forward(const at::Tensor &g) { low::reduce(g); }

void forward_on(const at::Tensor &g, const meshguard::DeviceMesh &mesh) {
  low::reduce_on(g, mesh);
}

at::Tensor jitter(const at::Tensor &g) { return low::noise(g); }
} // namespace mid
