// Source: pytorch/pytorch#131991
// (https://github.com/pytorch/pytorch/issues/131991): the user's workaround
// in the thread, rank 0 initialises, a broadcast from rank 0, then
// distribute_tensor.
#include <meshguard/meshguard.h>

using namespace meshguard;

at::Tensor init_weight(const DeviceMesh &mesh, int64_t out, int64_t in) {
  at::Tensor full = torch::zeros({out, in});
  if (mesh.get_rank() == 0)
    full.copy_(torch::randn({out, in}));
  guarded::broadcast_({full}, mesh, 0);
  return distribute_tensor(full, mesh, {Replicate{}});
}
