// Source: pytorch/pytorch#167598, "[DTensor][Partial] fixing .item() when
// dtensor is Partial" (https://github.com/pytorch/pytorch/pull/167598):
// "when users call .item() on a Partial DTensor, each rank returns the local
// tensor value instead of the global tensor value" (its test: the sum of a
// sharded tensor read with item()).
// Translation: PyTorch's item() before the fix = to_local().item().
#include <meshguard/meshguard.h>

using namespace meshguard;

double sharded_total(const DeviceMesh &mesh, const at::Tensor &full) {
  at::Tensor dt = distribute_tensor(full, mesh, {Shard{0}});
  at::Tensor total = dt.sum();
  return to_local(total).item<double>(); // EXPECT: dtensor-partial-local-use
}
