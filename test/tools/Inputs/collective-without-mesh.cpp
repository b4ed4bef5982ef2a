// The first slice of dtensor-collective-without-mesh, shared by the per-tool
// tests (meshguard-tidy, clang-tidy -load, meshguard-clangd): every tool must
// report the same warning on line 13 and nothing on line 20.
#include <meshguard/meshguard.h>
#include <torch/torch.h>

void plainBroadcast() {
  // A plain tensor from a torch factory: no argument carries a DeviceMesh, so
  // the runtime would die with "found no DeviceMesh from dtensor args for
  // c10d.broadcast_.default".
  at::Tensor T = torch::randn({4, 4});

  meshguard::dist::broadcast_({T}, /*src=*/0);
}

void dtensorBroadcast(const meshguard::DeviceMesh &Mesh) {
  at::Tensor D = meshguard::distribute_tensor(torch::randn({4, 4}), Mesh,
                                              {meshguard::Replicate{}});
  // Correct: the argument is a DTensor.
  meshguard::dist::broadcast_({D}, /*src=*/0);
}
