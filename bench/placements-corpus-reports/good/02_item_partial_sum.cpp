// Source: pytorch/pytorch#167598, "[DTensor][Partial] fixing .item() when
// dtensor is Partial" (https://github.com/pytorch/pytorch/pull/167598).
// After the fix item() on the DTensor itself reduces the Partial value
// first; meshguard's item() does the same.
#include <meshguard/meshguard.h>

using namespace meshguard;

double sharded_total(const DeviceMesh &mesh, const at::Tensor &full) {
  at::Tensor dt = distribute_tensor(full, mesh, {Shard{0}});
  at::Tensor total = dt.sum();
  return total.item<double>();
}
