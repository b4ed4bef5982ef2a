#include "helpers.h"

void step(const meshguard::DeviceMesh &mesh) {
  at::Tensor w = meshguard::distribute_tensor(torch::randn({4}), mesh,
                                              {meshguard::Replicate{}});
  b::g(meshguard::to_local(w));
}

// A finding of this file alone: there with or without summaries.
void perFile() {
  at::Tensor z = torch::zeros({2});
  meshguard::dist::broadcast_({z}, 0);
}
