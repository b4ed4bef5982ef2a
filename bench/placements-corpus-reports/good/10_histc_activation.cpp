// Source: pytorch/pytorch#158298
// (https://github.com/pytorch/pytorch/pull/158298). Without a rule for
// histc: gather the activation (full_tensor) and take its histogram.
#include <meshguard/meshguard.h>

using namespace meshguard;

at::Tensor activation_histogram(const DeviceMesh &mesh, const at::Tensor &act) {
  at::Tensor sharded = distribute_tensor(act, mesh, {Shard{0}});
  return full_tensor(sharded).histc(16, -2, 2);
}
