// Source: pytorch/pytorch#144054, "item() on DTensor only grabs the local
// tensor" (https://github.com/pytorch/pytorch/issues/144054).
// The fix the maintainers gave in the thread: full_tensor().item(), the
// reduced value on every rank.
#include <cmath>
#include <meshguard/meshguard.h>

using namespace meshguard;

double rowwise_norm(const DeviceMesh &mesh, const at::Tensor &local_rows) {
  at::Tensor rowwise = from_local(local_rows, mesh, {Shard{0}});
  at::Tensor squares = rowwise.pow(2).sum();
  return std::sqrt(full_tensor(squares).item<double>());
}
