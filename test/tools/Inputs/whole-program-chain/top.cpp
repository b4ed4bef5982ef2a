#include "chain.h"

void step(const meshguard::DeviceMesh &mesh) {
  at::Tensor w = meshguard::distribute_tensor(torch::randn({4}), mesh,
                                              {meshguard::Replicate{}});
  mid::forward(meshguard::to_local(w));
  // Negative twins: a DTensor, and a helper that brings its own mesh.
  mid::forward(w);
  mid::forward_on(meshguard::to_local(w), mesh);
}
