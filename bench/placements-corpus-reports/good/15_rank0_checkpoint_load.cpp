// Source: pytorch/pytorch#105840
// (https://github.com/pytorch/pytorch/issues/105840). What the user counted
// on (sync_module_states): the weights broadcast from rank 0 before they are
// used as replicated.
#include <meshguard/meshguard.h>

using namespace meshguard;

at::Tensor load_weight(const DeviceMesh &mesh, const at::Tensor &checkpoint) {
  at::Tensor weight = torch::randn({4, 4});
  if (mesh.get_rank() == 0)
    weight.copy_(checkpoint);
  guarded::broadcast_({weight}, mesh, 0);
  return from_local(weight, mesh, {Replicate{}});
}
