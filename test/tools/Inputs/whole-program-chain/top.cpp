#include "chain.h"

void step(const meshguard::DeviceMesh &mesh) {
  at::Tensor w = meshguard::distribute_tensor(torch::randn({4}), mesh,
                                              {meshguard::Replicate{}});
  mid::forward(meshguard::to_local(w));
  // Negative twins: a DTensor, and a helper that brings its own mesh.
  mid::forward(w);
  mid::forward_on(meshguard::to_local(w), mesh);
}

// The other checks through the same two boundaries.
void more(const meshguard::DeviceMesh &mesh, int step) {
  at::Tensor w = meshguard::distribute_tensor(torch::randn({4}), mesh,
                                              {meshguard::Replicate{}});
  at::Tensor n = mid::jitter(w);
  if (mesh.get_rank() == 0)
    mid::forward(w);
  // Negative twins: a plain tensor mixes nothing; every rank takes a
  // uniform condition.
  at::Tensor quiet = mid::jitter(torch::ones({4}));
  if (step % 10 == 0)
    mid::forward(w);
}

void sendAll(c10d::ProcessGroup &pg, const meshguard::DeviceMesh &mesh) {
  at::Tensor w = meshguard::distribute_tensor(torch::randn({4}), mesh,
                                              {meshguard::Replicate{}});
  mid::send(pg, w);
  mid::send(pg, meshguard::to_local(w)); // Negative twin: a local tensor.
}
