// No finding: the only collective gets a DTensor.
#include <meshguard/meshguard.h>
#include <torch/torch.h>

void dtensorBroadcast(const meshguard::DeviceMesh &Mesh) {
  at::Tensor D = meshguard::distribute_tensor(torch::randn({4, 4}), Mesh,
                                              {meshguard::Replicate{}});
  meshguard::dist::broadcast_({D}, /*src=*/0);
}
