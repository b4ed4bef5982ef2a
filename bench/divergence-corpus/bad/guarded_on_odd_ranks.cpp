// A guarded all-gather under a rank-parity branch.
#include <meshguard/meshguard.h>

std::vector<at::Tensor> gather_odd(const meshguard::DeviceMesh &mesh,
                                   const at::Tensor &t) {
  std::vector<at::Tensor> out;
  if (mesh.get_rank() % 2 == 1)
    out = meshguard::guarded::all_gather({t}, mesh); // EXPECT-DIVERGENCE
  return out;
}
