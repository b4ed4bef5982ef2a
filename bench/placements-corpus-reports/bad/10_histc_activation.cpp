// Source: pytorch/pytorch#158298, "[DTensor] implement histc"
// (https://github.com/pytorch/pytorch/pull/158298): until it, histc had no
// DTensor sharding strategy, and a histogram of a sharded DTensor (an
// activation or a weight logged for monitoring) stopped the job with
// "Operator aten.histc.default does not have a sharding strategy registered".
// Translation: the histogram of a row-sharded activation.
#include <meshguard/meshguard.h>

using namespace meshguard;

at::Tensor activation_histogram(const DeviceMesh &mesh, const at::Tensor &act) {
  at::Tensor sharded = distribute_tensor(act, mesh, {Shard{0}});
  return sharded.histc(16, -2, 2); // EXPECT: dtensor-op-without-sharding-rule
}
