// A finding with a fix-it: a DeviceMesh is in scope, so the check can offer
// the guarded collective that takes the mesh explicitly.
#include <meshguard/meshguard.h>
#include <torch/torch.h>

void plainBroadcastWithMesh(const meshguard::DeviceMesh &Mesh) {
  at::Tensor T = torch::randn({4, 4});
  meshguard::dist::broadcast_({T}, /*src=*/0);
}
